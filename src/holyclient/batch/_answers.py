"""Reading a 2xx answer of any Batch API endpoint: its JSON, a check of its shape, its usage.

The batch writes the server's body as it came, so the answer is parsed once, with ``json.loads``, and
only its shape is checked (``choices`` for chat and completions, ``data`` for embeddings, ``output``
for responses, ``results`` for moderations): building a pydantic model per answer would cost more CPU
than the rest of the request. An answer that fails the check goes through the client's own
:func:`~holyclient._core._parse.parse_model`, so its error is the one a plain call raises (retryable when
the body was not JSON at all, redacted).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from .._constants import (
    CHAT_COMPLETIONS_URL,
    COMPLETIONS_URL,
    EMBEDDINGS_URL,
    MODERATIONS_URL,
    RESPONSES_URL,
)
from .._core import parse_model
from .._exceptions import APIResponseValidationError

#: The list each endpoint's answer must hold (chat and completions ``choices``, embeddings ``data``, the
#: Responses API ``output``, moderations ``results``): checked on the parsed JSON, no model built.
_KEYS = {
    CHAT_COMPLETIONS_URL: "choices",
    COMPLETIONS_URL: "choices",
    EMBEDDINGS_URL: "data",
    RESPONSES_URL: "output",
    MODERATIONS_URL: "results",
}


@functools.cache
def _shape(url: str) -> type[Any]:
    """A pydantic model of the answer's shape, built only to raise a bad answer's error as a plain call
    would (pydantic is not imported by a batch whose answers are all good)."""
    from pydantic import create_model

    fields: dict[str, Any] = {_KEYS[url]: (list[Any], ...)}
    model: type[Any] = create_model(f"_{_KEYS[url].title()}", **fields)
    return model


def read_answer(url: str, content: bytes, exchange: Callable[[], tuple[Any, Any]]) -> dict[str, Any]:
    """The parsed body of a 2xx answer to ``url``; ``exchange()`` gives the httpx2 request and response
    to build the error from (only called for a bad answer).

    Raises:
        APIResponseValidationError: the body is not JSON (retryable) or not that endpoint's answer.
    """
    try:
        raw = json.loads(content)
    except ValueError:
        raw = None
    if isinstance(raw, dict) and isinstance(raw.get(_KEYS[url]), list):
        return raw
    request, response = exchange()
    parse_model(_shape(url), content, response, request=request)  # raises the client's error
    raise APIResponseValidationError(  # pragma: no cover - pydantic accepted what json.loads refused
        f"Unexpected response shape for {url}", response=response, body=None, request=None
    )


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0  # not bool (an int subclass), not a float


def usage_of(raw: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer's ``usage`` in the chat completion's terms (``prompt_tokens``, ``completion_tokens``,
    ``total_tokens`` and the details that change the price: cached and audio prompt tokens, reasoning
    and audio output tokens, DeepSeek's ``prompt_cache_hit_tokens``): the Responses API's
    ``input_tokens``/``output_tokens`` and their details are renamed, embeddings get
    ``completion_tokens: 0``, and anything that is not a count is left out.

    The details are kept because the tracker prices by them (:func:`holyclient.pricing.billed_tokens`):
    a Gemini answer that reports its reasoning beside ``completion_tokens`` is billed for it."""
    usage = raw.get("usage")
    if type(usage) is not dict and not isinstance(usage, Mapping):  # a JSON object: a dict, checked first
        return None
    responses = "input_tokens" in usage and "prompt_tokens" not in usage
    prompt = _int(usage.get("input_tokens" if responses else "prompt_tokens"))
    completion = _int(usage.get("output_tokens" if responses else "completion_tokens"))
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": _int(usage.get("total_tokens")) or prompt + completion,
    }
    for side, names in _DETAILS.items():
        details = usage.get(names[responses])
        if details is None:  # an embedding's, and most answers' second: nothing to read
            continue
        counts = (
            {name: _int(details.get(name)) for name in _PRICED[side] if _int(details.get(name))}
            if isinstance(details, Mapping)
            else None
        )
        if counts:
            out[side] = counts
    if _int(usage.get("prompt_cache_hit_tokens")):
        out["prompt_cache_hit_tokens"] = _int(usage.get("prompt_cache_hit_tokens"))
    return out


#: Each details object in the chat completion's terms, and its name (chat, Responses API).
_DETAILS = {
    "prompt_tokens_details": ("prompt_tokens_details", "input_tokens_details"),
    "completion_tokens_details": ("completion_tokens_details", "output_tokens_details"),
}
#: The detail counts that change what an answer costs.
_PRICED = {
    "prompt_tokens_details": ("cached_tokens", "audio_tokens"),
    "completion_tokens_details": ("reasoning_tokens", "audio_tokens"),
}
