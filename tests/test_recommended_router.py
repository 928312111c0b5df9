"""The configuration docs/guides/rolling-out.md recommends ("A configuration that rescues every rescuable
fault"), built from the page itself so that the page cannot promise what it does not do, against each
fault of issue 40 played by the local fault server, on a Router, an AsyncRouter and a Router's
``as_openai()``, streamed and not: every fault but the content filter ends in the whole answer.

Time is scaled down 25 times with ``with_options`` (its timeouts and deadlines; the rest is the page's):
a 60 s read timeout is 2.4 s, a first token after 20 s comes after 0.8 s, an outage lasts 2.4 s.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from failover_support import KEY_BACKUP, KEY_PRIMARY, MODEL, ROUTERS
from holyclient import AsyncRouter, BadRequestError, Router
from holyclient.testing import Fault, LocalServer, Outage

PAGE = Path(__file__).resolve().parents[1] / "docs/guides/rolling-out.md"
SCALE = 1 / 25
WORDS = " ".join(f"w{i}" for i in range(60))
MESSAGES = [{"role": "user", "content": WORDS}]
ANSWER = f"Echo: {WORDS}"
BOUND = 2 * 60 * SCALE + 2.5

FAULTS: dict[str, Fault | None] = {
    "rate_limit": Fault.status(429, retry_after=0),
    "accepted_then_silent": Fault.hang(5.0),
    "first_token_after_20s": Fault.slow_first_event(20 * SCALE),
    "cut_after_40_of_60": Fault.stream_cut(after_chunks=41),
    "silent_stream": Fault.stall(after_chunks=4, seconds=5.0, comments_every=0.05),
    "malformed_event": Fault.malformed_event(after_chunks=4),
    "no_done": Fault.ends_early(after_chunks=4),
    "context_length_exceeded": Fault.context_length_exceeded(128_000),
    "content_filter": Fault.content_filter(),
    "primary_down_then_back": None,
}


def _recommended() -> Any:
    """The page's ``resilient_router``, run from the block the page marks as run by this test."""
    text = PAGE.read_text(encoding="utf-8")
    marker = text.index("<!-- run by tests/test_recommended_router.py")
    block = re.search(r"```python\n(.*?)```", text[marker:], re.S)
    assert block is not None
    scope: dict[str, Any] = {}
    exec(compile(block.group(1), str(PAGE), "exec"), scope)  # our own documentation page
    return scope["resilient_router"]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_PRIMARY, max_hang=10) as primary, LocalServer(api_key=KEY_BACKUP) as backup:
        yield primary, backup


def _text(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def _call(surface: str, primary: LocalServer, backup: LocalServer, stream: bool) -> tuple[str, Any]:
    build = _recommended()
    scaled = {
        "timeout": 60 * SCALE,
        "first_event_timeout": 15 * SCALE,
        "stream_idle_timeout": 30 * SCALE,
        "max_retry_after": 10 * SCALE,
    }
    request = {"model": MODEL, "messages": MESSAGES, "stream": stream}
    if surface != "async_router":
        router = build(primary.base_url, KEY_PRIMARY, backup.base_url, KEY_BACKUP, cls=Router)
        with router:
            api = router.with_options(**scaled)
            api = api.as_openai() if surface == "as_openai" else api
            try:
                answer = api.chat.completions.create(**request)
                return (_text(list(answer)) if stream else answer.choices[0].message.content), None
            except Exception as exc:
                return "", exc

    async def run() -> tuple[str, Any]:
        router = build(primary.base_url, KEY_PRIMARY, backup.base_url, KEY_BACKUP)
        assert isinstance(router, AsyncRouter)
        async with router:
            try:
                answer = await router.with_options(**scaled).chat.completions.create(**request)
                if stream:
                    return _text([chunk async for chunk in answer]), None
                return answer.choices[0].message.content, None
            except Exception as exc:
                return "", exc

    return asyncio.run(run())


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
@pytest.mark.parametrize("fault", list(FAULTS))
def test_the_recommended_router_rescues_every_rescuable_fault(
    servers: tuple[LocalServer, LocalServer], fault: str, surface: str, stream: bool
) -> None:
    primary, backup = servers
    primary.reset()
    backup.reset()
    outage: LocalServer | None = None
    played = FAULTS[fault]
    if played is None:
        outage = LocalServer(api_key=KEY_PRIMARY, hook=Outage(60 * SCALE)).__enter__()
    else:
        primary.enqueue(played)
    started = time.monotonic()
    try:
        text, error = _call(surface, outage or primary, backup, stream)
    finally:
        if outage is not None:
            outage.__exit__(None, None, None)
    assert time.monotonic() - started < BOUND
    if fault == "content_filter":  # the caller's prompt: refused everywhere, with its reason
        assert error is not None and getattr(error, "code", None) == "content_filter", repr(error)
        assert surface == "as_openai" or isinstance(error, BadRequestError)
        return
    assert error is None and text == ANSWER, repr(error)
