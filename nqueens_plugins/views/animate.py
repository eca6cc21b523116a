"""Views layer, parent side: step-by-step views of one run (trace files of ``solve --trace``, ``nqueens animate``).

A trace file is one JSON object: the run (solver, board, seed, status, the final
queens) and its ``events`` as the solver reported them (``problem.Trace``).
``nqueens animate TRACE -o run.html|svg|gif`` replays the events into frames:
the board after each step, the queens under attack ringed red, and below it
the cost (attacking pairs among the queens on the board) step by step.

* ``.html``: one self-contained page, the frames drawn by a small inline script,
  with play/pause, step back and forward, a slider and a speed choice;
* ``.svg``: an SVG animation (SMIL), playing once, no script;
* ``.gif``: a GIF made with matplotlib (the ``plot`` extra).

A long run is shown by at most ``MAX_FRAMES`` evenly spaced frames (the last
one always the final board); the HTML page says when frames were left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, TypeGuard

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import TRACE_EVENTS, TRACED_UP_TO, replay
from nqueens_plugins.formats.drawing import ATTACKED, BLOCKED, DARK, LIGHT, QUEEN, attacked_columns, attacking_pairs
from nqueens_plugins.formats.output_files import write_whole

FORMAT = "nqueens-trace"
MAX_FRAMES = 2000
SVG_FRAMES = 400
GIF_FRAMES = 300


def trace_document(result: Any) -> dict[str, Any]:
    """What ``solve --trace FILE`` writes: the run and its steps."""
    trace = result.trace
    return {
        "format": FORMAT,
        "format_version": 1,
        "solver": result.solver,
        "n": result.n,
        "fixed": {str(c): r for c, r in result.fixed.items()},
        "blocked": [list(s) for s in sorted(result.problem.blocked)],
        "seed": result.seed,
        "status": str(result.status),
        "verified": result.verified,
        "queens": None if result.queens is None else [int(r) for r in result.queens],
        "iterations": result.iterations,
        "moves": result.moves,
        "truncated": bool(trace.truncated),
        "events": [plain(event, 3) for event in trace.events],
    }


def plain(value: Any, depth: int) -> Any:
    """A value of a solver's trace as JSON gives it back (numpy's integers as int, tuples and arrays as
    lists), so that a traced result and its file are checked alike. Anything else stays as it is, for
    ``trace_fault`` to refuse: no method of an object a plugin made is called here, in the parent."""
    if type(value) is list and set(map(type, value)) <= {int, str}:
        return value  # already plain: the usual case, kept fast for long traces
    if depth > 0 and type(value).__module__ == "numpy":
        return plain(value.tolist(), depth - 1)  # an array or a scalar of numpy's own
    if depth > 0 and type(value) in (list, tuple):
        return [plain(item, depth - 1) for item in value]
    return value


def write_trace(result: Any, path: Path) -> None:
    """The trace file, whole or not at all (``output_files.write_whole``): an earlier trace stays as it was if
    the disk fills."""
    write_whole(path, json.dumps(trace_document(result), default=int) + "\n")


def read_trace(path: Path) -> dict[str, Any]:
    """The trace file at ``path``, checked through and through (``trace_fault``) before anything is made
    from it: a file that is not a trace nqueens could have written is a ``BadInput`` of one line."""
    if path.exists() and not path.is_file():
        raise BadInput(f"{str(path)!r} is not a regular file")
    try:
        size = path.stat().st_size
        if size > TRACE_BYTES_AT_MOST:
            raise BadInput(f"{str(path)!r} is not a trace file: {size:,} bytes, more than any trace holds")
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"trace {str(path)!r} does not exist") from None
    except RecursionError:
        raise BadInput(f"{str(path)!r} is not a trace file: its JSON is nested too deeply") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"{str(path)!r} is not a trace file ({type(exc).__name__})") from None
    return checked(document, repr(str(path)))


def checked(document: Any, name: str = "the trace") -> dict[str, Any]:
    """``document`` itself once it is a usable trace; otherwise a ``BadInput`` naming the first fault."""
    fault = trace_fault(document)
    if fault is not None:
        raise BadInput(f"{name} is not a usable trace: {fault}")
    return document  # trace_fault has checked it is a dict


# --- what a usable trace is --------------------------------------------------------------------------

# Any trace nqueens writes is well under this (200,000 events of a 64-column board: about 55 MB).
TRACE_BYTES_AT_MOST = 256 * 2**20
EVENT_LENGTHS = {"place": 3, "move": 3, "remove": 2, "board": 2}  # each event's kind and its length


def trace_fault(document: Any) -> str | None:
    """What makes ``document`` unusable as a trace, or None: the header's types, ``n`` from 1 to
    ``TRACED_UP_TO`` (checked before anything is sized by it), and every event well-formed with each
    column and row on the board. Everything the views read from a trace is checked here."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return "it is not a trace file (written by nqueens solve --trace)"
    version = document.get("format_version", 1)
    if not is_int(version) or version != 1:
        return f"format_version {shown(version)}, where this nqueens reads version 1"
    n = document.get("n")
    if not is_int(n) or not 1 <= n <= TRACED_UP_TO:
        return f"n is {shown(n)}, not a board size from 1 to {TRACED_UP_TO} (the largest traced)"
    return header_fault(document, n) or placement_fault(document, n) or events_fault(document.get("events"), n)


