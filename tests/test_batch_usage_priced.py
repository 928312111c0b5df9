"""A batch prices each answer by the client tracker's rule: the usage details that change the price
(reasoning reported beside the completion, audio, cached prompt) reach the tracker and the CLI's tally."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.batch._report import CostTally
from holyclient.pricing import cost_from_usage
from support import KEY

#: Gemini reports its thinking beside ``completion_tokens`` (total = prompt + completion + reasoning).
GEMINI_USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 100,
    "total_tokens": 2100,
    "completion_tokens_details": {"reasoning_tokens": 1000},
}
AUDIO_USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 10,
    "total_tokens": 1010,
    "prompt_tokens_details": {"audio_tokens": 800, "cached_tokens": 100},
}
RESPONSES_USAGE = {
    "input_tokens": 1000,
    "output_tokens": 100,
    "total_tokens": 2100,
    "output_tokens_details": {"reasoning_tokens": 1000},
    "input_tokens_details": {"cached_tokens": 500},
}


def _answer(url: str, usage: dict[str, Any]) -> dict[str, Any]:
    if url == "/v1/responses":
        return {
            "id": "resp_1",
            "object": "response",
            "model": "gemini-2.5-flash",
            "output": [],
            "usage": usage,
        }
    message = {"role": "assistant", "content": "ok"}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {
        "id": "c",
        "object": "chat.completion",
        "model": "gemini-2.5-flash",
        "choices": [choice],
        "usage": usage,
    }


@pytest.mark.parametrize(
    ("url", "usage"),
    [
        ("/v1/chat/completions", GEMINI_USAGE),
        ("/v1/chat/completions", AUDIO_USAGE),
        ("/v1/responses", RESPONSES_USAGE),
    ],
    ids=["reasoning-beside-completion", "audio-and-cached-prompt", "responses-api-details"],
)
async def test_batch_charges_the_usage_details_that_change_the_price(url: str, usage: dict[str, Any]) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=_answer(url, usage))

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    body = (
        {"model": "gemini-2.5-flash", "input": "hi"}
        if url == "/v1/responses"
        else {
            "model": "gemini-2.5-flash",
            "messages": [{"role": "user", "content": "hi"}],
        }
    )
    results: list[BatchResult] = []
    await BatchRunner(client, concurrency=1).run([BatchRequest("r1", body, url)], results.append)
    expected = cost_from_usage("gemini-2.5-flash", usage).cost_usd
    assert [r.ok for r in results] == [True]
    assert client.usage.total_cost_usd == pytest.approx(expected, rel=1e-12)
    tally = CostTally()
    tally.add(results[0])
    assert tally.total == pytest.approx(expected, rel=1e-12)
    assert json.dumps(results[0].usage)  # still plain JSON for the output file and stats
