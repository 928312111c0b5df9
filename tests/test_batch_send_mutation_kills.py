"""The batch send path feeding its limiter (issue 25, item 7): every attempt is admitted and what its
answer said -- real usage, a 429's pause and remaining headers -- goes back to the (shared) limiter."""

from __future__ import annotations

import json

import anyio
import httpx2

from holyclient import AsyncClient
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.ratelimit import Admission, Feedback
from support import KEY, completion


class RecordingLimiter:
    """A limiter (the ``Limiter`` protocol) that admits everything and keeps what it was told."""

    rpm: float | None = 100.0
    tpm: float | None = 100_000.0

    def __init__(self) -> None:
        self.admitted: list[tuple[str, int]] = []
        self.observed: list[tuple[Admission, Feedback]] = []

    async def acquire(self, model: str, tokens: int) -> Admission:
        self.admitted.append((model, tokens))
        return Admission(model, tokens, shared=True, id=f"a{len(self.admitted)}")

    async def observe(self, admission: Admission, feedback: Feedback) -> None:
        self.observed.append((admission, feedback))

    def acquire_sync(self, model: str, tokens: int) -> Admission:
        raise AssertionError("the batch runner is async")

    def observe_sync(self, admission: Admission, feedback: Feedback) -> None:
        raise AssertionError("the batch runner is async")


async def _no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


async def test_the_batch_runner_feeds_each_attempts_answer_back_to_its_limiter() -> None:
    refused: set[str] = set()

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][-1]["content"]
        if prompt == "p1" and prompt not in refused:
            refused.add(prompt)
            return httpx2.Response(
                429,
                json={"error": {"message": "slow down", "type": "rate_limit_error"}},
                headers={"retry-after": "1", "x-ratelimit-remaining-requests": "0"},
            )
        return httpx2.Response(200, json=completion("ok"))

    limiter = RecordingLimiter()
    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    runner = BatchRunner(client, concurrency=1, limiter=limiter, max_retries=2, sleep=_no_wait)
    requests = [
        BatchRequest(f"r{i}", {"model": "gpt-4.1", "messages": [{"role": "user", "content": f"p{i}"}]})
        for i in range(3)
    ]
    results: list[BatchResult] = []
    await runner.run(requests, results.append)
    assert all(r.ok for r in results) and len(results) == 3
    assert len(limiter.admitted) == 4 and all(
        model == "gpt-4.1" and tokens > 0 for model, tokens in limiter.admitted
    )
    assert len(limiter.observed) == 4  # every attempt, the refused one too
    feedbacks = [feedback for _, feedback in limiter.observed]
    assert sum(f.pause == 1.0 and f.remaining_requests == 0 for f in feedbacks) == 1  # the 429's pause
    assert sorted(f.total_tokens or 0 for f in feedbacks) == [0, 6, 6, 6]  # real usage of each success
