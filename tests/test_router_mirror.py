"""Shadow traffic: the caller never waits for the shadow, copies are dropped (not queued) when the mirror
is full, and the pairs file holds both answers in a replayable format without keys."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holyclient import AsyncRouter, Router, Target
from holyclient.router import _router as router_module
from holyclient.testing import Fault, LocalServer, RecordedRequest

MESSAGES = [{"role": "user", "content": "hi"}]
KEY_OLD, KEY_NEW = "sk-old-endpoint-1111", "sk-new-endpoint-2222"


class Gate:
    """A server hook that holds every request until opened (the shadow 'hangs' without any timing)."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.arrived = threading.Semaphore(0)

    def __call__(self, request: RecordedRequest) -> Fault | None:
        self.arrived.release()
        self.open.wait(10)  # bounded: a failing test cannot wedge the run
        return None


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def servers(gate: Gate) -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_OLD) as old, LocalServer(api_key=KEY_NEW, hook=gate) as new:
        yield old, new
        gate.open.set()


def _router(old: LocalServer, new: LocalServer, path: Path, cls: Any = Router, **kwargs: Any) -> Any:
    return cls(
        [Target(old.base_url, api_key=KEY_OLD, name="old")],
        shadow=Target(new.base_url, api_key=KEY_NEW, name="new", model_map={"gpt-4o-mini": "gpt-4o"}),
        mirror=1.0,
        mirror_to=path,
        max_retries=0,
        **kwargs,
    )


