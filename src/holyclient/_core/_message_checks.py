"""The one check of a chat request's ``messages``, shared by ``holyclient batch``/``compare`` (through
:mod:`holyclient.batch._bodies`), ``holyclient estimate`` (:mod:`holyclient._cli._request_files`) and
the local server (:mod:`holyclient.testing._handlers`, which answers 400 as the real API does).

It returns the problem as text instead of raising, so each caller raises its own error type with its
own ``FILE:LINE`` prefix. No imports: ``holyclient estimate --help``, the batch reader and the local
server (standard library only) stay light.
"""

from __future__ import annotations

from typing import Any

#: The roles the Chat Completions API accepts, in the order its own error message lists them.
ROLES = ("system", "developer", "user", "assistant", "tool", "function")
#: Besides ``content``, what an assistant message may carry instead (a tool call, a refusal, audio).
ASSISTANT_CONTENT = ("tool_calls", "refusal", "audio", "function_call")


def kind(value: Any) -> str:
    """The JSON type of ``value`` as a message says it ("an object", "a list", ...)."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def message_problem(message: dict[str, Any]) -> tuple[str, str, str] | None:
    """What the API refuses in one message object: ``(field, reason, error code)``, or None.

    The field is ``role`` or ``content``, relative to the message; the code is the API's own
    (``invalid_value`` / ``missing_required_parameter``) so the local server can answer as it does.
    """
    role = message.get("role")
    if not isinstance(role, str) or not role:
        return "role", "is missing or not a string", "missing_required_parameter"
    if role not in ROLES:
        return "role", f"must be one of {', '.join(ROLES)}, got {role!r}", "invalid_value"
    if message.get("content") is not None:
        return None
    if role == "assistant":
        if any(message.get(name) for name in ASSISTANT_CONTENT):
            return None
        alternatives = "content, tool_calls, refusal, audio or function_call"
        return (
            "content",
            f"is missing (an assistant message needs {alternatives})",
            "missing_required_parameter",
        )
    misnamed = next((name for name in ("text", "message", "body") if name in message), None)
    hint = f" (found {misnamed!r}: the field is 'content')" if misnamed else ""
    return "content", f"is missing{hint}", "missing_required_parameter"


def messages_problem(messages: Any, prefix: str, *, allow_empty: bool = False) -> str | None:
    """What is wrong with ``messages`` (``field '...' ...``), or None.

    ``allow_empty``: an empty list passes (``holyclient estimate`` prices a request's overhead alone; a
    request to send needs at least one message).
    """
    if not isinstance(messages, list):
        return f"field '{prefix}messages' must be a {'' if allow_empty else 'non-empty '}list, got {kind(messages)}"
    if not messages and not allow_empty:
        return f"field '{prefix}messages' must be a non-empty list"
    for index, message in enumerate(messages):
        where = f"{prefix}messages[{index}]"
        if not isinstance(message, dict):
            return f"field '{where}' must be an object, got {kind(message)}"
        if (problem := message_problem(message)) is not None:
            name, reason, _ = problem
            return f"field '{where}.{name}' {reason}"
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            return f"field '{where}.content' must be a string, a list of parts or null, got {kind(content)}"
        if isinstance(content, list):
            for part_index, part in enumerate(content):
                if not isinstance(part, dict):
                    return f"field '{where}.content[{part_index}]' must be an object, got {kind(part)}"
    return None
