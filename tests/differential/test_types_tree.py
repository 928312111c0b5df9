"""Typed apps import from ``<sdk>.types`` deep paths; the same code works unchanged through either SDK."""

from __future__ import annotations

import importlib
from typing import Any

from differential.conftest import Differential


def _types(client: Any, path: str) -> Any:
    """``openai.types.<path>`` or ``holyclient.types.<path>``, whichever SDK the client comes from."""
    sdk = type(client).__module__.split(".")[0]
    return importlib.import_module(f"{sdk}.types.{path}")


def _tools(client: Any) -> list[Any]:
    definition = _types(client, "shared_params").FunctionDefinition(
        name="get_weather",
        description="Weather for a city",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    tool = _types(client, "chat.chat_completion_tool_param").ChatCompletionToolParam
    return [tool(type="function", function=definition)]


def _chat_app(client: Any) -> Any:
    chat = _types(client, "chat")
    messages: list[Any] = [
        chat.ChatCompletionSystemMessageParam(role="system", content="be brief"),
        chat.ChatCompletionUserMessageParam(role="user", content="weather in Paris?"),
    ]
    completion = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=_tools(client))
    choice_type = _types(client, "chat.chat_completion").Choice
    message_type = _types(client, "chat.chat_completion_message").ChatCompletionMessage
    return {
        "completion": isinstance(completion, chat.ChatCompletion),
        "choice": isinstance(completion.choices[0], choice_type),
        "message": isinstance(completion.choices[0].message, message_type),
        "usage": isinstance(completion.usage, _types(client, "completion_usage").CompletionUsage),
        "result": completion,
    }


def test_deep_type_imports_build_requests_and_match_results_like_openai(differential: Differential) -> None:
    differential.check(_chat_app)


async def test_deep_type_imports_work_the_same_with_the_async_clients(differential: Differential) -> None:
    async def app(client: Any) -> Any:
        chat = _types(client, "chat")
        messages = [chat.ChatCompletionUserMessageParam(role="user", content="count to three")]
        stream = await client.chat.completions.create(model="gpt-4.1", messages=messages, stream=True)
        chunk_module = _types(client, "chat.chat_completion_chunk")
        kinds = []
        async for chunk in stream:
            kinds.append(
                [isinstance(chunk, chunk_module.ChatCompletionChunk)]
                + [isinstance(c, chunk_module.Choice) for c in chunk.choices]
            )
        return kinds

    await differential.acheck(app)


def test_responses_output_items_are_the_types_found_at_openai_paths(differential: Differential) -> None:
    def app(client: Any) -> Any:
        response = client.responses.create(model="gpt-4.1", input="say hi")
        message = _types(client, "responses.response_output_message").ResponseOutputMessage
        text = _types(client, "responses.response_output_text").ResponseOutputText
        first = response.output[0]
        return {
            "response": isinstance(response, _types(client, "responses").Response),
            "message": isinstance(first, message),
            "text": [isinstance(part, text) for part in first.content],
            "output_text": response.output_text,
        }

    differential.check(app)


async def test_responses_output_item_types_match_with_the_async_clients(differential: Differential) -> None:
    async def app(client: Any) -> Any:
        response = await client.responses.create(model="gpt-4.1", input="say hi")
        message = _types(client, "responses.response_output_message").ResponseOutputMessage
        return [isinstance(item, message) for item in response.output]

    await differential.acheck(app)
