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
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import replay
from nqueens_plugins.formats.drawing import ATTACKED, BLOCKED, DARK, LIGHT, QUEEN, attacked_columns, attacking_pairs

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
        "events": [list(event) for event in trace.events],
    }


def write_trace(result: Any, path: Path) -> None:
    try:
        path.write_text(json.dumps(trace_document(result), default=int) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot write trace {str(path)!r}: {exc.strerror}") from None


def read_trace(path: Path) -> dict[str, Any]:
    if path.exists() and not path.is_file():
        raise BadInput(f"{str(path)!r} is not a regular file")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"trace {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"{str(path)!r} is not a trace file ({type(exc).__name__})") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or not isinstance(document.get("events"), list)
    ):
        raise BadInput(f"{str(path)!r} is not a trace file (written by nqueens solve --trace)")
    return document


def frames_of(document: Mapping[str, Any]) -> list[list[int]]:
    """The board before any step, then after each step."""
    n = int(document["n"])
    fixed = {int(c): int(r) for c, r in (document.get("fixed") or {}).items()}
    start = [-1] * n
    for column, row in fixed.items():
        start[column] = row
    try:
        return [start, *replay(n, document["events"], fixed)]
    except (ValueError, IndexError, TypeError, KeyError) as exc:
        raise BadInput(f"the trace's events cannot be replayed: {exc}") from None


def sample(count: int, limit: int) -> list[int]:
    """At most ``limit`` frame indices, evenly spaced, the first and last always in."""
    if count <= limit:
        return list(range(count))
    return sorted({round(i * (count - 1) / (limit - 1)) for i in range(limit)})


def animate(document: Mapping[str, Any], output: Path) -> int:
    """Write the animation; returns the number of frames shown."""
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
        gif(document, [frames[i] for i in chosen], output)
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

    @property
    def frames(self) -> int:
        """Boards in the run: the one before any step, then one after each step."""
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
function drawCurve() {
  const w = 480, h = 120, top = Math.max(1, ...costs), last = Math.max(1, costs.length - 1);
  const points = costs.map((v, i) => (i / last * w).toFixed(1) + "," + (h - v / top * (h - 10) - 5).toFixed(1));
  curve.append(el("polyline", {points: points.join(" "), fill: "none", stroke: "#1f77b4", "stroke-width": 1.5}));
  curve.append(el("line", {id: "cursor", x1: 0, x2: 0, y1: 0, y2: h, stroke: "ATTACKED"}));
}
function show(i) {
  current = Math.max(0, Math.min(frames.length - 1, i));
  drawBoard(frames[current]);
  slider.value = current;
  const x = (current / Math.max(1, frames.length - 1) * 480).toFixed(1);
  const cursor = document.getElementById("cursor"); cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
  label.textContent = "step " + steps[current] + " of " + data.total + " · cost " + costs[current];
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
const asked = location.hash.match(/step=(\\d+)/);  // run.html#step=12 opens at that frame
show(asked ? Number(asked[1]) : 0);
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
Queens ringed red are attacked; the curve is the number of attacking pairs at each step.</p>
<div><button id="first">|&lt;</button><button id="back">&lt; step</button><button id="play">play</button>
<button id="forward">step &gt;</button><button id="last">&gt;|</button>
<label>speed <select id="speed"><option value="400">slow</option><option value="120" selected>normal</option>
<option value="20">fast</option></select></label></div>
<input id="slider" type="range" min="0" value="0" aria-label="step"><div id="label"></div>
<svg id="board" xmlns="http://www.w3.org/2000/svg" width="480" height="480" viewBox="0 0 480 480"></svg>
<svg id="curve" xmlns="http://www.w3.org/2000/svg" width="480" height="120" viewBox="0 0 480 120"
 style="background:#fafafa"></svg>
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


def gif(document: Mapping[str, Any], frames: list[list[int]], output: Path) -> None:
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
    cost_axis.plot(range(len(costs)), costs, color="#1f77b4")
    cursor = cost_axis.axvline(0, color=ATTACKED)
    cost_axis.set(xlabel="frame", ylabel="attacking pairs")

    def draw(index: int) -> Any:
        board = frames[index]
        hit = attacked_columns(board)
        points = [(c + 0.5, n - 1 - r + 0.5) for c, r in enumerate(board) if r >= 0]
        queens_drawn.set_offsets(points or [(-10, -10)])
        ringed = [(c + 0.5, n - 1 - r + 0.5) for c, r in enumerate(board) if r >= 0 and c in hit]
        rings.set_offsets(ringed or [(-10, -10)])
        cursor.set_xdata([index, index])
        return queens_drawn, rings, cursor

    movie = animation.FuncAnimation(figure, draw, frames=len(frames), interval=120, blit=False)
    try:
        movie.save(str(output), writer=animation.PillowWriter(fps=8))
    except OSError as exc:
        raise BadInput(f"cannot write {str(output)!r}: {exc.strerror}") from None
    finally:
        plt.close(figure)
