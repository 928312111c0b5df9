"""The local window at its edges, on a hand-moved clock: real usage corrected at or past the moment its
request leaves the window (issue 34: comparisons whose mutants differ only when a clock reading equals
a threshold, and a correction that freed budget it never took)."""

from __future__ import annotations

from holyclient.ratelimit import RateLimiter
from holyclient.ratelimit._window import WINDOW_MARGIN, WINDOW_SLACK_SECONDS


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _admits_exactly(window: RateLimiter, count: int, units: float) -> None:
    """``count`` requests of ``units`` fit in the window now, and the next one waits for the window."""
    for _ in range(count):
        assert window.delay_for(units) == 0
        window.take(units)
    assert window.delay_for(units) > window.window  # the window's wait, not the bucket's few seconds


def test_usage_corrected_long_after_its_request_left_the_window_frees_no_budget() -> None:
    clock = Clock(0.0)
    window = RateLimiter(100, 60, burst_seconds=60, clock=clock)
    old = window.take(10)
    clock.now = 200.0  # an answer that took 200 s (a long stream); nothing looked at the window meanwhile
    window.correct(old, 90)
    clock.now = 300.0
    _admits_exactly(window, 10, 10)  # before the fix: 18, the window "gave back" 90 of the 10 it held


def test_usage_corrected_the_moment_its_request_leaves_the_window_is_not_counted_in_it() -> None:
    # _horizon's own arithmetic, so the admission sits exactly on the edge when the clock reads 1000
    admitted_at = 1000.0 - 60 * (1.0 + WINDOW_MARGIN) - WINDOW_SLACK_SECONDS
    clock = Clock(admitted_at)
    window = RateLimiter(100, 60, burst_seconds=60, clock=clock)
    handle = window.take(10)
    clock.now = 1000.0  # on the edge: out of the window (an event at the horizon is pruned)
    window.correct(handle, 90)
    clock.now = 1100.0  # the bucket has refilled: only the window decides
    _admits_exactly(window, 10, 10)  # neither 80 phantom units kept (3 fit) nor 80 given back (18 fit)
