"""Request bodies of the five Batch API endpoints, checked as strictly as the API checks them.

Each endpoint has its own required fields and types (chat ``messages``, embeddings and moderations
``input``, completions ``prompt``, responses ``input``); what they share -- finite numbers, ranges,
positive integers, no ``stream``, a ``model`` string -- is checked once here. A check raises
:class:`InputLineError` naming the field; nothing about the model (known, fits) is decided here
(that is :mod:`._checks`, against the price table).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .._constants import (
    CHAT_COMPLETIONS_URL,
    COMPLETIONS_URL,
    EMBEDDINGS_URL,
    MODERATIONS_URL,
    RESPONSES_URL,
)
from .._core import kind, messages_problem

#: Inputs one embeddings request may hold (OpenAI's limit).
MAX_EMBEDDING_INPUTS = 2048


class InputLineError(ValueError):
    """One input line is not a valid batch request."""


#: The most choices one request may ask for (OpenAI's limit).
_MAX_N = 128
#: Number fields and their allowed range (OpenAI's).
_RANGES = {
    "temperature": (0.0, 2.0),
    "top_p": (0.0, 1.0),
    "presence_penalty": (-2.0, 2.0),
    "frequency_penalty": (-2.0, 2.0),
}
#: Integer fields that must be at least 1 when given, per endpoint (completions allow ``max_tokens: 0``
#: with ``echo``); the others' integers are checked by their endpoint's own rules.
_POSITIVE_INTS: dict[str, tuple[str, ...]] = {
    CHAT_COMPLETIONS_URL: ("max_tokens", "max_completion_tokens", "n"),
    COMPLETIONS_URL: ("n", "best_of"),
    RESPONSES_URL: ("max_output_tokens",),
    EMBEDDINGS_URL: ("dimensions",),
    MODERATIONS_URL: (),
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_finite(value: Any, path: str) -> str | None:
    """The path of the first NaN or infinite number in ``value`` (JSON allows neither; Python's parser
    reads ``NaN``, ``Infinity`` and ``1e309`` into them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, dict):
        for key, item in value.items():
            if (found := _non_finite(item, f"{path}.{key}" if path else str(key))) is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if (found := _non_finite(item, f"{path}[{index}]")) is not None:
                return found
    return None


def _check_messages(messages: Any, prefix: str) -> None:
    if (problem := messages_problem(messages, prefix)) is not None:
        raise InputLineError(problem)


def _check_numbers(body: dict[str, Any], prefix: str, url: str, non_finite: bool) -> None:
    """``non_finite``: the parser saw a NaN or an infinity somewhere (find where); skipped otherwise, as
    walking every body costs more than the rest of the validation together."""
    if non_finite:
        try:
            path = _non_finite(body, "")
        except RecursionError:
            raise InputLineError(f"field '{prefix.rstrip('.') or 'body'}' is nested too deeply") from None
        if path is not None:
            raise InputLineError(f"field '{prefix}{path}' must be a finite number")
    for key in _POSITIVE_INTS[url]:
        value = body.get(key)
        if value is not None and (not _is_int(value) or value < 1):
            raise InputLineError(f"field '{prefix}{key}' must be a positive integer, got {value!r}")
    n = body.get("n")
    if isinstance(n, int) and not isinstance(n, bool) and n > _MAX_N:
        raise InputLineError(f"field '{prefix}n' must be at most {_MAX_N}, got {n}")
    if url in (EMBEDDINGS_URL, MODERATIONS_URL):
        return
    for key, (low, high) in _RANGES.items():
        value = body.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputLineError(f"field '{prefix}{key}' must be a number, got {kind(value)}")
        if not low <= value <= high:
            raise InputLineError(f"field '{prefix}{key}' must be between {low:g} and {high:g}, got {value!r}")


def _token_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_int(t) and t >= 0 for t in value)


def _check_text_input(value: Any, field: str, prefix: str, *, tokens: bool) -> None:
    """A string, a non-empty list of strings, or (``tokens``) a token list or a list of token lists."""
    where = f"{prefix}{field}"
    if isinstance(value, str):
        if not value:
            raise InputLineError(f"field '{where}' must not be empty")
        return
    if value is None:
        raise InputLineError(f"field '{where}' is missing")
    if not isinstance(value, list):
        raise InputLineError(f"field '{where}' must be a string or a list, got {kind(value)}")
    if not value:
        raise InputLineError(f"field '{where}' must not be an empty list")
    if len(value) > MAX_EMBEDDING_INPUTS:
        raise InputLineError(f"field '{where}' holds {len(value)} items, above {MAX_EMBEDDING_INPUTS}")
    if tokens and (_token_list(value) or all(_token_list(item) for item in value)):
        return
    for index, item in enumerate(value):
        if not isinstance(item, str):
            allowed = "a string or a token list" if tokens else "a string"
            raise InputLineError(f"field '{where}[{index}]' must be {allowed}, got {kind(item)}")
        if not item:
            raise InputLineError(f"field '{where}[{index}]' must not be empty")


