"""Batch output: append one complete JSONL line per result, and pick up where a previous run stopped.

Every result is written with a single ``write`` to a file opened for appending and unbuffered, so a
killed process loses at most the requests in flight, and a line is either all there or -- after a
crash in the middle of a write -- a torn tail without its newline, which :func:`prepare_output`
detects and cuts off before resuming.
"""

from __future__ import annotations

import json
import os
from array import array
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ._input import IdSet, digest
from ._types import BatchResult, line_succeeded


class OutputError(ValueError):
    """The existing output file cannot be resumed from (a complete line that is not a result)."""


@dataclass
class OutputState:
    """What an existing output file holds.

    Attributes:
        done: ``custom_id`` values not to send again.
        succeeded / failed: results already recorded (``failed`` before any ``--retry-failed`` rewrite).
        torn_bytes: bytes of a torn last line that were cut off (0 when the file ended cleanly).
        dropped_failures: failed results removed so that they are sent again (``retry_failed``).
    """

    done: IdSet
    succeeded: int = 0
    failed: int = 0
    torn_bytes: int = 0
    dropped_failures: int = 0


def _parse_output_line(raw: bytes, path: Path, number: int) -> tuple[str, bool]:
    try:
        line = json.loads(raw)
    except ValueError:
        line = None
    custom_id = line.get("custom_id") if isinstance(line, dict) else None
    if not isinstance(custom_id, str):
        raise OutputError(
            f"{path}:{number}: not a batch result line; refusing to resume into this file "
            "(choose another --output or remove the file)"
        )
    assert isinstance(line, dict)
    return custom_id, line_succeeded(line)


def _repair_torn_tail(path: Path) -> int:
    """Cut a last line that lacks its newline (a write interrupted by a crash); returns the bytes cut."""
    size = path.stat().st_size
    if size == 0:
        return 0
    with path.open("rb+") as file:
        file.seek(-1, os.SEEK_END)
        if file.read(1) == b"\n":
            return 0
        keep = 0
        position = size
        block = 65536
        while position > 0:
            start = max(0, position - block)
            file.seek(start)
            chunk = file.read(position - start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        file.truncate(keep)
        file.flush()
        os.fsync(file.fileno())
    return size - keep


def prepare_output(path: Path, *, retry_failed: bool = False) -> OutputState:
    """Read an existing output file to resume from it, repairing a torn last line.

    With ``retry_failed``, failed results are removed from the file (rewritten atomically through a
    temporary file) so that their requests are sent again and each ``custom_id`` still appears once.

    Raises:
        OutputError: a complete line that is not a result line.
    """
    if not path.exists():
        return OutputState(done=IdSet())
    torn = _repair_torn_tail(path)
    done: array[int] = array("Q")
    succeeded = failed = 0
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            if not raw.strip():
                continue
            custom_id, ok = _parse_output_line(raw, path, number)
            if ok:
                succeeded += 1
            else:
                failed += 1
            if ok or not retry_failed:
                done.append(digest(custom_id))
    state = OutputState(done=IdSet(done), succeeded=succeeded, failed=failed, torn_bytes=torn)
    if retry_failed and failed:
        _drop_failures(path)
        state.dropped_failures = failed
    return state


def _drop_failures(path: Path) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with path.open("rb") as source, temporary.open("wb") as target:
        for raw in source:
            if raw.strip() and line_succeeded(json.loads(raw)):
                target.write(raw)
        target.flush()
        os.fsync(target.fileno())
    os.replace(temporary, path)


class OutputWriter:
    """Appends results to a JSONL file, one complete line per ``write`` call.

    Args:
        path: the output file (created if missing, appended to otherwise).
        fsync: also ``fsync`` after each line (survives a power cut, at a cost per line); a plain write
            already survives the process being killed.
    """

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self.written = 0
        self._fsync = fsync
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, result: BatchResult) -> None:
        self.write_line(result.output_line())

    def write_line(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self._fsync:
            os.fsync(self._fd)
        self.written += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> OutputWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
