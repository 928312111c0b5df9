"""An assistant prefill, as the local server plays it: a model asked to continue a started answer.

A chat request whose last message is the assistant's, marked ``"prefix": true`` (the convention of
DeepSeek's chat prefix completion, Mistral and LiteLLM), asks the model to continue that text rather
than answer anew. The local server continues it: its answer is the rest of what it would have said
(the deterministic echo), so a stream cut part-way and continued elsewhere reads as the whole answer.
A server with ``disabled_features={"prefill"}`` refuses it with the 400 Claude 4.6 models answer; the
relay profile refuses it for the families the capabilities table says reject it. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._handlers import content_text

#: What a model that does not take a prefill answers (Claude 4.6, through an OpenAI-compatible API).
REFUSAL = "Prefilling assistant messages is not supported for this model."


def prefill_of(body: Mapping[str, Any]) -> str | None:
    """The text of the request's assistant prefill (its last message, ``"prefix": true``), or None."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    last = messages[-1]
    if not isinstance(last, dict) or last.get("role") != "assistant" or last.get("prefix") is not True:
        return None
    return content_text(last.get("content"))


def continued(answer: str, prefill: str) -> str:
    """What a model continuing ``prefill`` says: the rest of ``answer`` when it starts with the prefill
    (a model picks up where the text stopped), else the answer itself after it."""
    return answer[len(prefill) :] if answer.startswith(prefill) else answer
