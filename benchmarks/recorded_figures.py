"""The last recorded figures of ``instructions.py``, and the tables that quote them.

``recorded_figures.json`` holds one row per measure: holyclient's figure, the floor's own figure and
name, their ratio, the target, and the date and commit of the run that measured it. ``instructions.py``
writes a row each time it measures its workload and rewrites the quoted tables from the file, so README,
CONTRIBUTING and ``benchmarks/README.md`` quote only what a run produced; ``tests/test_recorded_figures.py``
fails when a quoted table and the file disagree (a ratio edited by hand, or a run not copied over).

A floor's cost moves between runs of the same code (a dependency upgrade, another interpreter), so a ratio
is only as good as the floor figure and the date beside it: both are printed with each.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded_figures.json"
ROOT = HERE.parent
#: Files that quote the recorded table, between these two markers (the lines between are generated).
QUOTING = (ROOT / "README.md", ROOT / "CONTRIBUTING.md", HERE / "README.md")
BEGIN = "<!-- recorded figures: benchmarks/recorded_figures.json (python benchmarks/instructions.py) -->"
END = "<!-- end of recorded figures -->"

#: Each row: what one unit is, the floor it is compared with, the target ratio, and its unit of measure.
ROWS: dict[str, dict[str, Any]] = {
    "sync": {"measures": "sync chat request", "floor_name": "raw httpx2", "target": 1.10},
    "stream": {"measures": "streamed chunk", "floor_name": "raw httpx2 SSE", "target": 1.10},
    "async": {"measures": "async chat request, one at a time", "floor_name": "raw aiohttp", "target": 1.30},
    "as_openai": {
        "measures": "`as_openai()` chat request",
        "floor_name": "plain `openai.OpenAI`",
        "target": 1.05,
    },
    "batch": {
        "measures": "`batch` request at 20,000 (start-up included)",
        "floor_name": "aiohttp loop writing each output line",
        "target": 1.40,
    },
    "memory": {
        "measures": "peak RSS after 2,000 sync chat requests",
        "floor_name": "raw httpx2 loop",
        "target": 1.30,
        "unit": "MiB",
    },
}


ABOUT = (
    "Written by benchmarks/instructions.py (never by hand): per row, holyclient's figure and its floor's, "
    "measured in the same run, their ratio, and the date and commit of that run. README.md, CONTRIBUTING.md "
    "and benchmarks/README.md quote these rows; tests/test_recorded_figures.py checks they match."
)


def load() -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads(RECORDED.read_text())
    return recorded


def row(workload: str, ours: float, floor: float, date: str, commit: str, command: str) -> dict[str, Any]:
    """One recorded row: the figures as measured, their ratio to three places, when and on what."""
    spec = ROWS[workload]
    unit = spec.get("unit", "instructions")
    rounded = round(ours, 1) if unit == "MiB" else round(ours)
    floor_rounded = round(floor, 1) if unit == "MiB" else round(floor)
    return {
        "measures": spec["measures"],
        "unit": unit,
        "holyclient": rounded,
        "floor": floor_rounded,
        "floor_name": spec["floor_name"],
        "ratio": round(rounded / floor_rounded, 3),
        "target": spec["target"],
        "date": date,
        "commit": commit,
        "command": command,
    }


def _figure(value: float, unit: str) -> str:
    return f"{value:,.1f} MiB" if unit == "MiB" else f"{value:,.0f}"


def table(recorded: dict[str, Any]) -> str:
    """The markdown table every quoting file carries, one line per recorded row, in ``ROWS`` order."""
    lines = [
        "| per unit | holyclient | floor (its own figure) | ratio | target | measured |",
        "|---|---|---|---|---|---|",
    ]
    rows = recorded["rows"]
    for name in ROWS:
        if name not in rows:
            continue
        r = rows[name]
        met = "" if r["ratio"] <= r["target"] else " (missed)"
        what = r["measures"] if r["unit"] == "MiB" else f"{r['measures']}, instructions"
        lines.append(
            f"| {what} | {_figure(r['holyclient'], r['unit'])} | {_figure(r['floor'], r['unit'])} "
            f"{r['floor_name']} | {r['ratio']:.3f}x | ≤ {r['target']:.2f}x{met} | {r['date']}, `{r['commit']}` |"
        )
    return "\n".join(lines)


_BLOCK = re.compile(re.escape(BEGIN) + r"\n(.*?)\n?" + re.escape(END), re.DOTALL)


def quoted(text: str) -> str | None:
    """The generated table between the markers of ``text``, or None when it has none."""
    found = _BLOCK.search(text)
    return None if found is None else found.group(1)


def requote(recorded: dict[str, Any]) -> list[Path]:
    """Rewrite the table in every quoting file from ``recorded``; the files changed."""
    changed = []
    fresh = table(recorded)
    for path in QUOTING:
        text = path.read_text()
        if quoted(text) is None:
            raise ValueError(f"{path} has no {BEGIN!r} ... {END!r} block to rewrite")
        new = _BLOCK.sub(lambda _: f"{BEGIN}\n{fresh}\n{END}", text)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def record(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Merge freshly measured ``rows`` into the recorded file (rows not measured keep their run's)."""
    recorded = load() if RECORDED.exists() else {"rows": {}}
    recorded["about"] = ABOUT
    recorded["rows"].update(rows)
    recorded["rows"] = {name: recorded["rows"][name] for name in ROWS if name in recorded["rows"]}
    RECORDED.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
    return recorded
