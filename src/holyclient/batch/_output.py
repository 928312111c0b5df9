"""Batch output: append one complete JSONL line per result, and pick up where a previous run stopped.

Every result is written with a single ``write`` to a file opened for appending and unbuffered, so a
killed process loses at most the requests in flight, and a line is either all there or -- after a
crash in the middle of a write -- a torn tail without its newline, which :func:`prepare_output`
detects and cuts off before resuming. A write that fails half-way (disk full) is cut back at once.
One run at a time writes to an output file (:class:`OutputLock`).
"""

from __future__ import annotations

import contextlib
import json
import os
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ._input import IdSet, digest, version_key
from ._types import BatchResult, _compact, line_fingerprint, line_succeeded


class OutputError(ValueError):
    """The existing output file cannot be resumed from (a complete line that is not a result, results
    of another input, or another run writing to it)."""


@dataclass
class OutputState:
    """What an existing output file holds.

    Attributes:
        done: ``custom_id`` values not to send again.
        succeeded / failed: results already recorded (``failed`` before any ``--retry-failed`` rewrite).
        torn_bytes: bytes of a torn last line that were (or, for a scan, would be) cut off.
        unterminated: the last line is a complete result that only lacks its newline (kept; the newline
            is added).
        dropped_failures: failed results removed so that they are sent again (``retry_failed``).
        foreign: results whose ``custom_id`` is not in the input (``known`` given to the scan);
            ``first_foreign`` is ``(line, custom_id)`` of the first.
        changed: results made from another version of their request (``versions`` given to the scan:
            INPUT was edited since); ``first_changed`` is ``(line, custom_id)`` of the first.
    """

    done: IdSet
    succeeded: int = 0
    failed: int = 0
    torn_bytes: int = 0
    unterminated: bool = False
    dropped_failures: int = 0
    foreign: int = 0
    first_foreign: tuple[int, str] | None = None
    changed: int = 0
    first_changed: tuple[int, str] | None = None


def _parse_output_line(raw: bytes, path: Path, number: int) -> tuple[str, bool, str | None]:
    custom_id, ok, fingerprint = _result_line(raw)
    if custom_id is None:
        raise OutputError(
            f"{path}:{number}: not a batch result line; refusing to resume into this file "
            "(choose another --output or remove the file)"
        )
    return custom_id, ok, fingerprint


def _result_line(raw: bytes) -> tuple[str | None, bool, str | None]:
    try:
        line = json.loads(raw)
    except ValueError:
        return None, False, None
    custom_id = line.get("custom_id") if isinstance(line, dict) else None
    if not isinstance(custom_id, str) or not isinstance(line, dict):
        return None, False, None
    return custom_id, line_succeeded(line), line_fingerprint(line)


def _unterminated_tail(path: Path) -> tuple[int, bytes]:
    """``(offset, bytes)`` of a last line without its newline (``(size, b"")`` when the file ends cleanly)."""
    size = path.stat().st_size
    if size == 0:
        return 0, b""
    with path.open("rb") as file:
        file.seek(-1, os.SEEK_END)
        if file.read(1) == b"\n":
            return size, b""
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
        file.seek(keep)
        return keep, file.read()


def scan_output(
    path: Path, *, retry_failed: bool = False, known: IdSet | None = None, versions: IdSet | None = None
) -> OutputState:
    """Read an existing output file without changing it: what is done, what is torn, what is foreign.

    A last line without its newline is a torn write when it does not parse; when it is a complete
    result line (the newline alone was lost) it counts as done -- cutting it would pay for it twice.

    Raises:
        OutputError: a complete line that is not a result line.
    """
    if not path.exists():
        return OutputState(done=IdSet())
    end, tail = _unterminated_tail(path)
    state = OutputState(done=IdSet())
    if tail:
        if _result_line(tail)[0] is not None:
            state.unterminated = True
            end += len(tail)
        else:
            state.torn_bytes = len(tail)
    done: array[int] = array("Q")
    with path.open("rb") as file:
        position = 0
        for number, raw in enumerate(file, 1):
            position += len(raw)
            if position > end:
                break
            if not raw.strip():
                continue
            custom_id, ok, fingerprint = _parse_output_line(raw, path, number)
            if ok:
                state.succeeded += 1
            else:
                state.failed += 1
            if known is not None and custom_id not in known:
                state.foreign += 1
                state.first_foreign = state.first_foreign or (number, custom_id)
            elif versions is not None and fingerprint and version_key(custom_id, fingerprint) not in versions:
                state.changed += 1
                state.first_changed = state.first_changed or (number, custom_id)
            if ok or not retry_failed:
                done.append(digest(custom_id))
    state.done = IdSet(done)
    return state


