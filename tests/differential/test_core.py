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
