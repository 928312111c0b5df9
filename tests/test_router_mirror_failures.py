"""A mirror whose pairs cannot be kept stops paying for them: when ``mirror_to`` cannot be written (a
read-only directory, a file that becomes unwritable mid-run, a full disk) the Router warns once -- on the
``holyclient`` logger and in ``usage.snapshot().warnings`` --, stops sending copies to the shadow, never
raises in a mirror thread or task, and ``stats()`` counts only the pairs written (the lost ones apart)."""

from __future__ import annotations

import asyncio
import errno
import gc
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from holyclient import AsyncRouter, Router, Target
from holyclient.testing import LocalServer

MESSAGES = [{"role": "user", "content": "hi"}]
KEY_OLD, KEY_NEW = "sk-old-endpoint-3333", "sk-new-endpoint-4444"


@pytest.fixture
def servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_OLD) as old, LocalServer(api_key=KEY_NEW) as new:
        yield old, new


@pytest.fixture
def thread_errors(monkeypatch: pytest.MonkeyPatch) -> list[BaseException | None]:
    """Every exception that escapes a thread (a mirror thread's traceback), recorded instead of printed."""
    seen: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.exc_value))
    return seen


@pytest.fixture
def read_only_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory no file can be created in. Root ignores permission bits (CI runs as root), so there
    creating a file in it is refused as the kernel refuses it to anyone else: EACCES."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        probe = folder / "probe"
        try:
            probe.touch()
        except PermissionError:
            pass
        else:  # root: the bits do not bind, refuse as they would
            probe.unlink()
            real_open = os.open

            def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
                if Path(os.fsdecode(path)).parent == folder and flags & os.O_CREAT:
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))
                return real_open(path, flags, *args, **kwargs)

            monkeypatch.setattr(os, "open", refusing_open)
        yield folder
    finally:
        folder.chmod(0o755)


def _router(old: LocalServer, new: LocalServer, path: Path, cls: Any = Router, **kwargs: Any) -> Any:
    return cls(
        [Target(old.base_url, api_key=KEY_OLD, name="old")],
        shadow=Target(new.base_url, api_key=KEY_NEW, name="new"),
        mirror=1.0,
        mirror_to=path,
        max_retries=0,
        mirror_concurrency=1,
        **kwargs,
    )


def _wait_for_copies(router: Router) -> None:
    """Let the copies in flight finish (each request's copy before the next request: no timing)."""
    for thread in list(router._mirror_threads):
        thread.join(10)


def _calls(router: Router, n: int, between: Callable[[int], None] = lambda i: None) -> None:
    for i in range(n):
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "old"
        _wait_for_copies(router)
        between(i)


def _mirror_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "mirror" in r.getMessage()]


def test_a_read_only_directory_stops_the_mirror_with_one_warning_and_no_traceback(
    servers, read_only_dir: Path, thread_errors: list, caplog: pytest.LogCaptureFixture
):
    old, new = servers
    path = read_only_dir / "pairs.jsonl"
    with caplog.at_level(logging.WARNING, logger="holyclient"):
        router = _router(old, new, path)
        _calls(router, 4)
        router.close()
    assert thread_errors == []  # no mirror thread raised
    assert not path.exists()
    assert len(new.requests) == 1  # the copy whose pair was lost; then the shadow is no longer paid
    stats = router.stats()["new"]
    assert (stats.mirrored, stats.mirror_lost, stats.mirror_dropped) == (0, 1, 0)
    (warning,) = router.usage.snapshot().warnings
    assert warning == (f"mirroring to {path} stopped: Permission denied; no more copies are sent to new")
    assert _mirror_warnings(caplog) == [f"holyclient: {warning}"]
    assert KEY_OLD not in caplog.text and KEY_NEW not in caplog.text


def test_a_pairs_file_that_becomes_unwritable_mid_run_keeps_what_was_written(
    servers, tmp_path: Path, thread_errors: list, caplog: pytest.LogCaptureFixture
):
    old, new = servers
    path = tmp_path / "pairs.jsonl"

    def break_the_file(i: int) -> None:
        if i == 1:  # after two pairs: the file is replaced by something no one can append to
            path.unlink()
            path.mkdir()

    with caplog.at_level(logging.WARNING, logger="holyclient"):
        router = _router(old, new, path)
        _calls(router, 5, break_the_file)
        router.close()
    assert thread_errors == []
    assert len(new.requests) == 3  # two pairs kept, one lost, then no more shadow calls
    stats = router.stats()["new"]
    assert (stats.mirrored, stats.mirror_lost) == (2, 1)
    (warning,) = router.usage.snapshot().warnings
    assert warning.startswith(f"mirroring to {path} stopped: Is a directory")
    assert len(_mirror_warnings(caplog)) == 1


def test_a_full_disk_stops_the_mirror_and_leaves_no_torn_line(
    servers, tmp_path: Path, thread_errors: list, monkeypatch: pytest.MonkeyPatch
):
    old, new = servers
    path = tmp_path / "pairs.jsonl"
    real_write = os.write

    def disk_full_on_the_pairs(fd: int, data: Any) -> int:
        if os.path.realpath(f"/proc/self/fd/{fd}") != str(path.resolve()):
            return real_write(fd, data)
        if len(data) > 20:
            return real_write(fd, bytes(data[:20]))  # a short write...
        raise OSError(errno.ENOSPC, "No space left on device")  # ...then the disk is full

    def fill_the_disk(i: int) -> None:
        if i == 0:
            monkeypatch.setattr(os, "write", disk_full_on_the_pairs)

    router = _router(old, new, path)
    _calls(router, 3, fill_the_disk)
    router.close()
    monkeypatch.setattr(os, "write", real_write)
    assert thread_errors == []
    (line,) = path.read_text().splitlines()  # the first pair, whole; the torn one cut back
    assert json.loads(line)["new"]["status"] == 200
    assert (router.stats()["new"].mirrored, router.stats()["new"].mirror_lost) == (1, 1)
    assert len(new.requests) == 2
    assert router.usage.snapshot().warnings == (
        f"mirroring to {path} stopped: No space left on device; no more copies are sent to new",
    )


