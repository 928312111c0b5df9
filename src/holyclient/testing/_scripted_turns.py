"""Scripted turns: the local server's exact answers, one per chat or Responses request, in order. No I/O.

For a test that needs an agent to take exact steps (call this tool with these arguments, then answer
this), script the turns instead of relying on the tool policy (:mod:`._tool_policy`)::

    with LocalServer(script=[Turn.tool_call("get_weather", {"city": "Paris"}), Turn.text("Sunny.")]) as s:
        ...  # the first request is answered with the call, the second with the text

    server.script(Turn.json({"name": "Ada"}))  # the next request's answer, at any time

Each ``/v1/chat/completions`` or ``/v1/responses`` request that passes validation takes the next turn
(streamed or not, as asked); once the script is used up the server answers by its rules again. Usage
is counted as for any answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Turn"]


@dataclass(frozen=True)
class Turn:
    """One scripted answer: a text, or a call of a tool. Build it with the class methods."""

    content: str = ""
    tool: str | None = None
    arguments: str = "{}"
    finish_reason: str = "stop"

    @classmethod
    def text(cls, content: str, *, finish_reason: str = "stop") -> Turn:
        """The assistant answers ``content`` (``finish_reason`` ``"length"`` plays a cut answer)."""
        if not isinstance(content, str):
            raise TypeError(f"a text turn takes a str, not {type(content).__name__}")
        return cls(content=content, finish_reason=finish_reason)

    @classmethod
    def json(cls, value: Any) -> Turn:
        """The assistant answers ``value`` as JSON text (a JSON-mode or ``json_schema`` answer)."""
        return cls(content=json.dumps(value))

    @classmethod
    def tool_call(cls, name: str, arguments: Mapping[str, Any] | str | None = None) -> Turn:
        """The assistant calls the function ``name`` with ``arguments`` (a mapping, or JSON text as is)."""
        if not isinstance(name, str) or not name:
            raise ValueError("a tool call turn needs the function's name")
        text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments or {}))
        return cls(tool=name, arguments=text, finish_reason="tool_calls")
