"""What makes one local server differ from another: features switched off, sampling noise, a persona.

``holyclient doctor`` and ``holyclient compare`` are proved against the local server, so it must be able
to play a relay that lacks a feature (``disabled_features``), an endpoint whose answers vary a little from
call to call as sampled text does (``noise``), and a different model behind the same API (``persona``).
Pure functions of their inputs and a seeded ``random.Random``: no I/O.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Collection, Mapping
from typing import Any

#: Features that ``disabled_features`` can switch off. An endpoint switched off answers 404 as an unknown
#: URL; a request parameter switched off answers 400 "unsupported parameter", except ``include_usage``,
#: which is silently ignored (the stream ends without a usage chunk, as many relays do), and ``prefill``,
#: refused with the 400 a model that does not take an assistant prefill answers (see ``_prefill``).
FEATURES = frozenset(
    {
        "models",
        "chat",
        "embeddings",
        "stream",
        "include_usage",
        "tools",
        "json_object",
        "json_schema",
        "n",
        "logprobs",
        "input_tokens",
        "prefill",
    }
)
PERSONAS = ("default", "other")
#: Words that sampling noise swaps in: the text changes a little, as two samples of one model do.
_FILLERS = ("indeed", "well", "quite", "so", "really", "just")


def check_features(disabled: Collection[str]) -> None:
    unknown = sorted(set(disabled) - FEATURES)
    if unknown:
        raise ValueError(f"unknown feature(s) {unknown}; known: {sorted(FEATURES)}")


def unsupported_parameter(body: Mapping[str, Any], disabled: Collection[str]) -> str | None:
    """The first request parameter that a disabled feature rejects, or ``None``."""
    if not disabled:
        return None
    fmt = body.get("response_format")
    fmt_type = fmt.get("type") if isinstance(fmt, Mapping) else None
    checks = (
        ("stream", body.get("stream") is True, "stream"),
        ("tools", body.get("tools") is not None, "tools"),
        ("json_object", fmt_type == "json_object", "response_format"),
        ("json_schema", fmt_type == "json_schema", "response_format"),
        ("n", isinstance(body.get("n"), int) and body.get("n") != 1, "n"),
        ("logprobs", bool(body.get("logprobs")), "logprobs"),
    )
    for feature, used, param in checks:
        if used and feature in disabled:
            return param
    return None


def add_noise(text: str, rng: random.Random, noise: float) -> str:
    """``text`` with each word after the first replaced by a filler word with probability ``noise``."""
    if noise <= 0:
        return text
    words = text.split(" ")
    return " ".join(
        word if i == 0 or rng.random() >= noise else rng.choice(_FILLERS) for i, word in enumerate(words)
    )


def vary(
    content: str,
    body: Mapping[str, Any],
    user_text: str,
    persona: str,
    rng: random.Random | None,
    noise: float,
) -> str:
    """The default model's answer ``content`` as ``persona`` says it, with sampling ``noise`` on prose."""
    fmt = body.get("response_format")
    json_mode = isinstance(fmt, Mapping) and fmt.get("type") in ("json_object", "json_schema")
    if persona != "default":
        content = other_answer(user_text, json_mode)
    if rng is not None and not json_mode:
        content = add_noise(content, rng, noise)
    return content


def other_answer(user_text: str, json_mode: bool) -> str:
    """What a different model says: other wording, other JSON keys, more words."""
    if json_mode:
        return json.dumps({"answer": user_text, "confidence": "high"})
    return f"Certainly! Here is my reply to your message, which said: {user_text.upper()}."


def other_prompt_tokens(messages: list[Any], content_text: Any) -> int:
    """Prompt tokens as a model with another tokenizer counts them (about 3 characters a token)."""
    return sum(
        math.ceil(len(content_text(m.get("content"))) / 3) + 4 for m in messages if isinstance(m, dict)
    )


def logprobs_content(pieces: list[str]) -> dict[str, Any]:
    """A ``choices[].logprobs`` object for the given content pieces (fixed, plausible values)."""
    return {
        "content": [
            {"token": piece, "logprob": -0.25, "bytes": list(piece.encode()), "top_logprobs": []}
            for piece in pieces
        ],
        "refusal": None,
    }