def _async_run(main: Callable[[], Any]) -> list[dict[str, Any]]:
    """Run ``main()`` on a new loop; return what reached the loop's exception handler (a task's
    exception never retrieved is reported there when the task is collected)."""
    reported: list[dict[str, Any]] = []

    async def wrapped() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        await main()
        gc.collect()  # finished copies are collected here, while the handler is still ours
        await asyncio.sleep(0)

    asyncio.run(wrapped())
    return reported


async def _acalls(router: AsyncRouter, n: int, between: Callable[[int], None] = lambda i: None) -> None:
    for i in range(n):
        answer = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        assert answer._target == "old"
        if router._mirror_tasks:  # each copy ends before the next request (its outcome not retrieved)
            await asyncio.wait(set(router._mirror_tasks))
        between(i)


def test_an_async_router_with_a_read_only_directory_warns_once_and_no_task_fails(
    servers, read_only_dir: Path, caplog: pytest.LogCaptureFixture
):
    old, new = servers
    path = read_only_dir / "pairs.jsonl"
    router: AsyncRouter | None = None

    async def main() -> None:
        nonlocal router
        router = _router(old, new, path, cls=AsyncRouter)
        await _acalls(router, 4)
        await router.close()

    with caplog.at_level(logging.WARNING):
        reported = _async_run(main)
    assert reported == []  # no "Task exception was never retrieved"
    assert not [r for r in caplog.records if r.name == "asyncio"]
    assert router is not None and len(new.requests) == 1
    assert (router.stats()["new"].mirrored, router.stats()["new"].mirror_lost) == (0, 1)
    (warning,) = router.usage.snapshot().warnings
    assert warning == f"mirroring to {path} stopped: Permission denied; no more copies are sent to new"
    assert _mirror_warnings(caplog) == [f"holyclient: {warning}"]


def test_an_async_router_stops_mirroring_when_the_disk_fills_mid_run(
    servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    old, new = servers
    path = tmp_path / "pairs.jsonl"
    real_write = os.write
    router: AsyncRouter | None = None

    def full(fd: int, data: Any) -> int:
        if os.path.realpath(f"/proc/self/fd/{fd}") == str(path.resolve()):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def fill_the_disk(i: int) -> None:
        if i == 1:
            monkeypatch.setattr(os, "write", full)

    async def main() -> None:
        nonlocal router
        router = _router(old, new, path, cls=AsyncRouter)
        await _acalls(router, 4, fill_the_disk)
        await router.close()

    reported = _async_run(main)
    monkeypatch.setattr(os, "write", real_write)
    assert reported == []
    assert router is not None and len(new.requests) == 3
    assert (router.stats()["new"].mirrored, router.stats()["new"].mirror_lost) == (2, 1)
    assert len(path.read_text().splitlines()) == 2
    assert len(router.usage.snapshot().warnings) == 1


def test_a_copy_drawn_before_the_mirror_stopped_is_not_sent(servers, tmp_path: Path):
    """Two copies in flight when the file fails: the one not yet sent is dropped, not paid for."""
    from holyclient._core import RequestOptions
    from holyclient.router._mirror import Mirror, side

    mirror = Mirror(Target("https://s.test/v1", api_key="k", name="s"), 1.0, tmp_path / "x" / "p.jsonl", 2)
    options = RequestOptions("POST", "/chat/completions", body={"model": "m", "messages": MESSAGES})
    first, second = mirror.acquire(), mirror.acquire()
    assert first and second
    assert not mirror.write(first, options, side("a", 0.1), side("s", 0.1))  # no such directory
    assert mirror.stopped is not None and mirror.skip()  # the second copy is not sent
    assert (mirror.kept, mirror.lost, mirror.dropped) == (0, 1, 1)
    assert not mirror.wants(options)  # and no new copy is drawn


def test_a_mirror_stops_once_its_file_holds_its_limit(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    from holyclient._core import RequestOptions
    from holyclient.pricing import UsageTracker
    from holyclient.router._mirror import Mirror, side

    path = tmp_path / "p.jsonl"
    mirror = Mirror(Target("https://s.test/v1", api_key="k", name="s"), 1.0, path, 3, limit=2)
    mirror.tracker = tracker = UsageTracker()
    options = RequestOptions("POST", "/chat/completions", body={"model": "m", "messages": MESSAGES})
    ids = [mirror.acquire() for _ in range(3)]  # three copies in flight
    with caplog.at_level(logging.WARNING, logger="holyclient"):
        kept = [mirror.write(str(cid), options, side("a", 0.1), side("s", 0.1)) for cid in ids]
    assert kept == [True, True, False]  # the third was in flight when the file filled up: lost
    assert (mirror.kept, mirror.lost) == (2, 1) and len(path.read_text().splitlines()) == 2
    assert not mirror.wants(options)
    stopped = f"mirroring to {path} stopped: it holds 2 pairs, the most one mirror writes; no more copies are sent to s"
    assert tracker.snapshot().warnings == (stopped,)
    assert _mirror_warnings(caplog) == [f"holyclient: {stopped}"]
