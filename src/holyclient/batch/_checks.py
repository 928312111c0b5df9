"""Checks of a batch request against the price table, before anything is sent.

A request for a model the table does not know, or whose prompt cannot fit the model's context
window, would be refused by the server one by one -- or worse, sent and paid for. ``holyclient
batch`` refuses the input instead (an unknown model is a warning with ``--allow-unknown-models``).
"""

from __future__ import annotations

import json
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL, EMBEDDINGS_URL, MODERATIONS_URL
from ._bodies import InputLineError
from ._types import BatchRequest

#: Tokens a message adds to the prompt beyond its content, at most (role, separators, reply priming).
_MESSAGE_OVERHEAD = 8


def _output_cap(body: Any) -> tuple[str, int]:
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return key, value
    return "max_tokens", 0


def _token_bound(body: Any) -> int | None:
    """An upper bound of the prompt's tokens without counting them (each token is at least one byte),
    or ``None`` when the body has parts the bound does not cover (images)."""
    if "messages" not in body:  # completions' prompt, responses' input and instructions
        text = [body.get("prompt"), body.get("input"), body.get("instructions")]
        return _MESSAGE_OVERHEAD * 4 + len(json.dumps(text, ensure_ascii=False).encode())
    messages = body.get("messages") or []
    total = _MESSAGE_OVERHEAD
    for message in messages:
        total += _MESSAGE_OVERHEAD + sum(len(str(v).encode()) for k, v in message.items() if k != "content")
        content = message.get("content")
        if isinstance(content, str):
            total += len(content.encode())
        elif isinstance(content, list):
            for part in content:
                if part.get("type", "text") != "text":
                    return None
                total += _MESSAGE_OVERHEAD + len(str(part.get("text") or "").encode())
    for key in ("tools", "functions"):
        if body.get(key):
            total += len(json.dumps(body[key], ensure_ascii=False).encode())
    return total


_ENDPOINT_KIND = {EMBEDDINGS_URL: "embedding", MODERATIONS_URL: "moderation"}
_KIND_NAMES = {
    "embedding": "an embedding model",
    "moderation": "a moderation model",
    "generation": "a text generation model",
}
_PROMPT_FIELD = {"/v1/completions": "prompt", "/v1/responses": "input"}


def _kind_of(info: Any) -> str:
    """What a price-table model does: embeddings and moderations produce no output tokens."""
    if info.max_output_tokens > 0:
        return "generation"
    return "moderation" if "moderation" in info.name else "embedding"


def _check_inputs(value: Any, info: Any, prefix: str) -> None:
    """Each embedding input within the model's per-input limit (bytes bound it before counting)."""
    items = [value] if isinstance(value, str) or (value and isinstance(value[0], int)) else value
    limit = info.context_window
    for index, item in enumerate(items):
        if isinstance(item, str):
            if len(item.encode()) <= limit:
                continue
            from ..tokens import count_tokens

            tokens = count_tokens(item, info.name).tokens
        else:
            tokens = len(item)
        if tokens > limit:
            where = f"{prefix}input" if items is not value else f"{prefix}input[{index}]"
            raise InputLineError(
                f"field '{where}' is {tokens} tokens, over {info.name}'s limit of {limit} tokens per input"
            )


class ModelCheck:
    """Callable check for :func:`~holyclient.batch.validate_input`: a known model, a prompt that fits.

    Args:
        allow_unknown: let requests for models the price table does not know through (counted in
            :attr:`unknown` so the caller can warn), instead of refusing them.
    """

    def __init__(self, *, allow_unknown: bool = False) -> None:
        self.allow_unknown = allow_unknown
        self.unknown: dict[str, int] = {}
        self._models: dict[str, Any] = {}

    def _info(self, model: str) -> Any:
        if model not in self._models:
            from ..pricing import UnknownModelError, lookup_model

            try:
                self._models[model] = lookup_model(model)
            except UnknownModelError:
                self._models[model] = None
        return self._models[model]

    def __call__(self, request: BatchRequest, prefix: str) -> None:
        body = request.body
        if body.get("model") is None:  # a moderation without model: the server's default
            return
        model = str(body.get("model"))
        info = self._info(model)
        if info is None:
            if not self.allow_unknown:
                raise InputLineError(
                    f"field '{prefix}model': unknown model {model!r} (not in the price table; "
                    "pass --allow-unknown-models to send it anyway)"
                )
            self.unknown[model] = self.unknown.get(model, 0) + 1
            return
        if _kind_of(info) != _ENDPOINT_KIND.get(request.url, "generation"):
            wanted = _ENDPOINT_KIND.get(request.url, "generation")
            raise InputLineError(
                f"field '{prefix}model': {model!r} is not {_KIND_NAMES[wanted]} (url {request.url})"
            )
        if request.url == EMBEDDINGS_URL:
            _check_inputs(body.get("input"), info, prefix)
            return
        if request.url == MODERATIONS_URL:
            return
        key, cap = _output_cap(body)
        if cap > info.max_output_tokens:
            raise InputLineError(
                f"field '{prefix}{key}' is {cap}, above {model}'s maximum output of {info.max_output_tokens} tokens"
            )
        bound = _token_bound(body)
        if bound is not None and bound + cap <= info.context_window:
            return
        from ..tokens import count_request

        try:
            prompt = count_request(body, endpoint=request.url).tokens
        except (ValueError, TypeError):  # shapes the counter does not know: the server judges
            return
        if prompt + cap > info.context_window:
            plus = f" + {cap} {key}" if cap else ""
            field = (
                "messages" if request.url == CHAT_COMPLETIONS_URL else _PROMPT_FIELD.get(request.url, "input")
            )
            raise InputLineError(
                f"field '{prefix}{field}': the prompt is {prompt} tokens{plus}, over {model}'s context "
                f"window of {info.context_window} tokens"
            )
