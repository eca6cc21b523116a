"""The outputs of ``report`` (table, Markdown, CSV, JSON, HTML, ASlib), ``select`` and a tune's replayed report,
byte for byte, on a kept set of results files (issue 54, item 1): the safety net under the typed run record.

The results files in ``tests/data/golden/results`` were written by ``compare`` and ``tune`` of the release before
``RunRecord`` (plain runs, timeouts, instance files, fixed and blocked squares, certified runs with their kept
proofs, a tune); the 0.1 fixtures of ``tests/data/written-by-0.1`` are read too. Each case's expected output is kept
in ``tests/data/golden/expected``, written by that same code. Reading a kept file involves no timing, so the outputs
are the same on every run, with four exceptions, normalized here and nowhere else:

- the seconds the re-check of kept proofs took, in its note ("re-checked now by the host's checker (0.05 s)");
- the folder of the kept files and the test's own temporary folder, where a message names a path;
- the ids matplotlib draws into an SVG (random per process): numbered in the order they appear;
- the plots themselves where the installed matplotlib is another version than the one that drew the expected
  pages (its SVG changes with its version, not with ours): each ``<svg>...</svg>`` becomes ``<svg/>``.

Certified files are reported with ``--recheck all``: every kept proof re-checked, never a time budget's share.
Run with ``NQUEENS_GOLDEN_WRITE=1`` to write the expected outputs again (only when an output is meant to change).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).parent
RESULTS = HERE / "data" / "golden" / "results"
OLD = HERE / "data" / "written-by-0.1"
EXPECTED = HERE / "data" / "golden" / "expected"
WRITE = os.environ.get("NQUEENS_GOLDEN_WRITE") == "1"

FILES = {
    **{path.stem: path for path in sorted(RESULTS.glob("*.jsonl"))},
    **{path.stem: path for path in sorted(OLD.glob("*.jsonl")) if not path.stem.startswith("pieces")},
}
CERTIFIED = {"certified", "certified-instances", "certified-0.1"}
TUNES = {"tune", "tune-0.1"}
TEXT_FORMATS = ("table", "markdown", "csv", "json")

# (case name, arguments after ``nqueens``; "{out}" is a path in the test's temporary folder, written by the command)
CASES: list[tuple[str, list[str]]] = []
for _stem, _path in FILES.items():
    _recheck = ["--recheck", "all"] if _stem in CERTIFIED else []
    for _fmt in ("table", "markdown", "json") if _stem in TUNES else TEXT_FORMATS:
        CASES.append((f"report-{_stem}.{_fmt}", ["report", str(_path), "--format", _fmt, *_recheck]))
    if _stem not in TUNES:
        CASES.append((f"report-{_stem}.html", ["report", str(_path), "--format", "html", "-o", "{out}", *_recheck]))
        CASES.append((f"aslib-{_stem}", ["report", str(_path), "--format", "aslib", "-o", "{out}", *_recheck]))
CASES += [
    ("select-plain-n8", ["select", str(RESULTS / "plain.jsonl"), "-n", "8"]),
    ("select-plain-n3", ["select", str(RESULTS / "plain.jsonl"), "-n", "3"]),
    ("select-plain-schedule", ["select", str(RESULTS / "plain.jsonl"), "-n", "10", "--schedule", "--timeout", "5"]),
    ("select-plain-n9", ["select", str(RESULTS / "plain.jsonl"), "-n", "9"]),
    (
        "select-instances",
        ["select", str(RESULTS / "instances.jsonl"), "--instance", str(HERE / "data" / "diag-10-4-1.param@5")],
    ),
    ("select-placed", ["select", str(RESULTS / "placed.jsonl"), "-n", "8", "--fixed", "0:0", "--blocked", "1:2,3:3"]),
    ("select-0.1", ["select", str(OLD / "results-0.1.jsonl"), "-n", "8"]),
]

SVG_ID = re.compile(r"\b(id=\"|url\(#|href=\"#)([a-z][0-9a-f]{8,12})\b")
RECHECK_SECONDS = re.compile(r"(re-checked now by the host(?:'|&#x27;)s checker \()[0-9.]+ s\)")
SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


def matplotlib_version() -> str:
    import matplotlib

    return matplotlib.__version__


def normalize(text: str, tmp: Path, same_matplotlib: bool) -> str:
    """The text with what differs from run to run (and only that) made the same; see the module's docstring."""
    text = text.replace(str(tmp), "<tmp>").replace(str(RESULTS), "<results>").replace(str(OLD), "<written-by-0.1>")
    text = RECHECK_SECONDS.sub(r"\1<seconds> s)", text)
    if not same_matplotlib:
        return SVG.sub("<svg/>", text)
    numbers: dict[str, str] = {}

    def number(match: re.Match[str]) -> str:
        return match.group(1) + numbers.setdefault(match.group(2), f"svg-id-{len(numbers)}")

    return SVG_ID.sub(number, text)


