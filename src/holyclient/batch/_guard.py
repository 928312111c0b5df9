"""What keeps a batch run honest about failure: slot ownership, the early stop, unwrapped errors.

* :class:`SlotHold` -- one request's claim on a concurrency slot, released exactly once whatever
  happens to the request (so the catch-all around a request cannot leak a slot).
* :class:`StopBreaker` -- stops a doomed run early: a short run of attempts failing the same hopeless
  way (key refused, endpoint missing, server unreachable) means every other request will fail too, and
  sending them all costs time and, on some servers, money. The failed results of the streak are held
  back and dropped when it trips, so the output stays resumable: a rerun with the right key sends them.
* :func:`unwrapped` -- a task group wraps an exception raised by the caller's own code in an
  ExceptionGroup; re-raise it as itself so that ``except ValueError`` still works.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .._exceptions import APIConnectionError, APIStatusError, APITimeoutError
from ..ratelimit import Clock
from ._concurrency import Slots
from ._types import BatchResult

#: Attempts in a row failing the same hopeless way that stop a ``holyclient batch`` run.
DEFAULT_STOP_AFTER = 5
#: Once a request has succeeded, connection failures must last this long before the run is stopped:
#: a server restarting mid-run is a blip to ride out with retries, not a reason to stop.
CONNECTION_GRACE_SECONDS = 30.0

_HOPELESS = {
    401: "HTTP 401: the API key was refused (check HOLYSHEEP_API_KEY)",
    403: "HTTP 403: permission denied for this API key",
    404: "HTTP 404: not found (check the base URL and the model names)",
}
_CONNECTION = "connection"


class BatchStoppedError(Exception):
    """The run was stopped early because every attempt failed the same way; nothing more was sent."""


def _failure_kind(failure: BaseException | None) -> str | None:
    if isinstance(failure, APIStatusError) and failure.status_code in _HOPELESS:
        return f"HTTP {failure.status_code}"
    if isinstance(failure, APIConnectionError) and not isinstance(failure, APITimeoutError):
        return _CONNECTION
    return None


def _result_kind(result: BatchResult) -> str | None:
    if result.status_code in _HOPELESS:
        return f"HTTP {result.status_code}"
    if (
        result.status_code is None
        and result.error is not None
        and result.error.get("code") == "connection_error"
    ):
        return _CONNECTION
    return None


def _describe(kind: str) -> str:
    if kind == _CONNECTION:
        return "could not connect to the server (check the base URL and the network)"
    return _HOPELESS[int(kind.split()[1])]


class StopBreaker:
    """Counts attempts in a row that failed the same hopeless way; trips at ``limit`` (``None``: never)."""

    def __init__(self, limit: int | None, clock: Clock) -> None:
        self.limit = limit
        self.reason: str | None = None
        self._clock = clock
        self._kind: str | None = None
        self._streak = 0
        self._since = 0.0
        self._succeeded = False
        self._held: list[BatchResult] = []

    @property
    def tripped(self) -> bool:
        return self.reason is not None

    def on_attempt(self, failure: BaseException | None) -> None:
        """Feed one finished attempt (``None``: it succeeded)."""
        if self.limit is None or self.reason is not None:
            return
        if failure is None and self._kind is None:  # a success after successes: nothing changes
            self._succeeded = True
            return
        self._succeeded = self._succeeded or failure is None
        kind = _failure_kind(failure)
        if kind != self._kind:
            self._kind, self._streak, self._since = kind, 0, self._clock()
        if kind is None:
            return
        self._streak += 1
        if self._streak < self.limit:
            return
        if kind == _CONNECTION and self._succeeded and self._clock() - self._since < CONNECTION_GRACE_SECONDS:
            return
        self.reason = f"stopped after {self._streak} attempts in a row failed: {_describe(kind)}"

    def hold(self, result: BatchResult) -> bool:
        """Keep back a failure of the current streak; ``True`` when it is kept (or, once the streak has
        stopped the run, dropped). Any other result is to be delivered."""
        if self.limit is None or self._kind is None:  # no streak going on: nothing is held back
            return False
        kind = _result_kind(result)
        if kind is None or kind != self._kind:
            return False
        if self.reason is None:
            self._held.append(result)
        return True

    def flush(self) -> list[BatchResult]:
        """The held results, to deliver now that the streak was broken (none once it stopped the run)."""
        if not self._held:
            return []
        held, self._held = self._held, []
        return [] if self.reason is not None else held


class SlotHold:
    """One request's concurrency slot: acquired at most once at a time, released exactly once."""

    def __init__(self, slots: Slots, held: bool) -> None:
        self._slots = slots
        self.held = held

    async def acquire(self) -> None:
        if not self.held:
            await self._slots.acquire(priority=True)
            self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self._slots.release()


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        found += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return found


@contextmanager
def unwrapped() -> Iterator[None]:
    """Re-raise a task group's ExceptionGroup as its first exception.

    Several tasks may fail at once the same way (``on_result`` raising for two results in a row); the
    first is the one to handle, the others are named in a note.
    """
    first: BaseException | None = None
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        first = leaves[0]
        if len(leaves) > 1 and hasattr(first, "add_note"):
            others = ", ".join(f"{type(exc).__name__}: {exc}" for exc in leaves[1:4])
            first.add_note(f"({len(leaves) - 1} more raised at the same time: {others})")
    if first is not None:
        raise first
