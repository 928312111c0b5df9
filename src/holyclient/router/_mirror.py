"""Shadow traffic: a fraction of requests is also sent to a shadow target, in the background.

The caller's request is answered by the router as usual; a copy goes to the shadow target afterwards,
on a background thread (sync router) or task (async router). At most ``concurrency`` copies are in
flight: when all slots are taken the copy is **dropped**, never queued, so a slow or hanging shadow
can neither delay nor fail the caller, nor pile up memory. Only replayable, non-streamed requests are
copied (chat, completions, responses, embeddings, moderations).

Each pair is appended to ``mirror_to`` as one JSON line that is also a Batch API input line, so the
file can be replayed by ``holyclient compare`` as it is::

    {"custom_id": "mirror-1a2b3c4d-1", "method": "POST", "url": "/v1/chat/completions",
     "body": {...the caller's request...},
     "old": {"target": "api.openai.com", "status": 200, "error": null, "latency_s": 0.41, "body": {...}},
     "new": {"target": "api.holysheep.ai", "status": 200, "error": null, "latency_s": 0.37, "body": {...}}}

``old`` is the answer the caller got, ``new`` the shadow's; ``body`` is the response body (``null``
when the side failed, ``error`` then says why). Headers and keys are never written.

Shadow copies are paid for like any request: each goes through the shadow target's own client, so it is
charged to that target's usage (``router.target_usage(shadow)``, ``router.stats()[shadow].cost_usd``) and
to the router's total, and is refused before sending, like the caller's requests, when the router's
``budget_usd`` (or the shadow's own ``Target(budget_usd=...)``) cannot cover it -- a refused copy is not
sent and leaves no pair (``mirror_refused``).

A pair that cannot be kept is not worth paying for: when ``mirror_to`` cannot be written (a missing or
read-only directory, a full disk) or holds its ``limit`` of pairs, the mirror warns once on the
``holyclient`` logger and in the router's ``usage.snapshot().warnings``, and **stops**: no further copy
is sent to the shadow. Copies already in flight still try to write their pair; those that cannot are
counted as ``mirror_lost`` (the shadow was called, the pair is gone). ``mirrored`` counts pairs written.
"""

from __future__ import annotations

import logging
import os
import random
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._constants import LOGGER_NAME
from .._core import to_jsonable
from .._exceptions import APIStatusError
from .._send import JsonlSink, batch_line, replayable

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..pricing import UsageTracker
    from ._target import Target

logger = logging.getLogger(LOGGER_NAME)

#: The most pairs one mirror writes; it stops (and says so) once its file holds them.
DEFAULT_MIRROR_MAX = 100_000


def side(
    target: str, latency: float, result: Any = None, error: BaseException | None = None
) -> dict[str, Any]:
    """One side of a pair: who answered, how, how fast, and the response body."""
    if error is not None:
        status = error.status_code if isinstance(error, APIStatusError) else None
        message = f"{type(error).__name__}: {error}"
        return {"target": target, "status": status, "error": message, "latency_s": latency, "body": None}
    return {"target": target, "status": 200, "error": None, "latency_s": latency, "body": to_jsonable(result)}


