"""Offline token counting for chat requests, the way OpenAI bills them.

Encodings come from files shipped in the package (no download), see :mod:`holyclient.tokens._tokenizer`.
OpenAI models are counted exactly with their own encoding: ``o200k_base`` for gpt-4o, gpt-4.1, gpt-4.5,
gpt-5 and the o-series; ``cl100k_base`` for gpt-4, gpt-3.5-turbo and the text-embedding models.
Claude, Gemini, DeepSeek and any other model have tokenizers we do not ship: they are counted with
``o200k_base`` and the result says ``approximate=True``.

The chat rules (OpenAI cookbook, "How to count tokens with tiktoken", which checks them against the
API's ``prompt_tokens``):

* every message costs 3 tokens plus the tokens of each string field's value (``role``, ``content``,
  ``name``...), 1 more when it has a ``name``; the reply is primed with 3 more. The legacy
  ``gpt-3.5-turbo-0301`` used 4 per message and -1 per name.
* content given as parts: text parts count their text; image parts follow OpenAI's vision rule
  (see :func:`image_tokens`); the size is read from a ``data:`` URI, else ``image_size`` or
  1024x1024 is assumed. Audio and file parts cannot be counted offline: they mark the result approximate.
* tool definitions (``tools`` or legacy ``functions``) are rendered the way the API shows them to the
  model (a TypeScript-like ``namespace functions``), counted, plus 9; when a system message exists the
  definitions join it (-4, and the first system message gains a newline). ``tool_choice`` /
  ``function_call``: ``"none"`` adds 1, a named function adds its name's tokens plus 4.
* a ``response_format`` JSON schema is counted as its JSON text, and marks the count approximate.
* an assistant ``tool_calls`` entry costs its function name and arguments plus 3; ``tool`` (and legacy
  ``function``) messages count like any message minus 2; their ``tool_call_id`` is not shown to the
  model and is not counted. These two rules are calibrated on API-reported counts, not documented.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from . import _bounded, _exact, _tokenizer
from ._chat import Counter, function_defs
from ._images import DEFAULT_IMAGE_SIZE, image_tokens
from ._result import TokenCount
from ._tool_text import render_functions

if TYPE_CHECKING:
    import tiktoken

    from ._calibration import Calibration
    from ._chat import MessageLike

__all__ = [
    "DEFAULT_IMAGE_SIZE",
    "TokenCount",
    "count_messages",
    "count_tokens",
    "encoding_for_model",
    "encoding_name_for_model",
    "image_tokens",
    "qualify",
    "qualify_profile",
]

#: Model-name prefixes with a known OpenAI encoding (longest match wins; "ft:" prefixes are stripped).
_EXACT_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("gpt-35", "cl100k_base"),
    ("text-embedding-3", "cl100k_base"),
    ("text-embedding-ada-002", "cl100k_base"),
)
_FALLBACK_ENCODING = "o200k_base"

_OWN_NAMES = frozenset(_exact.EXACT_NAMES)
#: Tokens a chat template may add once per request beyond role markers: Qwen2.5's template inserts a
#: default system prompt (~20 tokens) when none is given; DeepSeek's adds only BOS and markers.
_TEMPLATE_EXTRA = {"qwen2": 24, "deepseek_v3": 0}

#: Other families whose own tokenizer ships with holyclient (see :mod:`._exact`): name prefixes, tokenizer.
#: Qwen3.5 and later use a new vocabulary that is not shipped; they fall back to an estimate.
_OWN_TOKENIZERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("deepseek-v3", "deepseek-chat", "deepseek-reasoner"), "deepseek_v3"),
    (("qwen2", "qwen3-", "qwen-max", "qwen-plus", "qwen-turbo", "qwen3-max"), "qwen2"),
)


@lru_cache(maxsize=1024)
def encoding_name_for_model(model: str) -> tuple[str, bool]:
    """Return ``(encoding name, approximate)`` for a model name; unknown models get o200k_base, approximate."""
    name = model.strip().lower()
    if name.startswith("ft:"):
        name = name[3:]
    name = name.rsplit("/", 1)[-1]  # "openai/gpt-4o" style provider prefixes
    for prefix, encoding in _EXACT_PREFIXES:
        if name == prefix or (name.startswith(prefix) and _boundary(name, len(prefix))):
            return encoding, False
    for prefixes, encoding in _OWN_TOKENIZERS:
        if name.startswith(prefixes) and _exact.available(encoding):
            return encoding, False
    return _FALLBACK_ENCODING, True


def _boundary(name: str, at: int) -> bool:
    # "o1-mini" and "o1" match "o1", "o10x" would not; "gpt-4o" must not fall to "gpt-4".
    return name[at] in "-:._"


def encoding_for_model(model: str) -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` used to count ``model`` (loaded once, offline)."""
    return _exact.get_encoding(encoding_name_for_model(model)[0])


def count_tokens(text: str, model: str = "gpt-4o", *, calibration: Calibration | None = None) -> TokenCount:
    """Count the tokens of a plain string (special-token text such as ``<|endoftext|>`` is ordinary text).

    Never raises on any string, including the whitespace runs that crash tiktoken itself. A model
    counted with a stand-in encoding gets an estimate and a range (see :class:`TokenCount`).

    Args:
        text: the string.
        model: the model name.
        calibration: corrections fitted from billed usage (``holyclient calibrate``).
    """
    name, approximate = encoding_name_for_model(model)
    enc = _exact.get_encoding(name)
    if len(text) < _tokenizer.CHUNKED_FROM and not isinstance(enc, _tokenizer.BytesBound):
        counted = TokenCount(len(enc.encode_ordinary(text)), model, name, approximate)
    else:  # bounded work (see _bounded): a range when not exact
        work, token = _bounded.begin()
        work.bytes = work.bytes or isinstance(enc, _tokenizer.BytesBound)
        try:
            counted = TokenCount(_tokenizer.count(enc, text), model, name, approximate)
        finally:
            _bounded.end(token)
        counted = _bounded.with_bounds(counted, work)
    return qualify(counted, (text,), calibration=calibration) if counted.approximate else counted


