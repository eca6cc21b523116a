"""The documentation site (mkdocs.yml, docs/): it builds with ``mkdocs build --strict``, every built page renders
in headless Chromium with no console error and every internal link and source resolves to a built file, and every
code block of the docs marked runnable runs clean.

A block is marked runnable by an HTML comment, ``<!-- runnable -->``, on the line before its opening fence (blank
lines between are allowed; docs/architecture.md, "The documentation site"). The runnable blocks of a page run in
order, each in its own process, in one fresh folder per page, so a block may read what an earlier one wrote:

* a ``python`` block runs as a script and must exit 0 with nothing on stderr;
* any other block is shell: each line starting with ``$ `` is a command, and the lines under it are what it
  prints; in a block with no ``$ `` every line is a command. Each command must exit 0, and the lines shown under
  it must appear, in order, in what it printed (seconds masked, and the note about an untimed preparation that a
  slow first import adds left out).

The browser part needs the docs extra (``pip install -e ".[docs]"``, which brings selenium) and Debian's chromium
with its chromedriver; without them it skips, saying which. Selenium drives Debian's own chromedriver, which is
built from the same source package as the chromium beside it, so the two always match; a Playwright-driven
browser would have to match the protocol version Playwright was built for, and its own browser build cannot be
downloaded here.
"""

from __future__ import annotations

import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from browser import driven_chromium

pytestmark = pytest.mark.repository("mkdocs.yml, docs/, README.md")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MARKER = "<!-- runnable -->"
HAS_MKDOCS = importlib.util.find_spec("mkdocs") is not None
DOCS_EXTRA = 'the docs extra is not installed (pip install -e ".[docs]"; .ci/run does)'
BLOCK_TIMEOUT = 120  # seconds: a runnable block is meant to take seconds


@dataclass(frozen=True)
class Block:
    """A fenced code block of a docs page: where it starts, its language and its text."""

    page: str
    line: int
    language: str
    code: str


def runnable_blocks(page: Path) -> list[Block]:
    """The blocks of ``page`` marked runnable, in order. A marker not followed by a fence is an error."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks = []
    inside: str | None = None  # the fence of the block being read: a marker shown inside a block is not one
    for number, line in enumerate(lines):
        opening = re.match(r"^\s*(`{3,})", line)
        if opening and inside is None:
            inside = opening.group(1)
        elif inside is not None and line.strip() == inside:
            inside = None
        if inside is not None or line.strip() != MARKER:
            continue
        start = next((i for i in range(number + 1, len(lines)) if lines[i].strip()), None)
        fence = None if start is None else re.match(r"^(`{3,})\s*([\w+-]*)", lines[start])
        assert fence is not None, f"{page.name}:{number + 1}: {MARKER} is not followed by a fenced code block"
        end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == fence.group(1))
        blocks.append(
            Block(
                page.relative_to(DOCS).as_posix(), start + 1, fence.group(2), "\n".join(lines[start + 1 : end]) + "\n"
            )
        )
    return blocks


PAGES_WITH_RUNNABLE_BLOCKS = sorted(
    page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md") if runnable_blocks(page)
)


def shell_commands(code: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) for each command of a shell block."""
    lines = code.splitlines()
    prompted = any(line.startswith("$ ") for line in lines)
    commands: list[tuple[str, list[str]]] = []
    continued = False
    for line in lines:
        if continued:
            commands[-1] = (commands[-1][0] + "\n" + line, [])
        elif line.startswith("$ ") or (not prompted and line.strip()):
            commands.append((line.removeprefix("$ "), []))
        elif line.strip():
            commands[-1][1].append(line)
        continued = line.rstrip().endswith("\\") and bool(commands)
    return commands


SECONDS = re.compile(r"\d+(?:\.\d+)? s\b")
PREPARATION_NOTE = re.compile(r" \(before it, [^)]* untimed\)")


def normalised(line: str) -> str:
    """A printed line with its timings masked: they differ from run to run and machine to machine."""
    return SECONDS.sub("N s", PREPARATION_NOTE.sub("", line)).rstrip()


def shown_lines_appear(shown: list[str], printed: list[str]) -> bool:
    """Every shown line is a printed line, in the same order (a page may leave lines out)."""
    remaining = iter(normalised(line) for line in printed)
    return all(any(normalised(line) == candidate for candidate in remaining) for line in shown)


def environment() -> dict[str, str]:
    """This environment, with this interpreter's scripts (the ``nqueens`` command) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    return env


@pytest.mark.parametrize("page", PAGES_WITH_RUNNABLE_BLOCKS)
def test_runnable_blocks_run_clean(page: str, tmp_path: Path) -> None:
    for block in runnable_blocks(DOCS / page):
        where = f"{block.page}:{block.line}"
        if block.language == "python":
            script = tmp_path / f"block_{block.line}.py"
            script.write_text(block.code, encoding="utf-8")
            done = subprocess.run(
                [sys.executable, script.name],
                cwd=tmp_path,
                env=environment(),
                capture_output=True,
                text=True,
                timeout=BLOCK_TIMEOUT,
                check=False,
            )
            assert done.returncode == 0 and not done.stderr.strip(), f"{where}\n{done.stderr[-3000:]}"
            continue
        for command, shown in shell_commands(block.code):
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=tmp_path,
                env=environment(),
                capture_output=True,
                text=True,
                timeout=BLOCK_TIMEOUT,
                check=False,
            )
            assert done.returncode == 0, f"{where}: {command}\nexit {done.returncode}\n{done.stderr[-3000:]}"
            printed = done.stdout.splitlines()
            assert shown_lines_appear(shown, printed), (
                f"{where}: {command}\nthe page shows:\n" + "\n".join(shown) + "\nit printed:\n" + done.stdout
            )


def test_the_runnable_marker_is_read_as_documented() -> None:
    """The rules this file's docstring and docs/architecture.md state, on blocks made for the purpose."""
    assert shell_commands("$ a\nout 1\nout 2\n$ b \\\n    --flag\nout 3\n") == [
        ("a", ["out 1", "out 2"]),
        ("b \\\n    --flag", ["out 3"]),
    ]
    assert shell_commands("a  # comment\n\nb\n") == [("a  # comment", []), ("b", [])]
    assert shown_lines_appear(
        ["x 0.008 s", "z"], ["x 1.5 s (before it, 1.2 s preparing the solver: untimed)", "y", "z"]
    )
    assert not shown_lines_appear(["z", "x"], ["x", "z"])


