"""``holyclient.types`` offers the types apps commonly import from ``openai.types``, under the same names."""

from __future__ import annotations

import openai.types
import openai.types.chat
import pytest

import holyclient.types
import holyclient.types.chat

CHAT = [
    "ChatCompletion",
    "ChatCompletionAssistantMessageParam",
    "ChatCompletionChunk",
    "ChatCompletionContentPartTextParam",
    "ChatCompletionDeveloperMessageParam",
    "ChatCompletionMessage",
    "ChatCompletionMessageParam",
    "ChatCompletionMessageToolCall",
    "ChatCompletionMessageToolCallParam",
    "ChatCompletionNamedToolChoiceParam",
    "ChatCompletionStreamOptionsParam",
    "ChatCompletionSystemMessageParam",
    "ChatCompletionToolChoiceOptionParam",
    "ChatCompletionToolMessageParam",
    "ChatCompletionToolParam",
    "ChatCompletionUserMessageParam",
]
TOP = ["CompletionUsage", "CreateEmbeddingResponse", "Embedding", "Model"]


@pytest.mark.parametrize("name", CHAT)
def test_chat_types_are_importable_where_openai_has_them(name: str) -> None:
    assert hasattr(openai.types.chat, name), f"openai.types.chat has no {name}: fix the list"
    assert getattr(holyclient.types.chat, name) is getattr(holyclient.types, name)


@pytest.mark.parametrize("name", TOP)
def test_top_level_types_are_importable_where_openai_has_them(name: str) -> None:
    assert hasattr(openai.types, name)
    assert hasattr(holyclient.types, name)


def test_types_all_is_sorted_and_resolves() -> None:
    assert holyclient.types.__all__ == sorted(holyclient.types.__all__)
    for name in holyclient.types.__all__:
        assert getattr(holyclient.types, name) is not None


def test_page_classes_have_openai_public_names() -> None:
    import openai.pagination

    import holyclient.pagination

    for name in ("SyncPage", "AsyncPage", "SyncCursorPage", "AsyncCursorPage"):
        assert hasattr(openai.pagination, name) and hasattr(holyclient.pagination, name), name
