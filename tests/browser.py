"""Headless Chromium for the tests that check a page renders (the HTML report, the animation)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
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