def header_fault(document: Mapping[str, Any], n: int) -> str | None:
    """The run's description: the words and numbers the page prints."""
    expected: dict[str, tuple[tuple[type, ...], bool]] = {  # field: (its types, whether it may be left out)
        "solver": ((str,), False),
        "status": ((str,), False),
        "seed": ((int, type(None)), False),
        "verified": ((bool, type(None)), True),
        "iterations": ((int, type(None)), True),
        "moves": ((int, type(None)), True),
        "truncated": ((bool,), True),
    }
    for key, (types, optional) in expected.items():
        if key not in document:
            if optional:
                continue
            return f"it has no {key}"
        value = document[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"its {key} is {shown(value)}"
    queens = document.get("queens")
    if queens is not None and not is_row_list(queens, n):
        return f"its queens {shown(queens)} are not one row (or -1) for each of the {n} columns"
    return None


def placement_fault(document: Mapping[str, Any], n: int) -> str | None:
    """The fixed queens ({"column": row}) and blocked squares ([column, row]), all on the board."""
    fixed = document.get("fixed") or {}
    if not isinstance(fixed, dict):
        return f"its fixed queens {shown(fixed)} are not a mapping of column to row"
    for column, row in fixed.items():
        if column not in COLUMNS[n] or not on_board(row, n):
            return f"its fixed queen {shown(column)}: {shown(row)} is not on the {n}x{n} board"
    blocked = document.get("blocked") or []
    if not isinstance(blocked, list):
        return f"its blocked squares {shown(blocked)} are not a list"
    for square in blocked:
        if not (isinstance(square, list) and len(square) == 2 and all(on_board(x, n) for x in square)):
            return f"its blocked square {shown(square)} is not [column, row] on the {n}x{n} board"
    return None


def events_fault(events: Any, n: int) -> str | None:
    if not isinstance(events, list):
        return f"its events are {shown(events)}, not a list"
    if len(events) > TRACE_EVENTS:
        return f"{len(events):,} events, more than the {TRACE_EVENTS:,} a trace keeps"
    for number, event in enumerate(events):
        fault = event_fault(event, n)
        if fault is not None:
            return f"event {number:,} {shown(event)} {fault}"
    return None


def event_fault(event: Any, n: int) -> str | None:
    """What is wrong with one event (as ``Trace`` writes them) on an n x n board, or None."""
    if not (
        isinstance(event, list) and event and isinstance(event[0], str) and EVENT_LENGTHS.get(event[0]) == len(event)
    ):
        return "is not one of [place, column, row], [move, column, row], [remove, column], [board, rows]"
    if event[0] == "board":
        return None if is_row_list(event[1], n) else f"is not one row (or -1) for each of the {n} columns"
    if not on_board(event[1], n) or (len(event) == 3 and not on_board(event[2], n)):
        return f"names no square of the {n}x{n} board (a column and a row are whole numbers from 0 to {n - 1})"
    return None


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON's true is no number


def on_board(value: Any, n: int) -> bool:
    return is_int(value) and 0 <= value < n


def is_row_list(value: Any, n: int) -> bool:
    """A whole board: a list of n rows, each an int from -1 (an empty column) to n - 1. Fast on long
    traces (a 64-column board 200,000 times): one set of the values and one of their types."""
    if not isinstance(value, list) or len(value) != n:
        return False
    try:
        return set(map(type, value)) <= {int} and ROWS[n].issuperset(value)
    except TypeError:  # an unhashable value
        return False


ROWS = [frozenset(range(-1, n)) for n in range(TRACED_UP_TO + 1)]  # ROWS[n]: a row on an n x n board, or -1
COLUMNS = [frozenset(str(c) for c in range(n)) for n in range(TRACED_UP_TO + 1)]  # as a JSON key names them


def shown(value: Any) -> str:
    """A short picture of a value from the file, spelt as JSON, however long or deep the value is."""
    return json.dumps(clipped(value, 3), default=repr).replace(f'"{CUT}"', CUT)


CUT = "..."  # where clipped left something out (shown bare, not as a string)


def clipped(value: Any, depth: int) -> Any:
    if isinstance(value, (list, dict)) and depth == 0:
        return CUT
    if isinstance(value, list):
        return [clipped(item, depth - 1) for item in value[:6]] + ([CUT] if len(value) > 6 else [])
    if isinstance(value, dict):
        items = {str(key)[:20]: clipped(item, depth - 1) for key, item in list(value.items())[:4]}
        return items | ({CUT: CUT} if len(value) > 4 else {})
    if isinstance(value, str) and len(value) > 40:
        return value[:40] + CUT
    if is_int(value) and value.bit_length() > 64:
        return CUT
    return value


def frames_of(document: Mapping[str, Any]) -> list[list[int]]:
    """The board the run starts from (step 0), then the board after each step.

    A search that starts from a whole board (a local search's random or greedy placement: its first
    event is that board) starts there, so step 0 is that board; the empty board before it was never a
    state of the search. A constructive search starts from the empty board (the fixed queens alone),
    and its step 0 shows that."""
    n = int(document["n"])
    fixed = {int(c): int(r) for c, r in (document.get("fixed") or {}).items()}
    start = [-1] * n
    for column, row in fixed.items():
        start[column] = row
    try:
        boards = list(replay(n, document["events"], fixed))
    except (ValueError, IndexError, TypeError, KeyError) as exc:
        raise BadInput(f"the trace's events cannot be replayed: {exc}") from None
    return boards if starts_from_a_board(document) else [start, *boards]


def starts_from_a_board(document: Mapping[str, Any]) -> bool:
    events = document["events"]
    return bool(events) and events[0][0] == "board"


def start_label(document: Mapping[str, Any]) -> str:
    """What step 0 shows, in words, for the page."""
    if starts_from_a_board(document):
        return "the initial board"
    return "the fixed queens alone" if document.get("fixed") else "the empty board"


def sample(count: int, limit: int) -> list[int]:
    """At most ``limit`` frame indices, evenly spaced, the first and last always in."""
    if count <= limit:
        return list(range(count))
    return sorted({round(i * (count - 1) / (limit - 1)) for i in range(limit)})


def animate(document: Mapping[str, Any], output: Path) -> int:
    """Write the animation of a checked trace (``read_trace``'s, an ``Animation``'s); the frames shown."""
    suffix = output.suffix.lower()
    if suffix not in (".html", ".svg", ".gif"):
        raise BadInput(f"animation output must end in .html, .svg or .gif, not {output.name!r}")
    frames = frames_of(document)
    if suffix == ".html":
        chosen = sample(len(frames), MAX_FRAMES)
        text = html_page(document, [frames[i] for i in chosen], chosen, len(frames))
    elif suffix == ".svg":
        chosen = sample(len(frames), SVG_FRAMES)
        text = svg_animation(document, [frames[i] for i in chosen])
    else:
        chosen = sample(len(frames), GIF_FRAMES)
        gif(document, [frames[i] for i in chosen], chosen, output)
        return len(chosen)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot write {str(output)!r}: {exc.strerror}") from None
    return len(chosen)


@dataclass
class Animation:
    """One run's steps as the ``nqueens animate`` player (``nq.animation``): a notebook shows the player
    (``_repr_html_``, in an iframe of its own, so its script and style stay apart from the notebook's);
    ``save`` writes it as ``.html``, ``.svg`` or ``.gif``, as the command does."""

    document: dict[str, Any]

    def __post_init__(self) -> None:
        checked(self.document)  # a plugin's trace is checked as a file's is: it is no more to be trusted

    @property
    def frames(self) -> int:
        """Boards in the run: the one it starts from (step 0: a local search's initial board, a constructive
        search's empty board), then one after each step."""
        return len(frames_of(self.document))

    def html(self) -> str:
        """The self-contained player page."""
        frames = frames_of(self.document)
        chosen = sample(len(frames), MAX_FRAMES)
        return html_page(self.document, [frames[i] for i in chosen], chosen, len(frames))

    def save(self, path: str | Path) -> int:
        """Write the animation (its suffix picks the format); the number of frames shown."""
        return animate(self.document, Path(path))

    def _repr_html_(self) -> str:
        n = int(self.document["n"])
        height = 260 + 18 * min(n, 40)
        return (
            f'<iframe srcdoc="{escape(self.html(), quote=True)}" width="100%" height="{height}" '
            'style="border: none"></iframe>'
        )


def title_of(document: Mapping[str, Any]) -> str:
    verified = ", verified" if document.get("verified") else ""
    return f"{document['solver']} on {document['n']}x{document['n']} (seed {document['seed']}): {document['status']}{verified}"


PAGE_SCRIPT = """
const data = JSON.parse(document.getElementById("trace-data").textContent);
const n = data.n, frames = data.frames, costs = data.costs, steps = data.steps;
const board = document.getElementById("board"), curve = document.getElementById("curve");
const slider = document.getElementById("slider"), label = document.getElementById("label");
const play = document.getElementById("play"), speed = document.getElementById("speed");
const ns = "http://www.w3.org/2000/svg", cell = 480 / n;
const blocked = new Set(data.blocked.map(([c, r]) => c + "," + r)), fixed = data.fixed;
let current = 0, timer = null;
function el(name, attrs) { const e = document.createElementNS(ns, name); for (const k in attrs) e.setAttribute(k, attrs[k]); return e; }
function attacked(q) {
  const seen = new Map(), hit = new Set();
  q.forEach((r, c) => { if (r < 0) return; for (const key of ["r" + r, "d" + (r + c), "a" + (r - c)]) {
    if (seen.has(key)) { hit.add(c); hit.add(seen.get(key)); } else seen.set(key, c); } });
  return hit;
}
function drawBoard(q) {
  board.replaceChildren();
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++)
    board.append(el("rect", {x: c * cell, y: r * cell, width: cell, height: cell,
      fill: blocked.has(c + "," + r) ? "BLOCKED" : ((r + c) % 2 ? "DARK" : "LIGHT")}));
  const hit = attacked(q);
  q.forEach((r, c) => { if (r < 0) return;
    const x = (c + 0.5) * cell, y = (r + 0.5) * cell, hollow = String(c) in fixed;
    board.append(el("circle", {cx: x, cy: y, r: cell * 0.32, fill: hollow ? "none" : "QUEEN", stroke: "QUEEN",
      "stroke-width": Math.max(cell * 0.06, 1)}));
    if (hit.has(c)) board.append(el("circle", {cx: x, cy: y, r: cell * 0.45, fill: "none", stroke: "ATTACKED",
      "stroke-width": Math.max(cell * 0.08, 1.5), class: "attacked"})); });
}
const plot = {left: 48, right: 470, top: 8, bottom: 112};  // the curve's axes inside its 480 x 150 box
const most = costs.reduce((a, b) => Math.max(a, b), 1), xAt = s => plot.left + s / Math.max(1, data.total) * (plot.right - plot.left);
function text(words, attrs) { const t = el("text", {"font-size": 12, fill: "#444", ...attrs}); t.textContent = words; curve.append(t); }
function drawCurve() {
  const yAt = v => plot.bottom - v / most * (plot.bottom - plot.top);
  const points = costs.map((v, i) => xAt(steps[i]).toFixed(1) + "," + yAt(v).toFixed(1));
  for (const [x1, y1, x2, y2] of [[plot.left, plot.bottom, plot.right, plot.bottom], [plot.left, plot.top, plot.left, plot.bottom]])
    curve.append(el("line", {x1, y1, x2, y2, stroke: "#888"}));
  text("0", {x: plot.left - 5, y: plot.bottom + 4, "text-anchor": "end"});
  text(String(most), {x: plot.left - 5, y: plot.top + 8, "text-anchor": "end"});
  text("0", {x: plot.left, y: plot.bottom + 15, "text-anchor": "middle"});
  text(String(data.total), {x: plot.right, y: plot.bottom + 15, "text-anchor": "middle"});
  text("step", {x: (plot.left + plot.right) / 2, y: plot.bottom + 32, "text-anchor": "middle", class: "axis-label"});
  text("attacking pairs", {x: 0, y: 0, "text-anchor": "middle", class: "axis-label",
    transform: `translate(14 ${(plot.top + plot.bottom) / 2}) rotate(-90)`});
  curve.append(el("polyline", {points: points.join(" "), fill: "none", stroke: "#1f77b4", "stroke-width": 1.5}));
  curve.append(el("line", {id: "cursor", x1: plot.left, x2: plot.left, y1: plot.top, y2: plot.bottom, stroke: "ATTACKED"}));
}
function show(i) {
  current = Math.max(0, Math.min(frames.length - 1, i));
  drawBoard(frames[current]);
  slider.value = current;
  const x = xAt(steps[current]).toFixed(1);
  const cursor = document.getElementById("cursor"); cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
  const what = current === 0 ? " · " + data.start : current === frames.length - 1 ? " · the final board" : "";
  label.textContent = "step " + steps[current] + " of " + data.total + what + " · " + costs[current] + " attacking pairs";
}
function toggle() {
  if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
  if (current >= frames.length - 1) show(0);
  play.textContent = "pause";
  timer = setInterval(() => { if (current >= frames.length - 1) { toggle(); return; } show(current + 1); }, Number(speed.value));
}
slider.max = frames.length - 1;
slider.addEventListener("input", () => show(Number(slider.value)));
play.addEventListener("click", toggle);
document.getElementById("back").addEventListener("click", () => show(current - 1));
document.getElementById("forward").addEventListener("click", () => show(current + 1));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("last").addEventListener("click", () => show(frames.length - 1));
speed.addEventListener("change", () => { if (timer) { toggle(); toggle(); } });
document.addEventListener("keydown", e => { if (e.key === "ArrowRight") show(current + 1); if (e.key === "ArrowLeft") show(current - 1); if (e.key === " ") { e.preventDefault(); toggle(); } });
drawCurve();
const asked = location.hash.match(/step=(\\d+)/);  // run.html#step=12 opens at step 12 (or the last shown before it)
show(asked ? steps.findLastIndex(s => s <= Number(asked[1])) : 0);  // else at step 0, where the run starts
"""


def html_page(document: Mapping[str, Any], frames: list[list[int]], steps: list[int], total: int) -> str:
    script = PAGE_SCRIPT
    for name, colour in (
        ("BLOCKED", BLOCKED),
        ("DARK", DARK),
        ("LIGHT", LIGHT),
        ("QUEEN", QUEEN),
        ("ATTACKED", ATTACKED),
    ):
        script = script.replace(f'"{name}"', json.dumps(colour))
    data = {
        "n": document["n"],
        "frames": frames,
        "steps": steps,
        "total": total - 1,
        "start": start_label(document),
        "costs": [attacking_pairs(f) for f in frames],
        "blocked": document.get("blocked") or [],
        "fixed": document.get("fixed") or {},
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    left_out = "" if len(frames) == total else f" ({len(frames):,} of its {total:,} frames shown, evenly spaced)"
    cut = " The solver's trace was cut short at its event limit." if document.get("truncated") else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title_of(document))}</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }} button {{ margin-right: 0.3em; }}
