"""Function tools declared as pydantic models, and decoding a tool call's arguments.

A :class:`PydanticFunctionTool` is the ``function`` dict of the tool *and* remembers its model, so
it travels through request building as ordinary JSON while ``parse()`` can still find the class.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import pydantic

from ._schema import to_strict_json_schema


class PydanticFunctionTool(dict[str, Any]):
    """A function definition (``name``, ``parameters``, ``strict`` ...) that knows its pydantic model."""

    model: type[pydantic.BaseModel]

    def __init__(self, definition: Mapping[str, Any], model: type[pydantic.BaseModel]) -> None:
        super().__init__(definition)
        self.model = model


def pydantic_function_tool(
    model: type[pydantic.BaseModel], *, name: str | None = None, description: str | None = None
) -> dict[str, Any]:
    """A strict function tool whose parameters are ``model``'s schema, for ``tools=[...]``.

    Args:
        model: the arguments the function takes, as a pydantic model.
        name: the function name; the class name by default.
        description: the function description; the class docstring by default.

    Returns:
        ``{"type": "function", "function": {...}}``; with ``parse()`` the tool call's
        ``function.parsed_arguments`` is an instance of ``model``.
    """
    if description is None:
        description = model.__doc__  # not inspect.getdoc(): that would fall back to pydantic's docstring
    function = PydanticFunctionTool(
        {"name": name or model.__name__, "strict": True, "parameters": to_strict_json_schema(model)}, model
    )
    if description is not None:
        function["description"] = description
    return {"type": "function", "function": function}


def validate_input_tools(tools: Iterable[Mapping[str, Any]] | None) -> list[Mapping[str, Any]] | None:
    """The tools as a list, checked to be strict function tools (the only kind ``parse()`` can decode).

    Raises:
        ValueError: naming the first tool that is not a strict function.
    """
    if tools is None:
        return None
    checked = list(tools)
    for tool in checked:
        if tool.get("type") != "function":
            raise ValueError(
                f"Only `function` tools can be parsed automatically; received a {tool.get('type')!r} tool"
            )
        function = tool.get("function") or {}
        if function.get("strict") is not True:
            raise ValueError(
                f"`{function.get('name')}` is not strict. Only `strict` function tools can be auto-parsed"
            )
    return checked


def find_tool(tools: Iterable[Mapping[str, Any]], name: str | None) -> Mapping[str, Any] | None:
    """The ``function`` definition of the tool called ``name``, if one was sent."""
    for tool in tools:
        if tool.get("type") == "function":
            function = tool.get("function")
            if isinstance(function, Mapping) and function.get("name") == name:
                return function
    return None


def is_parseable_tool(tool: Mapping[str, Any]) -> bool:
    if tool.get("type") != "function":
        return False
    function = tool.get("function")
    return isinstance(function, PydanticFunctionTool) or (
        isinstance(function, Mapping) and function.get("strict") is True
    )


def parse_tool_arguments(
    tools: Iterable[Mapping[str, Any]], name: str | None, arguments: str | None
) -> object:
    """A tool call's arguments decoded: the tool's model, JSON data for strict tools, else ``None``.

    Raises:
        pydantic.ValidationError: when a pydantic tool's arguments do not fit its model.
        json.JSONDecodeError: when a strict tool's arguments are not JSON.
    """
    function = find_tool(tools, name)
    if function is None:
        return None
    if isinstance(function, PydanticFunctionTool):
        return function.model.model_validate_json(arguments or "")
    if function.get("strict") is not True:
        return None
    return json.loads(arguments or "")
