"""A deterministic foreign tokenizer: the local server's ``billing="foreign"`` mode.

A relay bills what its upstream model counts, with a tokenizer holyclient does not have. To prove that
holyclient's ranges and calibration hold in that case, the local server can bill prompts with this
tokenizer: standard library only, deterministic, and deliberately unlike ``o200k_base``. Against
``o200k_base`` it lands where the published Claude measurements do: about 1.2x for English prose,
1.4x for code, 1.3x for JSON and 1.6-2.1x for Chinese, with per-request scatter.

Rules: an ASCII word costs one token per 6 letters (rounded up), a run of CJK characters 1.6 tokens per
character, a run of 2+ spaces one token per 4, a single space nothing, a 1-2 digit group, a newline
and any other character one token each. A chat request adds 4 tokens per message, 3 to prime the reply,
and its tool definitions as their JSON text plus a 300-token tool-use prompt (Claude bills one of 346).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["foreign_prompt_tokens", "foreign_tokens"]

#: Tokens a request with tools bills for the relay's tool-use system prompt (Claude's is 346).
_TOOL_PROMPT = 300

_PIECE = re.compile(
    r"[A-Za-z]+|[0-9]{1,2}|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]+|\n| {2,}|\s|[^\sA-Za-z0-9]"
)


def foreign_tokens(text: str) -> int:
    """The foreign tokenizer's count of ``text``."""
    n = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        first = piece[0]
        if first.isascii() and first.isalpha():
            n += math.ceil(len(piece) / 6)
        elif first >= "\u3040":
            n += math.ceil(len(piece) * 1.6)
        elif first == " ":
            n += math.ceil(len(piece) / 4) if len(piece) > 1 else 0
        else:
            n += 1
    return n


def foreign_prompt_tokens(body: dict[str, Any], content_text: Any) -> int:
    """What a foreign-billing relay charges as ``prompt_tokens`` for a chat request body."""
    tokens = 3
    for message in body.get("messages") or ():
        if isinstance(message, dict):
            tokens += 4 + foreign_tokens(content_text(message.get("content")))
    tools = body.get("tools")
    if tools:
        tokens += _TOOL_PROMPT + foreign_tokens(json.dumps(tools))
    return tokens
