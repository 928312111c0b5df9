"""``Client(limiter=...)`` / ``AsyncClient(limiter=...)``: every attempt of app traffic waits for the limiter
and feeds it back (real usage, a 429's pause, the remaining-budget headers). The shared Redis limiter is
exercised the same way in tests/test_ratelimit_redis.py."""

from __future__ import annotations

import pytest

from holyclient import AsyncClient, Client, RateLimitError
from holyclient.ratelimit import LocalLimiter
from holyclient.testing import Fault, LocalServer

MESSAGES = [{"role": "user", "content": "hello there"}]


def test_each_sync_attempt_is_admitted_and_charged_its_tokens() -> None:
    limiter = LocalLimiter(rpm=1000, tpm=100_000)
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, limiter=limiter) as client:
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, max_tokens=50)
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, max_tokens=50)
    assert limiter.requests is not None and limiter.tokens is not None
    assert limiter.requests._in_window == 2
    assert limiter.tokens._in_window >= 2 * 50  # prompt estimate + max_tokens, per request


async def test_a_429_retry_after_seen_by_the_async_client_pauses_the_limiter() -> None:
    limiter = LocalLimiter(rpm=1000)
    with LocalServer(faults=[Fault.status(429, retry_after=30)]) as server:
        async with AsyncClient(
            api_key="k", base_url=server.base_url, limiter=limiter, max_retries=0
        ) as client:
            with pytest.raises(RateLimitError):
                await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert 25 < limiter.pause_left() <= 30  # every request through this limiter now waits it out


async def test_streamed_calls_go_through_the_limiter_too() -> None:
    limiter = LocalLimiter(rpm=1000)
    with LocalServer() as server:
        async with AsyncClient(api_key="k", base_url=server.base_url, limiter=limiter) as client:
            stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            async for _ in stream:
                pass
    assert limiter.requests is not None and limiter.requests._in_window == 1


def test_copies_made_with_options_share_the_limiter() -> None:
    limiter = LocalLimiter(rpm=10)
    client = Client(api_key="k", base_url="http://127.0.0.1:1/v1", limiter=limiter)
    assert client.with_options(max_retries=0).limiter is limiter
    client.close()


class _Admissions(LocalLimiter):
    """A local limiter that notes what each request is admitted at (before its answer corrects it)."""

    def __init__(self) -> None:
        super().__init__(rpm=1000, tpm=100_000)
        self.admitted: list[int] = []

    def acquire_sync(self, model: str, tokens: int = 0):  # type: ignore[no-untyped-def]
        self.admitted.append(tokens)
        return super().acquire_sync(model, tokens)


@pytest.mark.parametrize(
    ("call", "at_least"),
    [
        (
            lambda c: c.responses.create(
                model="gpt-4o-mini", input="hello there " * 50, max_output_tokens=40
            ),
            140,
        ),
        (lambda c: c.embeddings.create(model="text-embedding-3-small", input="hello there " * 50), 100),
    ],
    ids=["responses", "embeddings"],
)
def test_a_token_limit_admits_every_counted_endpoint_at_its_tokens(call, at_least) -> None:
    """Admission counts tokens by the endpoint's declaration, not only bodies with ``messages``: a
    Responses call or an embedding used to be admitted at 0 tokens against a TPM limit."""
    limiter = _Admissions()
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, limiter=limiter) as client:
        call(client)
    assert len(limiter.admitted) == 1 and limiter.admitted[0] >= at_least