def test_the_readmes_links_reach_the_pages() -> None:
    """The README is the front page on GitHub: each of its relative links names a file of the repository."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [link for link in re.findall(r"\]\(([^)\s]+)\)", readme) if "://" not in link]
    assert links
    for link in links:
        assert (ROOT / link.split("#")[0]).exists(), link


# --- the built site ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this file with ``mkdocs build --strict``, as CI and a user build it."""
    if not HAS_MKDOCS:
        pytest.skip(DOCS_EXTRA)
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**environment(), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    return out


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    pages = {page.relative_to(DOCS).with_suffix("").as_posix() for page in DOCS.rglob("*.md")}
    built = {
        "index" if html.parent == site else html.parent.relative_to(site).as_posix()
        for html in site.rglob("index.html")
    }
    assert pages <= built, pages - built
    assert (site / "cli" / "index.html").read_text(encoding="utf-8").count("Usage:") >= 10  # every command
    assert "nqueens_plugins.api.solve" in (site / "api" / "index.html").read_text(encoding="utf-8")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on the loopback, as ``mkdocs serve`` or any host serves it: a page opened from a
    file cannot load the search index (the search worker fetches it) nor resolve directory URLs."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium driven through Debian's chromedriver, its console log kept."""
    missing = [] if HAS_MKDOCS else ['the docs extra (pip install -e ".[docs]")']
    yield from driven_chromium(missing, "the site is not opened in a browser")


LINKS_AND_SOURCES = """
return Array.from(document.querySelectorAll('[href], [src]'), element =>
    element.getAttribute('href') ?? element.getAttribute('src'));
"""


def built_file(site: Path, base: str, url: str) -> Path | None:
    """The file of the built site an internal URL names, or None for an external one."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not url.startswith(base):
        return None
    path = site / unquote(parts.path[len(urlsplit(base).path) :])
    return path / "index.html" if url.split("#")[0].split("?")[0].endswith("/") else path


def test_every_page_renders_without_console_errors_and_every_internal_link_resolves(
    browser: Any, site: Path, served: str
) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 10
    errors: list[str] = []
    broken: list[str] = []
    for page in pages:
        url = urljoin(served, page.relative_to(site).as_posix())
        browser.get(url)  # returns once the page has loaded
        for target in browser.execute_script(LINKS_AND_SOURCES):
            if target.startswith(("mailto:", "javascript:", "data:")):
                continue
            file = built_file(site, served, urljoin(url, target))
            if file is not None and not file.is_file():
                broken.append(f"{page.relative_to(site)}: {target}")
        errors += [
            f"{page.relative_to(site)}: {entry['message']}"
            for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE"
        ]
    time.sleep(0.5)  # an error the last page logs late (its search worker starts after the load)
    errors += [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not broken and not errors, "\n".join(
        ["links and sources that name no built file:", *broken, "console errors:", *errors]
    )


def test_the_exit_status_table_has_a_row_for_each_command_the_code_names() -> None:
    """docs/cli.md's table against the statuses ``--help`` prints (``cli.EXIT_STATUSES``): the same commands,
    and a status 3 exactly where the command can reject an answer."""
    from nqueens_plugins import cli

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    table = page.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0].strip("` "): cells
        for cells in (line.strip("|").split("|") for line in table.splitlines() if line.startswith("| "))
        if cells[0].strip() != "command"
    }
    assert set(rows) == {*cli.EXIT_STATUSES, "the others"}
    rejecting = {command for command in cli.EXIT_STATUSES if "; 3 " in cli.exit_statuses(command)}
    assert {command for command, cells in rows.items() if cells[4].strip() != "-"} == rejecting


def test_the_api_reference_covers_every_export() -> None:
    """Each name of ``nqueens_plugins.__all__`` has its entry: the API functions on docs/api.md, the rest (the
    contract) on docs/contract.md; a new export without one fails here, not silently on the site."""
    import nqueens_plugins

    api_page = (DOCS / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s+- (\w+)$", api_page.split("::: nqueens_plugins.api", 1)[1], flags=re.MULTILINE))
    contract = set(re.findall(r"^::: nqueens_plugins\.(\w+)$", (DOCS / "contract.md").read_text(), flags=re.MULTILINE))
    functions = set(nqueens_plugins.API)
    assert functions <= listed, functions - listed
    assert set(nqueens_plugins.__all__) - functions <= contract, set(nqueens_plugins.__all__) - functions - contract
