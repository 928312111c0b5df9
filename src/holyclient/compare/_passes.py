"""The passes of a comparison: old and new at the same time, then the old endpoint again for the noise floor.

Two clients (each key goes only to its own base URL) sharing one usage tracker, so that ``budget``
holds for the whole comparison; answers recorded in the ``--state`` file as they arrive; a plain
progress line through ``log`` every few seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from .._client import AsyncClient
from ..batch import BatchRequest, BatchResult
from ._run import SideRun, Timing, run_side
from ._state import StateWriter, endpoint_of
from ._streams import prepare as prepare_streams

#: Retries per request after its first attempt (the runner honours ``Retry-After``).
MAX_RETRIES = 2


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str | None = field(default=None, repr=False)


async def run_passes(
    old: Endpoint,
    new: Endpoint,
    passes: Mapping[str, Sequence[BatchRequest]],
    streams: set[str],
    done: Mapping[str, SideRun],
    *,
    budget: float | None,
    concurrency: int,
    rpm: float | None,
    state: Path | None,
    log: Callable[[str], None],
    progress_seconds: float,
) -> tuple[SideRun, SideRun, list[SideRun]]:
    """Run ``passes`` (``old``, ``new``, then ``old#2`` ...) and return old, new and the repeats of old."""
    from ..types import ChatCompletion

    # Build the response model's validators now: done lazily, the first answer's latency would include it.
    ChatCompletion.model_validate(
        {"id": "", "object": "chat.completion", "created": 0, "model": "", "choices": []}
    )
    if streams:
        prepare_streams()  # and the stream assembler's, or the first stream stalls every request in flight
    writer = StateWriter(state) if state is not None else None
    received: dict[str, int] = {}

    def recorder(name: str) -> Callable[[BatchResult, Timing | None, str], None]:
        endpoint = endpoint_of(name, old.base_url, new.base_url)
        keep = writer.recorder(name, endpoint) if writer is not None else None

        def record(result: BatchResult, timing: Timing | None, key: str) -> None:
            received[name] = received.get(name, 0) + 1
            if keep is not None:
                keep(result, timing, key)

        return record

    async def progress() -> None:
        while True:  # a plain line, never a carriage return: stderr may be a CI log
            await anyio.sleep(progress_seconds)
            counts = ", ".join(f"{name} {count}/{len(passes[name])}" for name, count in received.items())
            log(f"answers so far: {counts or 'none yet'}")

    old_client = AsyncClient(api_key=old.api_key, base_url=old.base_url, budget_usd=budget, max_retries=0)
    new_client = old_client.with_options(api_key=new.api_key, base_url=new.base_url)
    options: dict[str, Any] = {"concurrency": concurrency, "rpm": rpm, "max_retries": MAX_RETRIES}
    runs: dict[str, SideRun] = {}

    async def side(label: str, client: AsyncClient, name: str) -> None:
        started = anyio.current_time()
        requests = passes[name]
        run = await run_side(client, requests, streams, done=done.get(name), record=recorder(name), **options)
        ok = sum(1 for item in run.results.values() if item.ok)
        log(f"{label}: {ok}/{len(requests)} ok in {anyio.current_time() - started:.1f}s")
        runs[name] = run

    try:
        async with anyio.create_task_group() as ticker:
            ticker.start_soon(progress)
            # Old and new run at the same time, so that whatever slows this machine or the network
            # (other processes, first-use costs, a busy minute) weighs on both sides alike.
            async with anyio.create_task_group() as tg:
                tg.start_soon(side, "old", old_client, "old")
                tg.start_soon(side, "new", new_client, "new")
            repeats = sorted((name for name in passes if name.startswith("old#")), key=lambda n: int(n[4:]))
            for name in repeats:
                await side(f"old again ({name[4:]}/{len(repeats) + 1})", old_client, name)
            ticker.cancel_scope.cancel()
    finally:
        await old_client.close()
        if writer is not None:
            writer.close()
    return runs["old"], runs["new"], [runs[name] for name in repeats]


async def embed_texts(
    endpoint: Endpoint, model: str, texts: Sequence[str], log: Callable[[str], None]
) -> dict[str, list[float]] | None:
    """The texts' embeddings from ``endpoint``, or ``None`` (said through ``log``) when it refuses."""
    from .._client import AsyncClient
    from .._exceptions import APIError
    from ._embeddings import embed

    async with AsyncClient(api_key=endpoint.api_key, base_url=endpoint.base_url) as client:
        try:
            return await embed(client, model, texts)
        except APIError as exc:
            log(
                f"--embedding-model: no embeddings ({type(exc).__name__}: {exc}); embedding similarity not measured"
            )
            return None