def _repair_tail(path: Path, state: OutputState) -> None:
    if not state.torn_bytes and not state.unterminated:
        return
    with path.open("rb+") as file:
        if state.unterminated:
            file.seek(0, os.SEEK_END)
            file.write(b"\n")
        else:
            file.truncate(path.stat().st_size - state.torn_bytes)
        file.flush()
        os.fsync(file.fileno())


def prepare_output(
    path: Path,
    *,
    retry_failed: bool = False,
    known: IdSet | None = None,
    versions: IdSet | Callable[[], IdSet] | None = None,
    force: bool = False,
) -> OutputState:
    """Read an existing output file to resume from it, repairing its last line.

    A torn last line is cut off; a complete last result that lacks only its newline gets it. With
    ``retry_failed``, failed results are removed from the file (rewritten atomically through a
    temporary file) so that their requests are sent again and each ``custom_id`` still appears once.
    Nothing is changed when an error is raised.

    Args:
        known: the input's ``custom_id`` values; results for others are refused unless ``force``.
        versions: the input's requests with their fingerprints; results made from a different body under
            the same ``custom_id`` (INPUT edited since) are refused unless ``force``. A function giving
            them is called only if the file holds results (a fresh run need not fingerprint INPUT).

    Raises:
        OutputError: a complete line that is not a result line, or results of another input.
    """
    if callable(versions):  # collected only when there are results to check against them
        versions = versions() if path.exists() and path.stat().st_size else None
    state = scan_output(path, retry_failed=retry_failed, known=known, versions=versions)
    if state.first_foreign is not None and not force:
        line, custom_id = state.first_foreign
        raise OutputError(
            f"{path}:{line}: custom_id {custom_id!r} is not in the input ({state.foreign} such results): "
            "OUTPUT holds results of another input; choose another -o, or pass --force to append anyway"
        )
    if state.first_changed is not None and not force:
        line, custom_id = state.first_changed
        raise OutputError(
            f"{path}:{line}: the result for custom_id {custom_id!r} was made from a different request "
            f"({state.changed} such results): INPUT changed since that run; choose another -o, or pass "
            "--force to keep those results"
        )
    _repair_tail(path, state)
    if retry_failed and state.failed:
        _drop_failures(path)
        state.dropped_failures = state.failed
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
        self._good = os.fstat(self._fd).st_size  # the end of the last complete line

    def write(self, result: BatchResult) -> None:
        self._write(result.output_bytes())

    def write_line(self, line: dict[str, Any]) -> None:
        self._write((_compact(line) + "\n").encode())

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if self._fsync:
                os.fsync(self._fd)
        except OSError:
            # a short write (disk full) left part of a line: cut it, so that a later successful write
            # does not glue a complete line onto it in the middle of the file
            with contextlib.suppress(OSError):  # if this fails too, the next resume cuts the torn tail
                os.ftruncate(self._fd, self._good)
            raise
        self._good += len(data)
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


class OutputLock:
    """An exclusive lock on an output file (``OUTPUT.lock`` next to it), so two runs never share it.

    Two runs appending to one file would each send the requests the other is sending. The lock file
    is removed on release; after locking, the holder checks the path still names the file it locked
    (a run releasing at that moment may have removed it) and tries again if not.

    Raises:
        OutputError: another run holds the lock.
    """

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        self._fd = -1
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory locks; run unlocked
            return
        for _ in range(10):
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise OutputError(
                    f"{path} is being written by another holyclient batch run (lock {self.path}); "
                    "wait for it to finish"
                ) from None
            except OSError:  # a file system without locks: run unlocked rather than not at all
                os.close(fd)
                return
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(self._fd)
            self._fd = -1
