"""The one check of a chat request's ``messages``, shared by ``holyclient batch``/``compare`` (through
:mod:`holyclient.batch._bodies`) and ``holyclient estimate`` (:mod:`holyclient._cli._request_files`).

It returns the problem as text instead of raising, so each caller raises its own error type with its
own ``FILE:LINE`` prefix. No imports: ``holyclient estimate --help`` and the batch reader stay light.
"""

from __future__ import annotations

from typing import Any


def kind(value: Any) -> str:
    """The JSON type of ``value`` as a message says it ("an object", "a list", ...)."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


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
        if not isinstance(message.get("role"), str) or not message["role"]:
            return f"field '{where}.role' is missing or not a string"
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            return f"field '{where}.content' must be a string, a list of parts or null, got {kind(content)}"
        if isinstance(content, list):
            for part_index, part in enumerate(content):
                if not isinstance(part, dict):
                    return f"field '{where}.content[{part_index}]' must be an object, got {kind(part)}"
    return None