class Mirror:
    """The shadow target, the sampling rate, the concurrency slots and the pairs file.

    Args:
        shadow: the target that receives the copies.
        rate: the fraction of requests copied, from 0 to 1.
        path: the JSONL file the pairs are appended to.
        concurrency: the most copies in flight; more are dropped.
        limit: the most pairs written; the mirror stops once the file holds them.
        rng: the random source (tests pass a seeded one).
    """

    def __init__(
        self,
        shadow: Target,
        rate: float,
        path: str | os.PathLike[str],
        concurrency: int,  # no default here: the router's ``mirror_concurrency`` holds it
        *,
        limit: int = DEFAULT_MIRROR_MAX,
        rng: random.Random | None = None,
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"mirror must be a fraction between 0 and 1, got {rate!r}")
        if concurrency < 1:
            raise ValueError(f"mirror_concurrency must be at least 1, got {concurrency}")
        self.shadow = shadow
        self.rate = rate
        self.concurrency = concurrency
        self._sink = JsonlSink(path, limit)
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._count = 0
        self._prefix = f"mirror-{os.urandom(4).hex()}-"
        #: Copies that got a slot (each ends kept, lost, refused, or dropped because mirroring stopped).
        self.sent = 0
        #: Copies not sent: every slot was taken, or mirroring had stopped.
        self.dropped = 0
        #: Pairs written to the file.
        self.kept = 0
        #: Copies the shadow answered (and may have billed) whose pair could not be written.
        self.lost = 0
        #: Copies the budget refused before sending (nothing sent, no pair).
        self.refused = 0
        #: Why mirroring stopped (the file failed or is full), or None while it runs.
        self.stopped: str | None = None
        #: Where the mirror says it stopped, or that the budget refuses copies (the router's usage).
        self.tracker: UsageTracker | None = None
        self._refusal_said = False

    @property
    def path(self) -> Path:
        return self._sink.path

    def wants(self, options: RequestOptions) -> bool:
        """Whether to copy this request (mirroring runs, replayable, not streamed, drawn into the sample)."""
        return (
            self.stopped is None
            and replayable(options)
            and not options.stream
            and self._rng.random() < self.rate
        )

    def acquire(self) -> str | None:
        """A slot for one copy (its ``custom_id``), or None when all are taken (the copy is dropped)."""
        with self._lock:
            if self._in_flight >= self.concurrency:
                self.dropped += 1
                return None
            self._in_flight += 1
            self._count += 1
            self.sent += 1
            return f"{self._prefix}{self._count}"

    def release(self) -> None:
        with self._lock:
            self._in_flight -= 1

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    def skip(self) -> bool:
        """Whether a copy holding a slot should not be sent after all (mirroring stopped meanwhile);
        counted as dropped."""
        with self._lock:
            if self.stopped is None:
                return False
            self.dropped += 1
            return True

    def refuse(self, error: BaseException) -> None:
        """A copy the budget refused (nothing sent): counted, and said once."""
        with self._lock:
            self.refused += 1
            said, self._refusal_said = self._refusal_said, True
        if not said:
            self._say(
                f"mirror copies to {self.shadow.name} are refused by the budget and not sent "
                f"(router.stats()[{self.shadow.name!r}].mirror_refused counts them): {error}"
            )

    def answered(
        self,
        custom_id: str,
        options: RequestOptions,
        old: dict[str, Any],
        latency: float,
        result: Any = None,
        error: BaseException | None = None,
    ) -> bool:
        """Keep the pair of a copy the shadow answered with ``result`` (or failed with ``error``)."""
        return self.write(custom_id, options, old, side(self.shadow.name, latency, result, error))

    def write(
        self, custom_id: str, options: RequestOptions, old: dict[str, Any], new: dict[str, Any]
    ) -> bool:
        """Keep one pair; never raises. False when it could not be written (the copy is lost); the
        first failure, or the file reaching its limit, stops the mirror."""
        try:
            written = self._sink.write({**batch_line(custom_id, options), "old": old, "new": new})
        except Exception as exc:  # the file failed: a pair is never worth a traceback, nor more shadow calls
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            self._lose(reason)
            return False
        if not written:  # already full (a copy that was in flight when it filled up)
            self._lose(f"it holds {self._sink.limit} pairs, the most one mirror writes")
            return False
        with self._lock:
            self.kept += 1
        if self._sink.written >= self._sink.limit:
            self._stop(f"it holds {self._sink.limit} pairs, the most one mirror writes")
        return True

    def _lose(self, reason: str) -> None:
        with self._lock:
            self.lost += 1
        self._stop(reason)

    def _stop(self, reason: str) -> None:
        with self._lock:
            if self.stopped is not None:
                return
            self.stopped = (
                f"mirroring to {self.path} stopped: {reason}; no more copies are sent to {self.shadow.name}"
            )
        self._say(self.stopped)

    def _say(self, text: str) -> None:
        logger.warning("holyclient: %s", text)
        if self.tracker is not None:
            self.tracker.warn(text)
