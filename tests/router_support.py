"""Router test support: a fake endpoint for ``httpx2.MockTransport`` that answers a status or raises."""

from __future__ import annotations

import json

import httpx2

MESSAGES = [{"role": "user", "content": "hi"}]


class Host:
    """A fake endpoint answering ``status`` (a chat completion on 200), or raising ``fail`` when set."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.fail: BaseException | None = None
        self.seen = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.seen += 1
        if self.fail is not None:
            raise self.fail
        if self.status != 200:
            return httpx2.Response(self.status, json={"error": {"message": "no", "type": "server_error"}})
        return chat_answer(request)


def chat_answer(request: httpx2.Request) -> httpx2.Response:
    """A chat completion answering ``request`` with its own model and a fixed usage."""
    body = json.loads(request.content)
    message = {"role": "assistant", "content": "ok"}
    return httpx2.Response(
        200,
        json={
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        },
    )
