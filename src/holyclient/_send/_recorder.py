"""``Client(record_to="sample.jsonl", record_rate=0.01)``: a sample of live requests, for ``holyclient compare``.

Each sampled request is appended as one Batch API input line, ``{"custom_id", "method", "url",
"body"}`` (``url`` as the Batch API writes it, ``/v1/chat/completions``), the format ``holyclient
batch`` and ``holyclient compare`` read. Only the JSON body is written: never a header, so never a key
or ``Authorization``, and never the query string. Only the endpoints the batch reader accepts are
recorded (today ``/v1/chat/completions``; the recorder follows that list, so a sample never holds a line
``compare`` would refuse); uploads and reads never are.

Writes append under a lock (threads and asyncio tasks may share a client) and stop after
``record_max`` lines per recorder, so a forgotten recorder cannot fill a disk.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._core._request import RequestOptions

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
        """Append ``record``; False (nothing written) once the limit is reached."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            if self.written >= self.limit:
                return False
            with self.path.open("a", encoding="utf-8") as file:
                file.write(line)
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
        from .._constants import CHAT_COMPLETIONS_URL

        self._urls = (CHAT_COMPLETIONS_URL,)  # what ``holyclient compare`` replays
        self._count = 0
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._sink.path

    def observe(self, options: RequestOptions) -> None:
        """Record ``options`` if it is replayable and drawn into the sample."""
        if not replayable(options) or "/v1" + options.path not in self._urls:
            return
        if self._rng.random() >= self.rate:
            return
        with self._lock:
            self._count += 1
            custom_id = f"{self._prefix}{self._count}"
        self._sink.write(batch_line(custom_id, options))


def make_recorder(record_to: str | os.PathLike[str] | None, record_rate: float) -> Recorder | None:
    return None if record_to is None else Recorder(record_to, record_rate)
