"""The core drop-in promise, proven differentially: same app code, same requests, same results."""

from __future__ import annotations

from typing import Any

from differential.conftest import Differential

USER = [{"role": "user", "content": "ping pong"}]


def test_a_plain_chat_completion_matches_openai(differential: Differential) -> None:
    differential.check(lambda c: c.chat.completions.create(model="gpt-4.1", messages=USER, seed=1))


async def test_a_plain_async_chat_completion_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        return await c.chat.completions.create(model="gpt-4.1", messages=USER)

    await differential.acheck(app)


def test_models_list_iterates_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        page = c.models.list()
        return {
            "ids": [m.id for m in page],
            "has_next": page.has_next_page(),
            "retrieved": c.models.retrieve("gpt-4.1"),
        }

    differential.check(app)


async def test_async_models_list_supports_async_for_and_await_like_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        page = await c.models.list()
        return {"ids": [m.id async for m in c.models.list()], "page": [m.id for m in page.data]}

    await differential.acheck(app)


def test_every_response_carries_the_request_id_and_serializes_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        completion = c.chat.completions.create(model="gpt-4.1", messages=USER)
        return {
            "has_request_id": completion._request_id.startswith("req_"),
            "to_dict": completion.to_dict(),
            "to_json": completion.to_json() == completion.to_json(indent=2),
        }

    differential.check(app)
