"""Which tool the local server's model calls: a policy an agent loop can finish. No I/O.

Each request is a turn of a conversation; "this turn" is what follows the last user message. With
function tools in the request (chat ``tools``, Responses flat function tools):

* ``tool_choice`` ``"none"``: a text answer;
* ``tool_choice`` naming a function: a call of that function, every time (``finish_reason`` ``"stop"``,
  as OpenAI ends a forced named call);
* ``tool_choice`` ``"required"``: a call every turn -- until a tool result is in this turn, a
  **function tool** (one the last user message names, else the first that is not an output tool); once
  a tool result is in, the **output tool** (a tool named ``final_result*`` / ``final_answer`` /
  ``final_output``, as pydantic-ai and others name theirs, else the last tool not called this turn), so
  an agent with tools and a structured output calls a tool, then gives its output, and stops;
* ``tool_choice`` ``"auto"`` or absent: a call of a tool the last user message names, until a tool
  result is in this turn; then (and when no tool is named) the final answer in text.

A caller that needs exact turns instead scripts them (``LocalServer(script=...)``, :mod:`._scripted_turns`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

JSON = dict[str, Any]

#: Names (or name prefixes) frameworks give the tool that carries the final structured output.
OUTPUT_TOOL_PREFIXES = ("final_result", "final_answer", "final_output")


def is_output_tool(name: str) -> bool:
    return name.startswith(OUTPUT_TOOL_PREFIXES)


def choose(
    functions: Sequence[JSON], choice: Any, prompt: str, *, tool_result: bool, called: set[str]
) -> tuple[JSON, str] | None:
    """The function to call and the ``finish_reason``, or ``None`` for a text answer.

    Args:
        functions: the request's function tools (each with a ``name``), in order.
        choice: the request's ``tool_choice`` (``None`` when absent; a dict names a function).
        prompt: the last user message's text.
        tool_result: whether a tool result is in this turn.
        called: the functions called this turn.
    """
    if not functions or choice == "none":
        return None
    if isinstance(choice, dict) and choice.get("type", "function") != "function":
        choice = "auto"  # a built-in tool (file search ...): the function tools as under "auto"
    if isinstance(choice, dict):
        wanted = choice.get("name") or (choice.get("function") or {}).get("name")
        found = next((f for f in functions if f["name"] == wanted), None)
        return (found if found is not None else {"name": str(wanted)}), "stop"
    if choice == "required":
        if tool_result:
            return _output_tool(functions, called), "tool_calls"
        named = _named(functions, prompt)
        if named is not None:
            return named, "tool_calls"
        plain = [f for f in functions if not is_output_tool(f["name"])]
        return (plain or list(functions))[0], "tool_calls"
    if tool_result:
        return None  # "auto" after a tool result: the final answer, or clients would loop forever
    named = _named(functions, prompt)
    return (named, "tool_calls") if named is not None else None


def _named(functions: Sequence[JSON], prompt: str) -> JSON | None:
    return next((f for f in functions if f["name"] in prompt), None)


def _output_tool(functions: Sequence[JSON], called: set[str]) -> JSON:
    output = next((f for f in functions if is_output_tool(f["name"])), None)
    if output is not None:
        return output
    fresh = [f for f in functions if f["name"] not in called]
    return (fresh or list(functions))[-1]


# -- this turn, in each API's shape ---------------------------------------------------------------
def chat_turn(messages: Sequence[Any]) -> tuple[bool, set[str]]:
    """(a tool result is in this turn, the functions called this turn) of chat ``messages``."""
    result, called = False, set[str]()
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            break
        if role in ("tool", "function"):
            result = True
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                called.add(function["name"])
    return result, called


def responses_turn(items: Any) -> tuple[bool, set[str]]:
    """As :func:`chat_turn`, for a Responses ``input`` (a string is a first turn)."""
    result, called = False, set[str]()
    if not isinstance(items, list):
        return result, called
    for item in reversed(items):
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            break
        if kind == "function_call_output":
            result = True
        elif kind == "function_call" and isinstance(item.get("name"), str):
            called.add(item["name"])
    return result, called