def outputs(code: int, out: str, err: str, written: Path) -> dict[str, str]:
    """What a command gave: its exit status and standard streams, and each file it wrote (by relative name)."""
    given = {"status": f"{code}\n", "stdout": out, "stderr": err}
    if written.is_file():
        given["file"] = written.read_text(encoding="utf-8")
    elif written.is_dir():
        for path in sorted(written.rglob("*")):
            if path.is_file():
                given[f"file-{path.relative_to(written).as_posix()}"] = path.read_text(encoding="utf-8")
    return given


@pytest.mark.parametrize(("name", "args"), CASES, ids=[name for name, _ in CASES])
def test_the_output_is_the_kept_one_byte_for_byte(
    name: str,
    args: list[str],
    run_cli: Callable[..., tuple[int, str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table's width: a terminal's, else this
    monkeypatch.chdir(tmp_path)
    written = tmp_path / "out"
    code, out, err = run_cli(*[arg.replace("{out}", str(written)) for arg in args])
    kept = EXPECTED / name
    version_file = EXPECTED / "matplotlib-version.txt"
    if WRITE:
        kept.mkdir(parents=True, exist_ok=True)
        for old in kept.iterdir():
            old.unlink()
        for part, text in outputs(code, out, err, written).items():
            (kept / f"{part.replace('/', '__')}.txt").write_text(normalize(text, tmp_path, True), encoding="utf-8")
        version_file.write_text(matplotlib_version() + "\n", encoding="utf-8")
        return
    same = version_file.read_text(encoding="utf-8").strip() == matplotlib_version()
    expected = {
        path.stem.replace("__", "/"): normalize(path.read_text(encoding="utf-8"), tmp_path, same)
        for path in kept.iterdir()
    }
    given = {part: normalize(text, tmp_path, same) for part, text in outputs(code, out, err, written).items()}
    assert given.keys() == expected.keys()
    for part, text in expected.items():
        assert given[part] == text, f"{name}: {part} differs from {kept / part}.txt"


def test_every_case_has_a_kept_output_and_every_kept_output_a_case() -> None:
    """A case added without its expected output, or one left behind by a removed case, is caught here."""
    kept = {path.name for path in EXPECTED.iterdir() if path.is_dir()}
    assert {path.name for path in EXPECTED.glob("read-*.json")} == {f"read-{stem}.json" for stem in FILES}
    assert kept == {name for name, _ in CASES}
    assert len(CASES) >= 40 and any(name.startswith("select") for name in kept)


@pytest.mark.parametrize("stem", sorted(FILES), ids=sorted(FILES))
def test_the_records_read_are_the_kept_ones(stem: str) -> None:
    """What the readers give every later step (``read_runs``: each record, its time limit filled in from the
    header where it lacks one; the warnings), as JSON with the key order kept: a typed record read and written
    back must give the same."""
    from nqueens_plugins.formats.records import Loaded, read_runs

    loaded = Loaded()
    records = [dict(record) for record in read_runs(FILES[stem], loaded)]
    given = json.dumps({"records": records, "warnings": loaded.warnings}, indent=1, ensure_ascii=False) + "\n"
    kept = EXPECTED / f"read-{stem}.json"
    if WRITE:
        kept.write_text(given, encoding="utf-8")
        return
    assert given == kept.read_text(encoding="utf-8")
