"""The performance figures README, CONTRIBUTING and benchmarks/ quote are the last recorded run's.

``benchmarks/instructions.py`` writes each measured row to ``benchmarks/recorded_figures.json`` and
rewrites the tables that quote it; a ratio edited by hand, a table not rewritten after a run, or a
stale instruction ratio left in the prose (a ratio whose floor has since moved) fails here. Nothing is
measured: valgrind is not needed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from recorded_figures import BEGIN, END, QUOTING, ROWS, load, quoted, table  # noqa: E402

#: An instruction ratio as instructions.py prints it (three decimals), e.g. "1.061x", and the floors of the
#: table rows that quote one (a line that says "instructions" is one too).
INSTRUCTION_RATIO = re.compile(r"\b\d\.\d{3}x\b")
FLOOR_WORDS = ("raw httpx2", "raw aiohttp", "plain `openai")


def _name(path: Path) -> str:
    return str(path.relative_to(BENCHMARKS.parent))


@pytest.mark.parametrize("path", QUOTING, ids=_name)
def test_each_quoting_file_carries_the_recorded_table_as_the_last_run_wrote_it(path: Path) -> None:
    found = quoted(path.read_text())
    assert found is not None, f"{path} has no recorded-figures block ({BEGIN} ... {END})"
    assert found == table(load()), (
        f"{path}'s table differs from benchmarks/recorded_figures.json: rerun "
        "`python benchmarks/instructions.py WORKLOAD` (it rewrites the tables), never edit them by hand"
    )


def test_every_row_of_the_issue_is_recorded_with_its_floors_own_figure_date_and_commit() -> None:
    rows = load()["rows"]
    assert set(rows) == set(ROWS)
    for name, row in rows.items():
        assert row["floor"] > 0 and row["holyclient"] > 0, name
        assert row["floor_name"] == ROWS[name]["floor_name"], name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"]), name
        assert re.fullmatch(r"[0-9a-f]{7,40}(\+changes)?", row["commit"]), name


def test_each_recorded_ratio_is_its_holyclient_figure_over_its_floors() -> None:
    for name, row in load()["rows"].items():
        assert row["ratio"] == round(row["holyclient"] / row["floor"], 3), name


@pytest.mark.parametrize("path", QUOTING, ids=_name)
def test_no_instruction_ratio_is_quoted_outside_the_recorded_table(path: Path) -> None:
    text = path.read_text()
    outside = text.replace(quoted(text) or "", "")
    stale = [
        line
        for line in outside.splitlines()
        if INSTRUCTION_RATIO.search(line)
        and ("instructions" in line or (line.startswith("|") and any(floor in line for floor in FLOOR_WORDS)))
    ]
    assert not stale, f"{path} quotes instruction ratios outside the recorded table: {stale}"
