"""Counting a whole request body, told which endpoint it is for.

Each endpoint's body has its own shape, and the same key means different things in different shapes:
``prompt`` is the text of a legacy completion but a stored prompt *template* reference
(``{"id": "pmpt_..."}``) in a Responses API call; ``input`` is text to embed or a list of
conversation items. So the counter is told the endpoint (the request's path, as
:mod:`holyclient.pricing._charging` declares it) and reads the body the way that endpoint does.
Guessing from the body's keys remains only for :func:`count_request` called without an endpoint (a
body from a file that names none), and is documented there as a guess.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from . import _bounded, _tokenizer
from ._count import _count_chat, encoding_for_model, encoding_name_for_model, qualify_profile
from ._result import TokenCount

__all__ = ["Shape", "count_request", "profile_request", "shape_of"]

#: How a request body is read: chat messages, a completion prompt, embedding (or moderation) input,
#: or a Responses API call.
Shape = Literal["chat", "completions", "embeddings", "responses"]

#: The body shape of each endpoint that takes a countable body (paths relative to the API root).
_SHAPES: dict[str, Shape] = {
    "/chat/completions": "chat",
    "/completions": "completions",
    "/embeddings": "embeddings",
    "/moderations": "embeddings",
    "/responses": "responses",
    "/responses/input_tokens": "responses",
}


def shape_of(endpoint: str) -> Shape:
    """The body shape of ``endpoint`` (``"/chat/completions"``, ``"/v1/embeddings"``, or a shape name).

    Raises:
        ValueError: an endpoint whose body holds nothing to count.
    """
    if endpoint in ("chat", "completions", "embeddings", "responses"):
        return endpoint  # type: ignore[return-value]
    path = endpoint.split("?", 1)[0].rstrip("/")
    if path.startswith("/v1/"):
        path = path[3:]
    shape = _SHAPES.get(path)
    if shape is None:
        raise ValueError(f"cannot count a request to {endpoint}: its body holds no prompt")
    return shape


def _guess(body: Mapping[str, Any]) -> Shape:
    """The shape of a body whose endpoint nobody named (see the module docstring)."""
    if "messages" in body:
        return "chat"
    if "prompt" in body and "input" not in body and not isinstance(body["prompt"], Mapping):
        return "completions"
    if "instructions" in body or "prompt" in body:
        return "responses"
    if "input" in body:
        value = body["input"]
        if isinstance(value, list) and any(not isinstance(item, (str, int, list)) for item in value):
            return "responses"
        return "embeddings"
    raise ValueError("the body has neither 'messages' (chat), 'prompt' (completions) nor 'input'")


def count_request(
    body: Mapping[str, Any],
    *,
    endpoint: str | None = None,
    model: str | None = None,
    image_size: tuple[int, int] | None = None,
    calibration: Any = None,
) -> TokenCount:
    """Count the input tokens of a request body: a chat completion, a completion, an embedding or a
    Responses API call (approximate).

    Args:
        body: the JSON body as a mapping.
        endpoint: the path it is sent to (``"/chat/completions"``, ``"/v1/responses"``...) or a shape
            name (``"chat"``, ``"completions"``, ``"embeddings"``, ``"responses"``). Without it the
            shape is guessed from the body's keys, which can misread a Responses call (``prompt`` is a
            template there): pass it whenever it is known.
        model: overrides ``body["model"]``.
        image_size: see :func:`~holyclient.tokens.count_messages`.
        calibration: corrections fitted from billed usage (``holyclient calibrate``).

    Raises:
        ValueError: no model given, an endpoint without a prompt, or nothing to count.
        TypeError: a field has the wrong type.
    """
    counted, weights = profile_request(body, endpoint=endpoint, model=model, image_size=image_size)
    return qualify_profile(counted, weights, calibration) if counted.approximate else counted


def profile_request(
    body: Mapping[str, Any],
    *,
    endpoint: str | None = None,
    model: str | None = None,
    image_size: tuple[int, int] | None = None,
) -> tuple[TokenCount, dict[str, float]]:
    """The stand-in count of a request (no correction applied) and its mix of content kinds (estimated
    tokens per kind; empty for an exact count): what calibration fits against.

    Raises:
        ValueError / TypeError: as :func:`count_request`.
    """
    model = model or body.get("model")
    if not isinstance(model, str) or not model:
        raise ValueError("no model: the body has no 'model' and none was given")
    shape = shape_of(endpoint) if endpoint is not None else _guess(body)
    work, token = _bounded.begin()
    try:
        counted, tools_tokens = _COUNTERS[shape](body, model, image_size)
    finally:
        _bounded.end(token)
    counted = _bounded.with_bounds(counted, work)
    if not counted.approximate:
        return counted, {}
    from ._ranges import kind_weights, texts_of

    keys = _TEXT_KEYS[shape]
    texts = texts_of([body.get(key) for key in keys if key in body])
    return counted, kind_weights(texts, tools_tokens)


def _chat(body: Mapping[str, Any], model: str, image_size: tuple[int, int] | None) -> tuple[TokenCount, int]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise TypeError("'messages' must be a list of message objects")
    counted, tools_tokens = _count_chat(
        messages,
        model,
        body.get("tools"),
        body.get("functions"),
        body.get("tool_choice"),
        body.get("function_call"),
        image_size,
    )
    response_format = body.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        # The server shows the schema to the model by a rule OpenAI does not document: count its JSON
        # text (an overestimate is the safe side for budgets) and say it is approximate.
        schema = json.dumps(response_format.get("json_schema"), separators=(",", ":"))
        extra = _tokenizer.count(encoding_for_model(model), schema)
        return counted._replace(tokens=counted.tokens + extra, approximate=True), tools_tokens + extra
    return counted, tools_tokens


def _completions(
    body: Mapping[str, Any], model: str, image_size: tuple[int, int] | None
) -> tuple[TokenCount, int]:
    if "prompt" not in body:
        raise ValueError("a completion request has no 'prompt'")
    return _embedding_input(body["prompt"], model), 0


def _embeddings(
    body: Mapping[str, Any], model: str, image_size: tuple[int, int] | None
) -> tuple[TokenCount, int]:
    if "input" not in body:
        raise ValueError("the body has no 'input'")
    return _embedding_input(body["input"], model), 0


def _responses(
    body: Mapping[str, Any], model: str, image_size: tuple[int, int] | None
) -> tuple[TokenCount, int]:
    """A Responses API call: its ``input`` (text or conversation items) and ``instructions``, always
    approximate. A stored prompt template (``prompt``) and earlier turns (``previous_response_id``,
    ``conversation``) are on the server: their tokens cannot be counted here, and are not."""
    value = body.get("input")
    instructions = body.get("instructions")
    if isinstance(value, list) and any(not isinstance(item, (str, int, list)) for item in value):
        messages: list[Any] = (
            [{"role": "developer", "content": instructions}] if isinstance(instructions, str) else []
        )
        messages.extend(value)
        counted, _ = _count_chat(messages, model, None, None, None, None, image_size)
        return counted._replace(approximate=True), 0
    name, _ = encoding_name_for_model(model)
    counted = _embedding_input(value, model) if value is not None else TokenCount(0, model, name, True)
    if isinstance(instructions, str):
        extra = _tokenizer.count(encoding_for_model(model), instructions)
        counted = counted._replace(tokens=counted.tokens + extra)
    return counted._replace(approximate=True), 0


_COUNTERS = {"chat": _chat, "completions": _completions, "embeddings": _embeddings, "responses": _responses}
#: The fields whose text makes up each shape's prompt (for the content-kind mix of an estimate).
_TEXT_KEYS: dict[Shape, tuple[str, ...]] = {
    "chat": ("messages",),
    "completions": ("prompt",),
    "embeddings": ("input",),
    "responses": ("input", "instructions"),
}


def _embedding_input(value: Any, model: str) -> TokenCount:
    """Text, a list of texts or of token-id lists (embeddings, completions); moderation input may also
    hold multimodal parts, whose text is counted and whose images make the count approximate."""
    from . import _exact

    name, approximate = encoding_name_for_model(model)
    enc = _exact.get_encoding(name)
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        raise TypeError("'input' must be a string, a list of strings or a list of token lists")
    tokens = 0
    for item in items:
        if isinstance(item, str):
            tokens += _tokenizer.count(enc, item)
        elif isinstance(item, int):  # one list of token ids
            tokens += 1
        elif isinstance(item, list):
            tokens += len(item)
        elif isinstance(item, Mapping) and item.get("type") in ("text", "image_url"):
            text = item.get("text")
            tokens += _tokenizer.count(enc, text) if isinstance(text, str) else 0
            approximate = approximate or item.get("type") != "text"
        else:
            raise TypeError("'input' must be a string, a list of strings or a list of token lists")
    return TokenCount(tokens, model, name, approximate)
