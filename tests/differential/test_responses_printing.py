"""A ``Response`` prints as openai's: its tools as ``FunctionTool(...)``, ``WebSearchTool(...)``..., its
reasoning as ``Reasoning(...)``, not as plain dicts.

The first tests are openai-python's own examples (``examples/responses/streaming.py``,
``streaming_tools.py``, ``structured_outputs_tools.py``), their app code run through both SDKs against the
local server and compared as printed: ``str``/``repr``/dumps and the ``rich.print`` the examples use. The
last ones feed both SDKs a response in the shape the API answers, echoing every kind of tool.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import httpx2
import openai
import pydantic
import rich.pretty

import holyclient
from differential.conftest import Differential
from differential.mock_pair import async_clients, sync_clients
from differential.test_model_printing import _CREATED, _SERVER_IDS, shown

MODEL = "gpt-4o-2024-08-06"  # the examples' model
ORDERS = "look up all my orders in november of last year that were fulfilled but not delivered on time"


# -- the examples' models (examples/responses/streaming.py and the two tools examples) --


class Step(pydantic.BaseModel):
    explanation: str
    output: str


class MathResponse(pydantic.BaseModel):
    steps: list[Step]
    final_answer: str


class Table(StrEnum):
    orders = "orders"
    customers = "customers"


class Column(StrEnum):
    id = "id"
    status = "status"
    delivered_at = "delivered_at"


class Operator(StrEnum):
    eq = "="
    lt = "<"


class DynamicValue(pydantic.BaseModel):
    column_name: str


class Condition(pydantic.BaseModel):
    column: str
    operator: Operator
    value: str | int | DynamicValue


class Query(pydantic.BaseModel):
    table_name: Table
    columns: list[Column]
    conditions: list[Condition]
    order_by: str


def printed(value: Any) -> dict[str, Any]:
    """What ``rich.print`` (the examples' output), ``print`` and the dumps show of ``value``."""
    pretty = rich.pretty.pretty_repr(value, max_width=100)
    return {"rich": _SERVER_IDS.sub("<id>", _CREATED.sub(r"\g<1>0", pretty)), **shown(value)}


def sdk_of(client: Any) -> Any:
    """The module whose ``pydantic_function_tool`` the example calls: ``openai`` or ``holyclient``."""
    return openai if isinstance(client, (openai.OpenAI, openai.AsyncOpenAI)) else holyclient


def test_openai_streaming_example_prints_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.stream(input="solve 8x + 31 = 2", model=MODEL, text_format=MathResponse) as stream:
            events = [printed(event) for event in stream if "output_text" in event.type]
        return {"events": events, "final": printed(stream.get_final_response())}

    differential.check(app)


def test_openai_streaming_tools_example_prints_each_tool_as_a_model(differential: Differential) -> None:
    def app(c: Any) -> Any:
        tools = [sdk_of(c).pydantic_function_tool(Query)]
        with c.responses.stream(model=MODEL, input=ORDERS, tools=tools) as stream:
            return [printed(event) for event in stream]

    differential.check(app)


async def test_async_streaming_tools_example_prints_each_tool_as_a_model(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        tools = [sdk_of(c).pydantic_function_tool(Query)]
        async with c.responses.stream(model=MODEL, input=ORDERS, tools=tools) as stream:
            return [printed(event) async for event in stream]

    await differential.acheck(app)


def test_openai_structured_outputs_tools_example_prints_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        tools = [sdk_of(c).pydantic_function_tool(Query)]
        # the local server calls a function when asked to (the example leaves it to the model, which does)
        response = c.responses.parse(model=MODEL, input=ORDERS, tools=tools, tool_choice="required")
        function_call = response.output[0]
        assert function_call.type == "function_call"
        assert isinstance(function_call.parsed_arguments, Query)
        return {"response": printed(response), "table name": function_call.parsed_arguments.table_name}

    differential.check(app)


# -- a response as the API sends it, echoing every kind of tool --

FUNCTION = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {"type": "function", "name": "get_weather", "description": None, "parameters": FUNCTION, "strict": True},
    {
        "type": "web_search",
        "filters": None,
        "search_context_size": "medium",
        "user_location": {
            "type": "approximate",
            "city": None,
            "country": "US",
            "region": None,
            "timezone": None,
        },
    },
    {
        "type": "file_search",
        "vector_store_ids": ["vs_1"],
        "filters": None,
        "max_num_results": 20,
        "ranking_options": {"ranker": "auto", "score_threshold": 0.0},
    },
    {
        "type": "mcp",
        "server_label": "wiki",
        "server_url": "https://mcp.example/mcp",
        "require_approval": "never",
    },
    {"type": "code_interpreter", "container": {"type": "auto", "file_ids": []}},
    {
        "type": "image_generation",
        "background": "auto",
        "model": "gpt-image-1",
        "output_format": "png",
        "input_image_mask": {"file_id": "file_1"},
    },
    {
        "type": "custom",
        "name": "code_exec",
        "description": "Executes code",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: WORD"},
    },
    {"type": "web_search_preview", "search_context_size": "medium", "user_location": None},
    {"type": "local_shell"},
    {"type": "computer_use_preview", "display_width": 1024, "display_height": 768, "environment": "browser"},
]
ANSWER = {
    "id": "resp_67ccd2bed1ec8190b14f964abc054267",
    "object": "response",
    "created_at": 1741476542,
    "status": "incomplete",
    "error": None,
    "incomplete_details": {"reason": "max_output_tokens"},
    "instructions": None,
    "max_output_tokens": 16,
    "model": "gpt-4.1-2025-04-14",
    "output": [
        {
            "type": "message",
            "id": "msg_67ccd2bf17f0819081ff3bb2cf6508e6",
            "status": "incomplete",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "In a peaceful grove", "annotations": []}],
        }
    ],
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "reasoning": {"effort": None, "summary": None},  # what the API sends for a model without reasoning
    "store": True,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": {"type": "function", "name": "get_weather"},
    "tools": TOOLS,
    "conversation": {"id": "conv_1"},
    "top_p": 1.0,
    "truncation": "disabled",
    "usage": {
        "input_tokens": 36,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 16,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 52,
    },
    "user": None,
    "metadata": {},
}


