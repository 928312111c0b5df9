"""Issue 40's test bench: one chat call, streamed or not, on each of the five surfaces users reach a
provider through -- ``Client``, ``AsyncClient``, ``Router``, ``AsyncRouter`` and ``as_openai()`` on a
Router -- against local servers playing a fault, with what came back, how long it took and what was
counted.

The routers send to ``primary`` with ``backup`` as its fallback (the issue's set-up); the clients send to
``primary`` alone. Every call is timed: no fault may hold a call past its documented bound. The fixtures
(``pair``, ``fault_servers``) are loaded for every test by ``conftest.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from holyclient import AsyncClient, AsyncRouter, Client, Router, Target
from holyclient.testing import LocalServer

KEY_PRIMARY, KEY_BACKUP = "sk-primary-0000aaaa", "sk-backup-0000bbbb"
WORDS = "one two three four five six seven eight nine ten eleven twelve"
MESSAGES = [{"role": "user", "content": WORDS}]
#: What the local server answers MESSAGES with, in full.
ANSWER = f"Echo: {WORDS}"
MODEL = "gpt-4o-mini"

#: The five ways a user reaches a provider.
SURFACES = ("client", "async_client", "router", "async_router", "as_openai")
ROUTERS = ("router", "async_router", "as_openai")
CLIENTS = ("client", "async_client")


@dataclass
class Outcome:
    """What one call gave: its text (whole or not), its error, how long it took, and the counts after."""

    text: str = ""
    error: BaseException | None = None
    seconds: float = 0.0
    target: str | None = None
    usage: Any = None
    """The usage snapshot of the client or router (all targets)."""
    stats: dict[str, Any] = field(default_factory=dict)
    """The router's ``stats()`` (empty for a client)."""
    stream: Any = None

    @property
    def whole(self) -> bool:
        return self.error is None and self.text == ANSWER


@pytest.fixture(scope="module")
def fault_servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    """A primary and a backup server for the module (each test starts them afresh: :func:`pair`)."""
    from holyclient.tokens import count_tokens

    count_tokens(
        "warm", MODEL
    )  # the tokenizer an uncertain attempt is counted with, loaded before any timing
    with (
        LocalServer(api_key=KEY_PRIMARY, max_hang=10) as primary,
        LocalServer(api_key=KEY_BACKUP, max_hang=10) as backup,
    ):
        for surface in SURFACES:  # first calls import and build what later calls reuse: not timed
            for stream in (False, True):
                ask(surface, primary, backup, stream=stream)
        yield primary, backup


@pytest.fixture
def pair(fault_servers: tuple[LocalServer, LocalServer]) -> Iterator[tuple[LocalServer, LocalServer]]:
    """The primary and the backup, reset (stats, log, queued faults) before and after the test."""
    for server in fault_servers:
        server.reset()
    yield fault_servers
    for server in fault_servers:
        server.reset()


def targets(
    primary: LocalServer,
    backup: LocalServer,
    primary_options: dict[str, Any] | None = None,
    backup_options: dict[str, Any] | None = None,
) -> list[Target]:
    """The issue's set-up: the primary with the backup as its fallback."""
    fallback = Target(backup.base_url, api_key=KEY_BACKUP, name="backup", **(backup_options or {}))
    return [
        Target(
            primary.base_url,
            api_key=KEY_PRIMARY,
            name="primary",
            fallbacks=[fallback],
            **(primary_options or {}),
        )
    ]


def _text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def ask(
    surface: str,
    primary: LocalServer,
    backup: LocalServer,
    *,
    stream: bool,
    client_options: dict[str, Any] | None = None,
    router_options: dict[str, Any] | None = None,
    primary_options: dict[str, Any] | None = None,
    backup_options: dict[str, Any] | None = None,
    **body: Any,
) -> Outcome:
    """One chat call on ``surface`` (see :data:`SURFACES`), never raising: the error is in the outcome."""
    client_options = {"max_retries": 0, **(client_options or {})}
    router_options = {**client_options, **(router_options or {})}
    request = {"model": MODEL, "messages": MESSAGES, **body}
    outcome = Outcome()
    started = time.monotonic()
    if surface in ("client", "router", "as_openai"):
        made: Any
        if surface == "client":
            made = Client(api_key=KEY_PRIMARY, base_url=primary.base_url, **client_options)
        else:
            made = Router(targets(primary, backup, primary_options, backup_options), **router_options)
        with made:
            api = made.as_openai() if surface == "as_openai" else made
            try:
                answer = api.chat.completions.create(stream=stream, **request)
                if stream:
                    outcome.stream = answer
                    outcome.text = _text_of(list(answer))
                else:
                    outcome.text = answer.choices[0].message.content or ""
                outcome.target = getattr(answer, "_target", None)
            except Exception as exc:
                outcome.error = exc
            outcome.seconds = time.monotonic() - started
            outcome.usage = made.usage.snapshot()
            outcome.stats = made.stats() if isinstance(made, Router) else {}
        return outcome

    async def run() -> None:
        made: Any
        if surface == "async_client":
            made = AsyncClient(api_key=KEY_PRIMARY, base_url=primary.base_url, **client_options)
        else:
            made = AsyncRouter(targets(primary, backup, primary_options, backup_options), **router_options)
        async with made:
            try:
                answer = await made.chat.completions.create(stream=stream, **request)
                if stream:
                    outcome.stream = answer
                    outcome.text = _text_of([chunk async for chunk in answer])
                else:
                    outcome.text = answer.choices[0].message.content or ""
                outcome.target = getattr(answer, "_target", None)
            except Exception as exc:
                outcome.error = exc
            outcome.seconds = time.monotonic() - started
            outcome.usage = made.usage.snapshot()
            outcome.stats = made.stats() if isinstance(made, AsyncRouter) else {}

    asyncio.run(run())
    return outcome


def attempts(server: LocalServer) -> int:
    """Chat requests the server received (each attempt, counted where it arrived)."""
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))


def eventually(check: Callable[[], bool], seconds: float = 2.0) -> bool:
    """Whether ``check()`` holds within ``seconds`` (a server logs a request it is still answering)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()
