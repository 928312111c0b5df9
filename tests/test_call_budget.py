"""The request path's cost stays within its committed budget of Python function calls.

A clock cannot gate CI on a shared machine; a call count can. ``benchmarks/call_counts.py`` counts the
Python calls of one sync chat request, one async chat request, one streamed chunk and one batch
request (the runner's fast path) against the local server, and ``benchmarks/call_budget.json`` holds
the figure each may reach, with the reason it was set. A count more than the budget's tolerance (10%)
over its figure fails here; raising a figure is a reviewed change to that file (see CONTRIBUTING,
"Benchmarks").

The counts run in a fresh interpreter so that nothing another test left behind (a logging handler, a
patched module, a warm cache) can move them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hermetic import leaky_variables

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from call_counts import GATED, count_calls, load_budget, over_budget  # noqa: E402


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    """Every gated figure, counted by ``call_counts.py`` in a child process against a LocalServer thread."""
    env = {k: v for k, v in os.environ.items() if k not in leaky_variables(os.environ)}
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "call_counts.py"), "--json", "--figures", *GATED],
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
        check=False,
    )
    assert out.stdout, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout)
    return result


@pytest.mark.slow
def test_every_request_path_stays_within_its_call_budget(measured: dict[str, Any]) -> None:
    problems = over_budget(measured["figures"], load_budget())
    assert not problems, (
        "Python calls per request grew past benchmarks/call_budget.json:\n"
        + "\n".join(problems)
        + f"\nmeasured with {measured['versions']}; budget measured with {load_budget()['measured_with']}"
    )


@pytest.mark.slow
def test_the_batch_and_async_figures_are_counted_on_the_direct_wire(measured: dict[str, Any]) -> None:
    # the async pipeline's DirectWire sends on the client's aiohttp session: no httpx2 call at all
    batch, chat = measured["figures"]["batch_request"], measured["figures"]["async_chat"]
    assert batch["by_package"].get("aiohttp", 0) > 0 and "httpx2" not in batch["by_package"]
    assert chat["by_package"].get("aiohttp", 0) > 0 and "httpx2" not in chat["by_package"]


def test_a_count_more_than_the_tolerance_over_its_budget_fails_the_check() -> None:
    budget = {
        "tolerance": 0.1,
        "figures": {"sync_chat": {"calls": 1000, "by_package": {"httpx2": 600, "holyclient._send": 400}}},
    }

    def figures(calls: int, send: int) -> dict[str, Any]:
        return {"sync_chat": {"calls": calls, "by_package": {"httpx2": 600, "holyclient._send": send}}}

    assert over_budget(figures(1100, 500), budget) == []
    (problem,) = over_budget(figures(1101, 501), budget)
    assert problem.startswith("sync_chat: 1101 calls, budget 1000 (+10.1%")
    assert "holyclient._send +101 (400 -> 501)" in problem and "httpx2" not in problem.split("grew:")[1]


def test_a_budgeted_figure_that_was_not_measured_fails_the_check() -> None:
    budget = {"tolerance": 0.1, "figures": {"sync_chat": {"calls": 1000}, "stream_chunk": {"calls": 50}}}
    assert over_budget({"sync_chat": {"calls": 900, "by_package": {}}}, budget) == [
        "stream_chunk: not measured"
    ]


def test_the_budget_covers_every_gated_figure_each_with_its_reason() -> None:
    budget = load_budget()
    assert budget["tolerance"] == 0.1
    assert set(budget["figures"]) == set(GATED)
    for name, entry in budget["figures"].items():
        assert entry["calls"] > 0 and len(entry["reason"]) > 20, name
        assert sum(entry["by_package"].values()) == pytest.approx(entry["calls"], abs=1), name


def test_only_the_calling_threads_calls_are_counted() -> None:
    def calls(n: int) -> None:
        for _ in range(n):
            json.dumps(None)  # Python functions of the json package

    one = count_calls(lambda: json.dumps(None))["json"]
    in_thread = count_calls(lambda: calls(1000))

    def in_another_thread() -> None:
        other = threading.Thread(target=calls, args=(1000,))
        other.start()
        other.join()

    elsewhere = count_calls(in_another_thread)
    assert one > 0 and in_thread["json"] == 1000 * one
    assert "json" not in elsewhere  # the server's thread is another thread: never counted