def answer(body: dict[str, Any]) -> Any:
    return lambda request: httpx2.Response(200, json=body)


def test_a_response_echoing_every_kind_of_tool_prints_as_openai() -> None:
    theirs, ours = sync_clients(answer(ANSWER))
    expected, got = theirs.responses.retrieve("resp_1"), ours.responses.retrieve("resp_1")
    assert printed(got) == printed(expected)
    assert [type(tool).__name__ for tool in got.tools or []] == [type(t).__name__ for t in expected.tools]
    assert (
        repr(got.reasoning)
        == "Reasoning(context=None, effort=None, generate_summary=None, mode=None, summary=None)"
    )


async def test_an_async_response_with_reasoning_and_tool_choice_prints_as_openai() -> None:
    body = {
        **ANSWER,
        "reasoning": {"effort": "low", "summary": "auto"},
        "tool_choice": {"type": "file_search"},
    }
    theirs, ours = async_clients(answer(body))
    expected, got = await theirs.responses.retrieve("resp_1"), await ours.responses.retrieve("resp_1")
    assert printed(got) == printed(expected)
    assert type(got.tool_choice).__name__ == "ToolChoiceTypes"


def test_a_tool_of_a_new_kind_is_kept_with_every_field_and_the_rest_still_print_as_openai() -> None:
    """openai calls a tool of a kind it does not know a ``FunctionTool`` (its union's first member);
    holyclient keeps it as a ``ResponseTool`` with the fields the server sent, and never fails on it."""
    new = {"type": "hologram", "projector": "north"}
    incomplete = {"type": "mcp"}  # no server_label: the generated Mcp refuses it, it is kept as sent
    theirs, ours = sync_clients(answer({**ANSWER, "tools": [*TOOLS, new, incomplete]}))
    expected, got = theirs.responses.retrieve("resp_1"), ours.responses.retrieve("resp_1")
    assert got.tools is not None and expected.tools is not None
    assert [repr(t) for t in got.tools[: len(TOOLS)]] == [repr(t) for t in expected.tools[: len(TOOLS)]]
    assert repr(got.tools[-2]) == "ResponseTool(type='hologram', projector='north')"
    assert got.tools[-2].projector == "north" and got.tools[-1].type == "mcp"
    assert got.model_dump(mode="json", by_alias=True)["tools"][-2:] == [new, incomplete]