def _check_chat(body: dict[str, Any], prefix: str) -> None:
    _check_messages(body.get("messages"), prefix)


def _check_embeddings(body: dict[str, Any], prefix: str) -> None:
    _check_text_input(body.get("input"), "input", prefix, tokens=True)
    encoding = body.get("encoding_format")
    if encoding is not None and encoding not in ("float", "base64"):
        raise InputLineError(
            f'field \'{prefix}encoding_format\' must be "float" or "base64", got {encoding!r}'
        )


def _check_completions(body: dict[str, Any], prefix: str) -> None:
    _check_text_input(body.get("prompt"), "prompt", prefix, tokens=True)
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (not _is_int(max_tokens) or max_tokens < 0):
        raise InputLineError(f"field '{prefix}max_tokens' must be an integer >= 0, got {max_tokens!r}")
    logprobs = body.get("logprobs")
    if logprobs is not None and (not _is_int(logprobs) or not 0 <= logprobs <= 5):
        raise InputLineError(f"field '{prefix}logprobs' must be an integer from 0 to 5, got {logprobs!r}")


def _check_responses(body: dict[str, Any], prefix: str) -> None:
    value = body.get("input")
    if isinstance(value, list):
        if not value:
            raise InputLineError(f"field '{prefix}input' must not be an empty list")
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputLineError(f"field '{prefix}input[{index}]' must be an object, got {kind(item)}")
    elif value is None:
        raise InputLineError(f"field '{prefix}input' is missing")
    elif not isinstance(value, str):
        raise InputLineError(f"field '{prefix}input' must be a string or a list of items, got {kind(value)}")
    elif not value:
        raise InputLineError(f"field '{prefix}input' must not be empty")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise InputLineError(f"field '{prefix}instructions' must be a string, got {kind(instructions)}")
    if body.get("background"):
        raise InputLineError(f"field '{prefix}background' is not supported in a batch")


def _check_moderations(body: dict[str, Any], prefix: str) -> None:
    value = body.get("input")
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        for index, item in enumerate(value):
            if item.get("type") not in ("text", "image_url"):
                raise InputLineError(
                    f'field \'{prefix}input[{index}].type\' must be "text" or "image_url", '
                    f"got {item.get('type')!r}"
                )
        return
    _check_text_input(value, "input", prefix, tokens=False)


_CHECKS: dict[str, Callable[[dict[str, Any], str], None]] = {
    CHAT_COMPLETIONS_URL: _check_chat,
    EMBEDDINGS_URL: _check_embeddings,
    COMPLETIONS_URL: _check_completions,
    RESPONSES_URL: _check_responses,
    MODERATIONS_URL: _check_moderations,
}


def with_default_model(body: dict[str, Any], default_model: str | None, url: str) -> dict[str, Any]:
    """``body`` with ``default_model`` when it names no model (moderations excepted: see :func:`check_body`)."""
    if body.get("model") is None and default_model and url != MODERATIONS_URL:
        return {**body, "model": default_model}
    return body


def check_body(
    body: Any, default_model: str | None, prefix: str, non_finite: bool, url: str = CHAT_COMPLETIONS_URL
) -> dict[str, Any]:
    """The body of one request to ``url``, with ``default_model`` filled in when it names none.

    A moderations body may leave ``model`` out (the server picks its default), so ``default_model``
    (a chat model, usually) is not given to it.

    Raises:
        InputLineError: naming the field at fault.
    """
    if not isinstance(body, dict):
        raise InputLineError(f"field '{prefix.rstrip('.') or 'body'}' must be a JSON object")
    _CHECKS[url](body, prefix)
    if body.get("stream"):
        raise InputLineError(f"field '{prefix}stream' is not supported in a batch")
    _check_numbers(body, prefix, url, non_finite)
    model = body.get("model")
    if model is None and (url == MODERATIONS_URL or default_model):
        return with_default_model(body, default_model, url)
    elif model is not None and not isinstance(model, str):
        raise InputLineError(f"field '{prefix}model' must be a string, got {kind(model)}")
    elif not isinstance(model, str) or not model.strip():
        raise InputLineError(f"field '{prefix}model' is missing (give it in each line or with --model)")
    return body
