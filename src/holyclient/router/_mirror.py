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
"""

from __future__ import annotations

import os
import random
import threading
from typing import TYPE_CHECKING, Any

from .._core import to_jsonable
from .._exceptions import APIStatusError
from .._send import JsonlSink, batch_line, replayable

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ._target import Target

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
        self.sent = 0
        self.dropped = 0

    def wants(self, options: RequestOptions) -> bool:
        """Whether to copy this request (replayable, not streamed, drawn into the sample)."""
        return replayable(options) and not options.stream and self._rng.random() < self.rate

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

    def write(
        self, custom_id: str, options: RequestOptions, old: dict[str, Any], new: dict[str, Any]
    ) -> None:
        self._sink.write({**batch_line(custom_id, options), "old": old, "new": new})