def test_the_caller_does_not_wait_for_a_hanging_shadow(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    router = _router(old, new, tmp_path / "pairs.jsonl")
    answer = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert answer._target == "old"
    assert gate.arrived.acquire(timeout=10)  # the copy reached the shadow, which is holding it
    assert router._core.mirror.in_flight == 1  # the caller got its answer with the copy still in flight
    gate.open.set()
    router.close()  # waits for the copy
    (line,) = (tmp_path / "pairs.jsonl").read_text().splitlines()
    pair = json.loads(line)
    assert pair["method"] == "POST" and pair["url"] == "/v1/chat/completions"
    assert pair["body"]["model"] == "gpt-4o-mini"  # the caller's request, before the shadow's model map
    assert pair["old"]["target"] == "old" and pair["old"]["body"]["choices"]
    assert pair["new"]["target"] == "new" and pair["new"]["body"]["model"] == "gpt-4o"
    assert pair["new"]["status"] == 200 and pair["new"]["latency_s"] > 0
    assert KEY_OLD not in line and KEY_NEW not in line and "uthorization" not in line
    assert [r.status for r in new.requests] == [200]  # the shadow got its own key
    assert router.stats()["new"].mirrored == 1


def test_the_mirror_drops_copies_when_its_concurrency_is_full(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    router = _router(old, new, tmp_path / "pairs.jsonl", mirror_concurrency=1)
    for _ in range(4):
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert gate.arrived.acquire(timeout=10)
    stats = router.stats()["new"]
    assert (stats.mirrored, stats.mirror_dropped) == (0, 3)  # the one copy sent is still in flight
    gate.open.set()
    router.close()
    assert (router.stats()["new"].mirrored, router.stats()["new"].mirror_dropped) == (1, 3)
    assert len((tmp_path / "pairs.jsonl").read_text().splitlines()) == 1
    assert len(new.requests) == 1


def test_a_failing_shadow_is_recorded_and_never_fails_the_caller(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()
    new.enqueue(Fault.status(500))
    router = _router(old, new, tmp_path / "pairs.jsonl")
    assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "old"
    router.close()
    pair = json.loads((tmp_path / "pairs.jsonl").read_text())
    assert pair["new"]["status"] == 500 and pair["new"]["body"] is None and "500" in pair["new"]["error"]
    assert pair["old"]["status"] == 200


def test_streams_and_uploads_are_not_mirrored(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()
    router = _router(old, new, tmp_path / "pairs.jsonl")
    list(router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
    router.models.list()
    router.close()
    assert not (tmp_path / "pairs.jsonl").exists()
    assert new.requests == []


def test_async_router_mirrors_in_a_task_the_caller_does_not_await(servers, gate: Gate, tmp_path: Path):
    old, new = servers

    async def main() -> None:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter, mirror_concurrency=1)
        for _ in range(2):
            answer = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            assert answer._target == "old"
        assert await asyncio.to_thread(gate.arrived.acquire, timeout=10)
        assert router.stats()["new"].mirror_dropped == 1
        gate.open.set()
        await router.close()

    asyncio.run(main())
    assert len((tmp_path / "pairs.jsonl").read_text().splitlines()) == 1


def test_mirror_needs_a_shadow_and_a_file():
    from holyclient import ConfigurationError

    with pytest.raises(ConfigurationError, match="shadow"):
        Router([Target("https://a.test/v1", api_key="k")], mirror=0.1)


def test_responses_and_embeddings_are_mirrored_too(servers, gate: Gate, tmp_path: Path):
    """litellm's mirroring never fires on /v1/responses; ours does."""
    old, new = servers
    gate.open.set()
    router = _router(old, new, tmp_path / "pairs.jsonl")
    router.responses.create(model="gpt-4o-mini", input="hi")
    router.embeddings.create(model="text-embedding-3-small", input="hi")
    router.close()
    pairs = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert sorted(p["url"] for p in pairs) == ["/v1/embeddings", "/v1/responses"]
    assert all(p["old"]["status"] == p["new"]["status"] == 200 for p in pairs)


def test_async_router_writes_the_same_pair_as_the_sync_one(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()

    async def main() -> None:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter)
        await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        await router.close()  # waits for the copy
        assert router.stats()["new"].mirrored == 1

    asyncio.run(main())
    (line,) = (tmp_path / "pairs.jsonl").read_text().splitlines()
    pair = json.loads(line)
    assert pair["method"] == "POST" and pair["url"] == "/v1/chat/completions"
    assert pair["body"]["model"] == "gpt-4o-mini"
    assert pair["old"]["target"] == "old" and pair["old"]["body"]["choices"]
    assert pair["new"]["target"] == "new" and pair["new"]["body"]["model"] == "gpt-4o"
    assert pair["new"]["status"] == 200 and 0 < pair["new"]["latency_s"] < 60 and pair["new"]["error"] is None
    assert pair["custom_id"].startswith("mirror-")
    assert KEY_OLD not in line and KEY_NEW not in line


def test_async_router_records_a_failing_shadow_and_frees_its_slot(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()
    new.enqueue(Fault.status(500), Fault.status(500))

    async def main() -> None:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter, mirror_concurrency=1)
        for _ in range(2):  # the second copy needs the slot the first one gave back
            assert (
                await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            )._target == "old"
            await asyncio.gather(*router._mirror_tasks)
        await router.close()
        assert router.stats()["new"].mirror_dropped == 0 and router._core.mirror.in_flight == 0

    asyncio.run(main())
    pairs = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert len(pairs) == 2
    for pair in pairs:
        assert pair["new"]["target"] == "new" and pair["new"]["status"] == 500
        assert (
            pair["new"]["body"] is None
            and "500" in pair["new"]["error"]
            and 0 < pair["new"]["latency_s"] < 60
        )
        assert pair["old"]["status"] == 200


def test_the_mirror_keeps_four_copies_in_flight_by_default(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    router = Router(
        [Target(old.base_url, api_key=KEY_OLD, name="old")],
        shadow=Target(new.base_url, api_key=KEY_NEW, name="new"),
        mirror=1.0,
        mirror_to=tmp_path / "pairs.jsonl",
    )
    for _ in range(6):
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert router._core.mirror.in_flight == 4  # the shadow holds every copy it got
    assert router.stats()["new"].mirror_dropped == 2
    gate.open.set()
    router.close()
    assert (router.stats()["new"].mirrored, router.stats()["new"].mirror_dropped) == (4, 2)
    assert len((tmp_path / "pairs.jsonl").read_text().splitlines()) == 4


def test_each_side_of_a_pair_says_who_answered_and_how_long_it_took(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()
    new.enqueue(Fault.status(500))  # the first copy fails, the second succeeds
    pairs = []
    for n in range(2):
        started = time.perf_counter()
        router = _router(old, new, tmp_path / f"pairs-{n}.jsonl")
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        router.close()  # waits for the copy
        elapsed = time.perf_counter() - started
        pair = json.loads((tmp_path / f"pairs-{n}.jsonl").read_text())
        pairs.append(pair)
        for side, name in (("old", "old"), ("new", "new")):
            assert pair[side]["target"] == name
            assert 0 < pair[side]["latency_s"] <= elapsed  # a duration within the call, not a clock reading
    assert [p["new"]["status"] for p in pairs] == [500, 200]


def test_close_gives_up_on_a_hanging_shadow_at_its_deadline(
    servers, gate: Gate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    old, new = servers
    monkeypatch.setattr(router_module, "MIRROR_CLOSE_WAIT", 0.0)
    waits: list[float | None] = []
    join = threading.Thread.join

    def recording_join(thread: threading.Thread, timeout: float | None = None) -> None:
        if thread.name == "holyclient-mirror":
            waits.append(timeout)
        join(thread, timeout)

    monkeypatch.setattr(threading.Thread, "join", recording_join)
    router = _router(old, new, tmp_path / "pairs.jsonl")
    router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert gate.arrived.acquire(timeout=10)
    router.close()
    assert waits == [0.0]  # the time left before the deadline, never more
    assert router._core.mirror.in_flight == 1 and not (tmp_path / "pairs.jsonl").exists()
    gate.open.set()


def test_an_async_router_s_close_cancels_a_shadow_still_hanging_at_its_deadline(
    servers, gate: Gate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    old, new = servers
    monkeypatch.setattr(router_module, "MIRROR_CLOSE_WAIT", 0.0)

    async def main() -> None:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter)
        await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        copies = set(router._mirror_tasks)
        assert await asyncio.to_thread(gate.arrived.acquire, timeout=10)
        await router.close()
        await asyncio.wait(copies)
        assert all(copy.cancelled() for copy in copies) and router._core.mirror.in_flight == 0

    asyncio.run(main())
    gate.open.set()
    assert not (tmp_path / "pairs.jsonl").exists()  # cancelled at the deadline, not waited for


def test_an_async_router_forgets_each_mirror_copy_once_it_ends(servers, gate: Gate, tmp_path: Path):
    old, new = servers
    gate.open.set()

    async def main() -> None:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter)
        await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        copies = set(router._mirror_tasks)
        await asyncio.wait(copies)
        await asyncio.sleep(0)  # the copies' done callbacks
        assert (
            len(copies) == 1 and router._mirror_tasks == set()
        )  # a long-lived router holds no finished copy
        await router.close()

    asyncio.run(main())
    assert len((tmp_path / "pairs.jsonl").read_text().splitlines()) == 1