#slider {{ width: 480px; }} svg {{ display: block; margin: 0.5em 0; }}</style></head><body>
<h1 style="font-size:1.3em">{escape(title_of(document))}</h1>
<p>{escape(str(document.get("iterations")))} iterations, {escape(str(document.get("moves")))} moves{escape(left_out)}.{escape(cut)}
Step 0 is {escape(start_label(document))}, where the search starts. Queens ringed red are attacked; the curve below the board is the
number of attacking pairs at each step.</p>
<div><button id="first">|&lt;</button><button id="back">&lt; step</button><button id="play">play</button>
<button id="forward">step &gt;</button><button id="last">&gt;|</button>
<label>speed <select id="speed"><option value="400">slow</option><option value="120" selected>normal</option>
<option value="20">fast</option></select></label></div>
<input id="slider" type="range" min="0" value="0" aria-label="step"><div id="label"></div>
<svg id="board" xmlns="http://www.w3.org/2000/svg" width="480" height="480" viewBox="0 0 480 480"></svg>
<svg id="curve" xmlns="http://www.w3.org/2000/svg" width="480" height="150" viewBox="0 0 480 150"
 role="img" aria-label="attacking pairs at each step" style="background:#fafafa"></svg>
<script type="application/json" id="trace-data">{payload}</script>
<script>{script}</script></body></html>
"""


def svg_animation(document: Mapping[str, Any], frames: list[list[int]], seconds_per_frame: float = 0.15) -> str:
    """Every frame a group shown for its moment (SMIL ``set``); the final board stays."""
    n = int(document["n"])
    size, cell = 480, 480 / n
    blocked = {(int(c), int(r)) for c, r in document.get("blocked") or []}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
        f"<title>{escape(title_of(document))}</title>",
    ]
    for row in range(n):
        for column in range(n):
            colour = BLOCKED if (column, row) in blocked else (LIGHT if (row + column) % 2 == 0 else DARK)
            parts.append(
                f'<rect x="{column * cell:.1f}" y="{row * cell:.1f}" width="{cell:.1f}" height="{cell:.1f}" fill="{colour}"/>'
            )
    for index, board in enumerate(frames):
        last = index == len(frames) - 1
        begin = f"{index * seconds_per_frame:.2f}s"
        timing = f'begin="{begin}" fill="freeze"' if last else f'begin="{begin}" dur="{seconds_per_frame:.2f}s"'
        parts.append(f'<g visibility="hidden"><set attributeName="visibility" to="visible" {timing}/>')
        hit = attacked_columns(board)
        for column, row in enumerate(board):
            if row < 0:
                continue
            x, y = (column + 0.5) * cell, (row + 0.5) * cell
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{cell * 0.32:.1f}" fill="{QUEEN}"/>')
            if column in hit:
                parts.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{cell * 0.45:.1f}" fill="none" stroke="{ATTACKED}" '
                    f'stroke-width="{max(cell * 0.08, 1.5):.1f}"/>'
                )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def gif(document: Mapping[str, Any], frames: list[list[int]], steps: list[int], output: Path) -> None:
    """The frames as a GIF, the cost curve below the board plotted against the step each frame shows."""
    from matplotlib import animation, patches

    from nqueens_plugins.views.plot import pyplot

    plt = pyplot()
    n = int(document["n"])
    costs = [attacking_pairs(board) for board in frames]
    figure, (board_axis, cost_axis) = plt.subplots(
        2, 1, figsize=(4.8, 6.2), gridspec_kw={"height_ratios": [4, 1]}, constrained_layout=True
    )
    blocked = {(int(c), int(r)) for c, r in document.get("blocked") or []}
    for row in range(n):
        for column in range(n):
            colour = BLOCKED if (column, row) in blocked else (LIGHT if (row + column) % 2 == 0 else DARK)
            board_axis.add_patch(patches.Rectangle((column, n - 1 - row), 1, 1, color=colour))
    board_axis.set(xlim=(0, n), ylim=(0, n), aspect="equal", xticks=[], yticks=[], title=title_of(document))
    board_axis.title.set_fontsize("small")
    queens_drawn = board_axis.scatter([], [], s=(240 / n) ** 2, c=QUEEN)
    rings = board_axis.scatter([], [], s=(330 / n) ** 2, facecolors="none", edgecolors=ATTACKED, linewidths=2)
    cost_axis.plot(steps, costs, color="#1f77b4")
    cursor = cost_axis.axvline(steps[0], color=ATTACKED)
    cost_axis.set(xlabel="step", ylabel="attacking pairs")

    def draw(index: int) -> Any:
        board = frames[index]
        hit = attacked_columns(board)
        points = [(c + 0.5, n - 1 - r + 0.5) for c, r in enumerate(board) if r >= 0]
        queens_drawn.set_offsets(points or [(-10, -10)])
        ringed = [(c + 0.5, n - 1 - r + 0.5) for c, r in enumerate(board) if r >= 0 and c in hit]
        rings.set_offsets(ringed or [(-10, -10)])
        cursor.set_xdata([steps[index], steps[index]])
        return queens_drawn, rings, cursor

    movie = animation.FuncAnimation(figure, draw, frames=len(frames), interval=120, blit=False)
    try:
        movie.save(str(output), writer=animation.PillowWriter(fps=8))
    except OSError as exc:
        raise BadInput(f"cannot write {str(output)!r}: {exc.strerror}") from None
    finally:
        plt.close(figure)
