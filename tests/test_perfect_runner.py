"""The perfect-runner simulation that ``benchmarks/bench_batch.py`` compares with: it matches the arithmetic."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from perfect_runner import parse_weights, simulate

COMMON = {"concurrency": 64, "latency": 0.2, "timeout": 1.0}


def test_without_faults_every_slot_is_busy_until_the_end() -> None:
    assert simulate(6400, fault_rate=0.0, weights={"500": 1}, **COMMON) == pytest.approx(1.0)


def test_hangs_hold_their_slot_until_the_timeout() -> None:
    # per request: 0.2 s of success plus 0.25 hangs of 1 s each -> 0.2 / 0.45 of ideal
    ratio = simulate(20_000, fault_rate=0.2, weights={"hang": 1}, **COMMON)
    assert ratio == pytest.approx(0.2 / 0.45, rel=0.02)


def test_retry_after_waits_hold_no_slot_but_leave_a_tail() -> None:
    ratio = simulate(20_000, fault_rate=0.2, weights={"429": 1}, **COMMON)
    assert 0.95 < ratio < 1.0  # only the end waits: the last requests' Retry-After (a few seconds of 62)


def test_weights_read_like_the_servers_faults_option() -> None:
    assert parse_weights("429=3, 500,drop") == {"429": 3.0, "500": 1.0, "drop": 1.0}