def count_messages(
    messages: Iterable[MessageLike],
    model: str = "gpt-4o",
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    functions: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: Any = None,
    function_call: Any = None,
    image_size: tuple[int, int] | None = None,
    calibration: Calibration | None = None,
) -> TokenCount:
    """Count the prompt tokens of a chat request, as the API reports them in ``usage.prompt_tokens``.

    Args:
        messages: chat messages as sent to ``/chat/completions``: dicts, TypedDicts, or message models
            such as ``response.choices[0].message`` (counted as openai-python would send them).
        model: the model name; decides the encoding and the per-message constants.
        tools: tool definitions (``{"type": "function", "function": {...}}``).
        functions: legacy function definitions.
        tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a named function.
        function_call: the legacy equivalent of ``tool_choice``.
        image_size: ``(width, height)`` assumed for images whose size cannot be read (http URLs).
        calibration: corrections fitted from billed usage (``holyclient calibrate``).

    Raises:
        TypeError: a message is neither a mapping nor a message model.
    """
    work, token = _bounded.begin()
    try:
        counted, tools_tokens = _count_chat(
            messages, model, tools, functions, tool_choice, function_call, image_size
        )
    finally:
        _bounded.end(token)
    counted = _bounded.with_bounds(counted, work)
    if not counted.approximate:
        return counted
    return qualify(counted, _texts(messages), tools_tokens, calibration=calibration)


def _count_chat(
    messages: Iterable[MessageLike],
    model: str,
    tools: Sequence[Mapping[str, Any]] | None,
    functions: Sequence[Mapping[str, Any]] | None,
    tool_choice: Any,
    function_call: Any,
    image_size: tuple[int, int] | None,
) -> tuple[TokenCount, int]:
    """The stand-in count of a chat request, and how many of its tokens are tool schemas."""
    name, approximate = encoding_name_for_model(model)
    own = name in _OWN_NAMES
    if own and not isinstance(messages, list):
        messages = list(messages)  # counted twice below: once for tokens, once for the framing range
    counter = Counter(_exact.get_encoding(name), model, image_size or DEFAULT_IMAGE_SIZE)
    definitions = [*function_defs(tools, counter), *(functions or ())] if tools or functions else []
    tokens = counter.messages(messages, pad_system=bool(definitions))
    tools_tokens = 0
    if definitions:
        tools_tokens = counter.text(render_functions(definitions)) + 9
        tokens += tools_tokens
        if counter.saw_system:
            tokens -= 4
    tokens += counter.choice(tool_choice if tool_choice is not None else function_call)
    if own:
        # The content is counted with the model's own tokenizer, but the chat template that frames it
        # (role markers, BOS, a default system prompt) differs by model version and relay: a range.
        framing = len(messages) + 1  # type: ignore[arg-type]  # a list: see above
        low, high = max(tokens - 3 * framing, 0), tokens + 2 * framing + _TEMPLATE_EXTRA[name]
        counted = TokenCount(tokens, model, name, True, "approximate", low, high)
        return counted, tools_tokens
    return TokenCount(tokens, model, name, approximate or counter.approximate), tools_tokens


def qualify(
    counted: TokenCount,
    texts: Iterable[str],
    tools_tokens: int = 0,
    *,
    calibration: Calibration | None = None,
) -> TokenCount:
    """Turn a stand-in count into an estimate with its method and range.

    Exact counts are returned as they are. A calibration that knows the model corrects the count by
    the fitted factor (method ``calibrated``); otherwise the model family's published ratios for the
    request's mix of content kinds give the estimate and range (method ``approximate``).
    """
    if not counted.approximate or counted.low is not None:  # exact, or its range is already known
        return counted
    from ._ranges import kind_weights

    return qualify_profile(counted, kind_weights(texts, tools_tokens), calibration)


def qualify_profile(
    counted: TokenCount, weights: Mapping[str, float], calibration: Calibration | None = None
) -> TokenCount:
    """:func:`qualify` for a count whose kind mix is known (see :func:`profile_request`)."""
    from . import _ranges as ranges

    if not counted.approximate or counted.low is not None:  # exact, or its range is already known
        return counted

    raw = counted.tokens
    if calibration is not None:
        fitted = calibration.apply(counted.model, raw, weights)
        if fitted is not None:
            point, low, high = fitted
            return counted._replace(tokens=point, count_method="calibrated", low=low, high=high, stand_in=raw)
    exact_family = not encoding_name_for_model(counted.model)[1]
    family = ranges.family("openai-rules") if exact_family else ranges.family_for(counted.model)
    r = ranges.weighted_ratios(family.ratios, weights)
    extra = family.tools_overhead if weights.get("tools") else ranges.Ratios(0, 0, 0)
    return counted._replace(
        tokens=round(raw * r.typical + extra.typical),
        count_method="approximate",
        low=math.floor(raw * r.low + extra.low),
        high=math.ceil(raw * r.high + extra.high),
        stand_in=raw,
    )


def _texts(messages: Any) -> list[str]:
    from ._ranges import texts_of

    return texts_of(list(messages) if not isinstance(messages, list) else messages)
