"""Structured outputs for the Responses API: ``text_format`` classes to request JSON, answers decoded.

The same schema and decoding as chat (:mod:`._completions`, :mod:`._tools`), in the Responses shapes:
the format sits in ``text.format`` and function tools are flat (``{"type": "function", "name": ...}``).
``responses.parse()`` and the ``responses.stream()`` helper both call :func:`parse_response`, so they
decode identically. No I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from ..types._parsed_response import (
    ParsedResponse,
    ParsedResponseFunctionToolCall,
    ParsedResponseOutputMessage,
    ParsedResponseOutputText,
)
from ._completions import is_rich_response_format, parse_content, response_format_param
from ._tools import PydanticFunctionTool

TextFormatT = TypeVar("TextFormatT")


def text_param(text: Mapping[str, Any] | None, text_format: object) -> dict[str, Any] | None:
    """The ``text`` request field with ``text_format``'s strict JSON schema as its ``format``.

    Raises:
        TypeError: ``text`` already has a ``format`` (as openai), or the class cannot be a schema.
    """
    if text_format is None:
        return None if text is None else dict(text)
    if text is not None and "format" in text:
        raise TypeError("Cannot mix and match text.format with text_format")
    param = response_format_param(text_format)
    assert param is not None and param.get("type") == "json_schema"
    schema = param["json_schema"]
    fmt = {"type": "json_schema", "strict": True, "name": schema["name"], "schema": schema["schema"]}
    return {**(text or {}), "format": fmt}


def responses_tools(tools: Iterable[Mapping[str, Any]] | None) -> list[Mapping[str, Any]] | None:
    """The tools in the Responses shape: ``pydantic_function_tool(...)`` (chat-shaped) made flat.

    Raises:
        TypeError: a chat-shaped function tool that ``pydantic_function_tool`` did not make (openai
            refuses it too: its arguments could not be decoded).
    """
    if tools is None:
        return None
    converted: list[Mapping[str, Any]] = []
    for tool in tools:
        if tool.get("type") != "function" or "function" not in tool:
            converted.append(tool)
            continue
        function = tool["function"]
        if not isinstance(function, PydanticFunctionTool):
            raise TypeError(
                "Expected Chat Completions function tool shape to be created using "
                "`holyclient.pydantic_function_tool()`"
            )
        flat = {
            "type": "function",
            "name": function["name"],
            "description": function.get("description"),
            "parameters": function["parameters"],
            "strict": function.get("strict") or False,
        }
        flat.update({key: value for key, value in function.items() if key not in flat})
        converted.append(PydanticFunctionTool(flat, function.model))
    return converted


def parse_text(text: str, text_format: object, phase: object = None) -> Any:
    """``text`` decoded into ``text_format``; ``None`` without a class or for a non-final ``phase``."""
    if phase is not None and phase != "final_answer":
        return None
    if not is_rich_response_format(text_format):
        return None
    return parse_content(text_format, text)  # type: ignore[arg-type]


def parse_arguments(tools: Iterable[Mapping[str, Any]] | None, name: str, arguments: str) -> object:
    """A function call's arguments decoded: the tool's model, JSON data for strict tools, else ``None``."""
    tool = next((t for t in tools or () if t.get("type") == "function" and t.get("name") == name), None)
    if tool is None:
        return None
    if isinstance(tool, PydanticFunctionTool):
        return tool.model.model_validate_json(arguments)
    if not tool.get("strict"):
        return None
    return json.loads(arguments)


def parse_response(
    response: ParsedResponse[Any], text_format: object, tools: Iterable[Mapping[str, Any]] | None
) -> ParsedResponse[Any]:
    """Fill each ``output_text``'s ``parsed`` and each function call's ``parsed_arguments``; return it.

    Raises:
        pydantic.ValidationError, json.JSONDecodeError: text or arguments that do not fit their class.
    """
    tool_list = list(tools or ())
    for item in response.output:
        if isinstance(item, ParsedResponseOutputMessage):
            phase = getattr(item, "phase", None)
            for part in item.content:
                if isinstance(part, ParsedResponseOutputText):
                    part.parsed = parse_text(part.text, text_format, phase)
        elif isinstance(item, ParsedResponseFunctionToolCall):
            item.parsed_arguments = parse_arguments(tool_list, item.name, item.arguments)
    return response
