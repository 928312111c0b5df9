"""Provider behaviour the local server plays for models that are not OpenAI's. No I/O.

Relays serve DeepSeek, Claude and Gemini behind the OpenAI API, with fields OpenAI does not define.
A model whose name contains ``"reasoner"`` (``deepseek-reasoner``) answers as DeepSeek's thinking mode:

* the assistant message carries ``reasoning_content`` (``"Thinking about: <text>"``), streamed as
  ``reasoning_content`` deltas before the content;
* a request whose assistant tool-call message comes back *without* its ``reasoning_content`` is refused
  with a 400, as DeepSeek refuses a tool loop that drops it -- so a client that loses the field fails.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def is_reasoner(model: Any) -> bool:
    return isinstance(model, str) and "reasoner" in model


def reasoning_for(body: JSON, user_text: str) -> str | None:
    """The ``reasoning_content`` of the answer, or ``None`` for a model that does not reason aloud."""
    return f"Thinking about: {user_text}" if is_reasoner(body.get("model")) else None


def lost_reasoning(body: JSON) -> tuple[str, str] | None:
    """``(message, param)`` of the 400 when a reasoner's tool-call message lost its ``reasoning_content``."""
    if not is_reasoner(body.get("model")):
        return None
    for i, message in enumerate(body.get("messages") or []):
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and message.get("tool_calls")
            and not message.get("reasoning_content")
        ):
            return (
                f"Missing `reasoning_content` field in the assistant message at message index {i}",
                f"messages[{i}].reasoning_content",
            )
    return None
