"""The JSON schema a prompt carries, for the local server's JSON mode. No I/O.

A caller of JSON mode (``response_format`` / ``text.format`` ``json_object``) says in the prompt what the
object must look like: instructor's ``JSON`` mode, ``parse()``'s fallback and LangChain's ``json_mode``
users write a JSON schema there. The server's model follows it, as a real model asked to does: its answer
is an instance of that schema (else ``{"echo": <text>}``).
"""

from __future__ import annotations

import json
from typing import Any

JSON = dict[str, Any]
_JSON_DECODER = json.JSONDecoder()


def prompt_schema(texts: list[str]) -> JSON | None:
    """A JSON schema written in the prompt (an object with ``properties``), which the model follows."""
    for text in texts:
        start = text.find("{")
        for _ in range(50):
            if start < 0:
                break
            try:
                value, _end = _JSON_DECODER.raw_decode(text, start)
            except ValueError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("properties"), dict):
                return value
            start = text.find("{", start + 1)
    return None
