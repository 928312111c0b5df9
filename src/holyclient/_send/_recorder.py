"""``Client(record_to="sample.jsonl", record_rate=0.01)``: a sample of live requests, for ``holyclient compare``.

Each sampled request is appended as one Batch API input line, ``{"custom_id", "method", "url",
"body"}`` (``url`` as the Batch API writes it, ``/v1/chat/completions``), the format ``holyclient
batch`` and ``holyclient compare`` read. Only the JSON body is written: never a header, so never a key
or ``Authorization``, and never the query string. Only the endpoints ``compare`` replays are recorded
(:data:`REPLAYABLE_PATHS`: chat, completions, responses, embeddings, moderations); uploads and reads
never are.

Writes append under a lock (threads and asyncio tasks may share a client) and stop after
``record_max`` lines per recorder, so a forgotten recorder cannot fill a disk.

Recording never fails a live request: when the file cannot be written (a missing directory, a full
disk, a read-only file) the recorder warns once on the ``holyclient`` logger, stops, and says so in the
client's ``usage.snapshot().warnings``. A write that fails part-way is cut back to the last full line,
so the file never holds a torn line for the next record to be glued onto (as ``batch``'s
``OutputWriter`` does).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._constants import LOGGER_NAME

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..pricing import UsageTracker

logger = logging.getLogger(LOGGER_NAME)

__all__ = ["REPLAYABLE_PATHS", "JsonlSink", "Recorder", "batch_line"]

#: Endpoints whose requests can be replayed (by ``compare``) or mirrored to a shadow target.
REPLAYABLE_PATHS = frozenset(
    {"/chat/completions", "/completions", "/responses", "/embeddings", "/moderations"}
)

DEFAULT_RECORD_MAX = 10_000


def replayable(options: RequestOptions) -> bool:
    return options.method == "POST" and options.body is not None and options.path in REPLAYABLE_PATHS


def batch_line(custom_id: str, options: RequestOptions) -> dict[str, Any]:
    """The Batch API input line for ``options`` (its body only: no header, no key)."""
    return {"custom_id": custom_id, "method": "POST", "url": "/v1" + options.path, "body": options.body}


class JsonlSink:
    """Appends JSON lines to a file under a lock, at most ``limit`` of them; ``written`` counts them."""

    def __init__(self, path: str | os.PathLike[str], limit: int) -> None:
        if limit < 0:
            raise ValueError(f"the line limit must not be negative, got {limit}")
        self.path = Path(path)
        self.limit = limit
        self.written = 0
        self._lock = threading.Lock()

    def write(self, record: Mapping[str, Any]) -> bool:
        """Append ``record``; False (nothing written) once the limit is reached.

        Raises:
            OSError: the line could not be written; the file is cut back to its last full line.
        """
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode()
        with self._lock:
            if self.written >= self.limit:
                return False
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                good = os.fstat(fd).st_size
                try:
                    view = memoryview(line)
                    while view:
                        view = view[os.write(fd, view) :]
                except OSError:
                    # a short write left part of a line: cut it, or the next line is glued onto it
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, good)
                    raise
            finally:
                os.close(fd)
            self.written += 1
            return True


class Recorder:
    """Writes a random sample of a client's replayable requests as Batch API input lines.

    Args:
        path: the JSONL file to append to.
        rate: the fraction of requests recorded, from 0 to 1.
        limit: the most lines this recorder writes.
        rng: the random source (tests pass a seeded one).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        rate: float = 1.0,
        *,
        limit: int = DEFAULT_RECORD_MAX,
        rng: random.Random | None = None,
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"record_rate must be between 0 and 1, got {rate!r}")
        self.rate = rate
        self._sink = JsonlSink(path, limit)
        self._rng = rng or random.Random()
        self._prefix = f"rec-{os.urandom(4).hex()}-"  # unique across runs appending to the same file
        self._count = 0
        self._lock = threading.Lock()
        self.stopped: str | None = None  # why recording stopped (a write failed), or None

    @property
    def path(self) -> Path:
        return self._sink.path

    def observe(self, options: RequestOptions, tracker: UsageTracker | None = None) -> None:
        """Record ``options`` if it is replayable and drawn into the sample; never raises.

        Args:
            tracker: where to say that recording stopped (the client's usage tracker).
        """
        if self.stopped is not None or not replayable(options):
            return
        if self._rng.random() >= self.rate:
            return
        with self._lock:
            self._count += 1
            custom_id = f"{self._prefix}{self._count}"
        try:
            self._sink.write(batch_line(custom_id, options))
        except Exception as exc:  # a sample is never worth a failed request
            self._stop(exc, tracker)

    def _stop(self, exc: Exception, tracker: UsageTracker | None) -> None:
        with self._lock:
            if self.stopped is not None:
                return
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            self.stopped = f"recording to {self.path} stopped: {reason}"
        logger.warning("holyclient: %s", self.stopped)
        if tracker is not None:
            tracker.warn(self.stopped)


def make_recorder(record_to: str | os.PathLike[str] | None, record_rate: float) -> Recorder | None:
    return None if record_to is None else Recorder(record_to, record_rate)
