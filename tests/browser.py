"""Headless Chromium for the tests that check a page renders (the HTML report, the animation)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
HAS_SELENIUM = importlib.util.find_spec("selenium") is not None
APT_COMMAND = "apt-get install -y chromium chromium-driver"
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; .ci/run does)"
)


def render_in_chromium(page: Path, width: int, height: int) -> tuple[Any, list[str]]:
    """Open ``page`` in headless Chromium: (the screenshot's RGB pixels, 0..1, and its console messages)."""
    import matplotlib.image

    shot = page.with_suffix(".screenshot.png")
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--screenshot={shot}",
            f"--window-size={width},{height}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shot.exists(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    return matplotlib.image.imread(shot)[:, :, :3], console


def driven_chromium(missing: list[str], what: str) -> Iterator[Any]:
    """Headless Chromium driven through Debian's chromedriver, its console log kept; skipped, naming what
    to install, when ``missing`` (the caller's other needs) or the browser, its driver or selenium lack."""
    if not HAS_SELENIUM:
        missing = [*missing, 'selenium (pip install -e ".[docs]")']
    if CHROMIUM is None or CHROMEDRIVER is None:
        missing = [*missing, f"Chromium and its chromedriver ({APT_COMMAND}, as root)"]
    if missing:
        pytest.skip(f"{what} without {' and '.join(dict.fromkeys(missing))}; .ci/run installs both")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
