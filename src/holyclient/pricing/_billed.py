"""What a response's ``usage`` bills, in every shape a relay sends it.

* Chat Completions: ``prompt_tokens`` / ``completion_tokens``, with ``prompt_tokens_details.cached_tokens``
  (prompt-cache reads), ``prompt_tokens_details.audio_tokens`` and ``completion_tokens_details``
  (``reasoning_tokens``, ``audio_tokens``).
* Responses API: ``input_tokens`` / ``output_tokens`` with ``input_tokens_details.cached_tokens`` and
  ``output_tokens_details.reasoning_tokens``.
* DeepSeek's own fields, passed through by relays: ``prompt_cache_hit_tokens``.

Reasoning tokens are output. OpenAI counts them inside ``completion_tokens``; some upstreams (Gemini's
thoughts) report them beside it, which shows as ``total_tokens = prompt + completion + reasoning``: they
are then added. Audio tokens are priced at the model's audio prices where the table has them. Which
price tier applies is decided by the whole prompt (cached tokens included), as the providers do.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ._table import Price


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _int(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0  # not bool (an int subclass), not a float


@dataclass(frozen=True)
class BilledTokens:
    """A usage's tokens by what they cost. ``prompt`` includes ``cached`` and ``audio_input``;
    ``completion`` includes ``reasoning`` and ``audio_output``."""

    prompt: int
    cached: int
    audio_input: int
    completion: int
    reasoning: int
    audio_output: int


def billed_tokens(usage: Any) -> BilledTokens:
    """Read a ``usage`` dict or object of any shape (missing or null fields count as 0)."""
    return BilledTokens(*billed_figures(usage))


def billed_figures(usage: Any) -> tuple[int, int, int, int, int, int]:
    """:func:`billed_tokens` as a plain tuple, in :class:`BilledTokens`' field order: read once per answer
    on every settled call (a batch settles thousands a second), so no object is built and the common
    fields are tested inline rather than through a call each."""
    get = usage.get if type(usage) is dict or isinstance(usage, Mapping) else functools.partial(_get, usage)
    prompt = get("prompt_tokens")
    if type(prompt) is not int or prompt <= 0:  # not bool (an int subclass), not a float
        prompt = _int(get("input_tokens"))
    completion = get("completion_tokens")
    if type(completion) is not int or completion <= 0:
        completion = _int(get("output_tokens"))
    details_in = get("prompt_tokens_details") or get("input_tokens_details")
    details_out = get("completion_tokens_details") or get("output_tokens_details")
    cached = audio_in = reasoning = audio_out = 0
    if details_in is not None:
        get_in = details_in.get if type(details_in) is dict else functools.partial(_get, details_in)
        cached, audio_in = _int(get_in("cached_tokens")), _int(get_in("audio_tokens"))
    cached = cached or _int(get("prompt_cache_hit_tokens"))
    if details_out is not None:
        get_out = details_out.get if type(details_out) is dict else functools.partial(_get, details_out)
        reasoning, audio_out = _int(get_out("reasoning_tokens")), _int(get_out("audio_tokens"))
    if reasoning and _int(get("total_tokens")) == prompt + completion + reasoning:  # beside the completion
        completion += reasoning
    cached = min(cached, prompt)
    return prompt, cached, min(audio_in, prompt - cached), completion, reasoning, min(audio_out, completion)


def billed_usd(price: Price, billed: BilledTokens) -> tuple[float, float]:
    """``(input_usd, output_usd)`` of billed tokens at ``price`` (already the tier's)."""
    figures = (
        billed.prompt,
        billed.cached,
        billed.audio_input,
        billed.completion,
        billed.reasoning,
        billed.audio_output,
    )
    return figures_usd(price, figures)


def figures_usd(price: Price, figures: tuple[int, int, int, int, int, int]) -> tuple[float, float]:
    """:func:`billed_usd` of figures read by :func:`billed_figures`."""
    prompt, cached, audio_input, completion, _, audio_output = figures
    text_in = prompt - cached - audio_input
    audio_in = price.input if price.audio_input is None else price.audio_input
    audio_out = price.output if price.audio_output is None else price.audio_output
    input_usd = (text_in * price.input + cached * price.cached_input + audio_input * audio_in) / 1e6
    output_usd = ((completion - audio_output) * price.output + audio_output * audio_out) / 1e6
    return input_usd, output_usd


def billed_usage(answer: Any) -> tuple[str | None, Any]:
    """The model and token usage an answer reports: a parsed answer's ``usage`` model, or the ``usage``
    object of a raw JSON answer (a dict: what a transport or ``cast_to=object`` reads).

    ``(None, None)`` for answers without one (text, bytes, a translation's undeclared ``usage`` kept as
    a plain dict on a model). Whether the usage is charged is not decided here: an endpoint whose
    answers repeat usage billed elsewhere (a batch, a stored completion) declares that it does not
    settle (:mod:`holyclient.pricing._charging`).
    """
    if isinstance(answer, Mapping):
        usage, model = answer.get("usage"), answer.get("model")
        if not isinstance(usage, Mapping):
            return None, None
        return (model if isinstance(model, str) else None), usage
    usage = getattr(answer, "usage", None)
    if not hasattr(usage, "model_dump"):  # absent, or an undeclared field kept as a plain dict
        return None, None
    return getattr(answer, "model", None), usage


class Progress(NamedTuple):
    """Where a Responses API answer stands: its ``id``, ``status`` and whether it runs in the background."""

    id: str | None
    status: str | None
    background: bool


def progress_of(answer: Any) -> Progress:
    """The :class:`Progress` of a response (a model, a raw JSON mapping, a stream event's ``response``);
    all None and False for an answer without them (a deleted response's empty answer)."""
    if answer is None:
        return Progress(None, None, False)
    get = answer.get if isinstance(answer, Mapping) else functools.partial(_get, answer)
    answer_id, status = get("id"), get("status")
    return Progress(
        answer_id if isinstance(answer_id, str) else None,
        status if isinstance(status, str) else None,
        get("background") is True,
    )
