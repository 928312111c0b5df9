"""What a response's ``usage`` bills, in every shape a relay sends it: the one usage reader.

Every answer's usage is read here, whatever API or upstream model produced it:

* Chat Completions: ``prompt_tokens`` / ``completion_tokens`` / ``total_tokens``, with
  ``prompt_tokens_details`` (``cached_tokens``: prompt-cache reads; ``cache_write_tokens``: writes, and
  their ``cache_write_tokens_details`` split into ``ttl_30m_tokens`` / ``ttl_12h_tokens``;
  ``audio_tokens``) and ``completion_tokens_details`` (``reasoning_tokens``, ``audio_tokens``).
* Responses API: ``input_tokens`` / ``output_tokens`` with ``input_tokens_details`` (the same fields)
  and ``output_tokens_details.reasoning_tokens``.
* DeepSeek's own fields, passed through by relays: ``prompt_cache_hit_tokens`` /
  ``prompt_cache_miss_tokens`` (reads, and the rest of the prompt: together the whole prompt).
* Claude's, behind an OpenAI-compatible relay: ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens`` (writes; split into 5-minute and 1-hour ones by ``cache_creation``'s
  ``ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``). Anthropic's own API counts them
  *beside* ``input_tokens``; relays differ on whether ``prompt_tokens`` includes them. They are read as
  included when the numbers allow it (the OpenAI meaning of ``prompt_tokens``: the whole prompt), and as
  beside it when ``total_tokens`` says so or when they exceed ``prompt_tokens`` (which a part of it cannot).
* Gemini's thinking tokens, reported beside ``completion_tokens`` (``total_tokens = prompt + completion
  + reasoning``): added to the completion. OpenAI counts reasoning inside ``completion_tokens``.
* ``cost``: the amount a relay reports it charged (some do), kept beside holyclient's own price.

Then it checks that the figures agree: a detail never exceeds its parent, DeepSeek's hit and miss add up
to the prompt, a write's retention split adds up to the writes, and ``total_tokens`` is prompt plus
completion. Usage that cannot be reconciled is never priced low in silence: it is read the way that
costs the most among the readings the numbers allow (tokens ``total_tokens`` counts and no part explains
are charged as output), and each disagreement is returned as a *problem*, which the usage tracker shows
in its snapshot and logs.

Which price tier applies is decided by the whole prompt (cached and written tokens included), as the
providers do.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ._table import Price

#: What :func:`billed_figures` returns, in :class:`BilledTokens`' field order.
Figures = tuple[int, int, int, int, int, int, int, int, "float | None", tuple[str, ...]]


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _int(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0  # not bool (an int subclass), not a float


@dataclass(frozen=True)
class BilledTokens:
    """A usage's tokens by what they cost.

    Attributes:
        prompt: the whole prompt: ``cached``, ``cache_write``, ``cache_write_long`` and ``audio_input``
            included.
        cached: prompt tokens read from the prompt cache.
        audio_input: prompt tokens of audio.
        completion: output tokens, ``reasoning`` and ``audio_output`` included.
        reasoning: output tokens the model spent thinking.
        audio_output: output tokens of audio.
        cache_write: prompt tokens written to the cache at the short retention (5 minutes on Claude, 30
            minutes on OpenAI).
        cache_write_long: prompt tokens written at the long retention (1 hour, 12 hours).
        reported_cost: what the relay says it charged (``usage.cost``), or None.
        problems: what did not add up (empty: the usage is consistent).
    """

    prompt: int
    cached: int
    audio_input: int
    completion: int
    reasoning: int
    audio_output: int
    cache_write: int = 0
    cache_write_long: int = 0
    reported_cost: float | None = None
    problems: tuple[str, ...] = ()


def billed_tokens(usage: Any) -> BilledTokens:
    """Read a ``usage`` dict or object of any shape (missing or null fields count as 0)."""
    return BilledTokens(*billed_figures(usage))


def _count(value: Any, name: str, problems: list[str]) -> int:
    """A token count a usage reports (None: 0); anything but a whole non-negative number is a problem."""
    if value is None:
        return 0
    if type(value) is int and value >= 0:
        return value
    if type(value) is float and value >= 0 and value.is_integer():
        return int(value)
    problems.append(f"{name} is {value!r}, not a token count: read as 0")
    return 0


def billed_figures(usage: Any) -> Figures:
    """:func:`billed_tokens` as a plain tuple, in :class:`BilledTokens`' field order: read once per answer
    on every settled call (a batch settles thousands a second), so no object is built and the common
    fields are tested inline rather than through a call each."""
    get = usage.get if type(usage) is dict or isinstance(usage, Mapping) else functools.partial(_get, usage)
    problems: list[str] = []
    prompt = get("prompt_tokens")
    native = False  # Anthropic's own shape: ``input_tokens`` excludes the cache's reads and writes
    if type(prompt) is not int or prompt <= 0:
        if prompt is not None and get("input_tokens") is None:
            prompt = _count(prompt, "prompt_tokens", problems)
        else:
            prompt = _count(get("input_tokens"), "input_tokens", problems)
            native = get("input_tokens_details") is None
    completion = get("completion_tokens")
    if type(completion) is not int or completion <= 0:
        if completion is not None and get("output_tokens") is None:
            completion = _count(completion, "completion_tokens", problems)
        else:
            completion = _count(get("output_tokens"), "output_tokens", problems)
    total = get("total_tokens")
    if total is not None and (type(total) is not int or total < 0):
        total = _count(total, "total_tokens", problems) if type(total) is float else None
        if total is None:
            problems.append(f"total_tokens is {get('total_tokens')!r}, not a token count: not checked")
    details_in = get("prompt_tokens_details") or get("input_tokens_details")
    details_out = get("completion_tokens_details") or get("output_tokens_details")
    cached = audio_in = write = reasoning = audio_out = 0
    write_split: Any = None
    if details_in is not None:
        get_in = details_in.get if type(details_in) is dict else functools.partial(_get, details_in)
        value, audio, written = get_in("cached_tokens"), get_in("audio_tokens"), get_in("cache_write_tokens")
        cached = value if type(value) is int and value >= 0 else _count(value, "cached_tokens", problems)
        audio_in = (
            audio if type(audio) is int and audio >= 0 else _count(audio, "prompt audio_tokens", problems)
        )
        if written is not None:
            write = _count(written, "cache_write_tokens", problems)
            write_split = get_in("cache_write_tokens_details")
    if details_out is not None:
        get_out = details_out.get if type(details_out) is dict else functools.partial(_get, details_out)
        value, audio = get_out("reasoning_tokens"), get_out("audio_tokens")
        reasoning = (
            value if type(value) is int and value >= 0 else _count(value, "reasoning_tokens", problems)
        )
        audio_out = (
            audio if type(audio) is int and audio >= 0 else _count(audio, "completion audio_tokens", problems)
        )
    write_long = 0
    if write_split is not None:
        write, write_long = _split(write, write_split, "ttl_30m_tokens", "ttl_12h_tokens", problems)
    # Provider fields beside OpenAI's: rare, so looked at only when present.
    hit, miss = get("prompt_cache_hit_tokens"), get("prompt_cache_miss_tokens")
    if hit is not None or miss is not None:
        hit = _count(hit, "prompt_cache_hit_tokens", problems)
        miss = _count(miss, "prompt_cache_miss_tokens", problems)
        if miss is not None and hit + miss != prompt:
            problems.append(
                f"prompt_cache_hit_tokens ({hit}) + prompt_cache_miss_tokens ({miss}) is not prompt_tokens ({prompt})"
            )
            prompt = max(prompt, hit + miss)
        cached = _agreed_reads(cached, hit, "prompt_cache_hit_tokens", problems)
    read_beside, write_beside = get("cache_read_input_tokens"), get("cache_creation_input_tokens")
    beside = 0  # Claude's cache reads and writes, when counted beside ``prompt_tokens``
    if read_beside is not None or write_beside is not None:
        read_beside = _count(read_beside, "cache_read_input_tokens", problems)
        written = _count(write_beside, "cache_creation_input_tokens", problems)
        written_short, written_long = written, 0
        split = get("cache_creation")
        if split is not None:
            written_short, written_long = _split(
                written, split, "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens", problems
            )
        cached = _agreed_reads(cached, read_beside, "cache_read_input_tokens", problems)
        if write or write_long:  # reported twice: the larger one (writes cost more than input)
            if (write, write_long) != (written_short, written_long) and written:
                problems.append(
                    f"cache_write_tokens ({write + write_long}) and cache_creation_input_tokens ({written}) disagree"
                )
            if written_short + written_long > write + write_long:
                write, write_long = written_short, written_long
        else:
            write, write_long = written_short, written_long
        parts = cached + write + write_long
        if native:
            beside = parts
        elif parts > 0 and total is not None and total == prompt + completion + parts:
            beside = parts  # the relay's total counts them beside the prompt, as Anthropic does
        elif parts > prompt:
            beside = parts  # a part cannot exceed its whole: they were counted beside it
            if total is not None and total != prompt + completion:
                problems.append(
                    f"cache reads and writes ({parts}) exceed prompt_tokens ({prompt}) and total_tokens "
                    f"({total}) does not count them: read as beside the prompt"
                )
        prompt += beside
    # Every detail within its parent; each disagreement read the dearer way.
    if cached + write + write_long + audio_in > prompt:
        parts = cached + write + write_long + audio_in
        problems.append(f"cached, written and audio prompt tokens ({parts}) exceed the prompt ({prompt})")
        prompt = parts
    if reasoning:
        if total is not None and total == prompt + completion + reasoning:  # beside the completion (Gemini)
            completion += reasoning
        elif reasoning > completion:
            problems.append(
                f"reasoning_tokens ({reasoning}) exceed completion_tokens ({completion}): read as beside it"
            )
            completion += reasoning
    if audio_out > completion:
        problems.append(f"completion audio_tokens ({audio_out}) exceed completion_tokens ({completion})")
        completion = audio_out
    if total is not None and total != prompt + completion and (total or prompt or completion):
        if total > prompt + completion:
            unexplained = total - prompt - completion
            problems.append(
                f"total_tokens ({total}) is {unexplained} more than prompt ({prompt}) plus completion "
                f"({completion}): the difference is charged as output"
            )
            completion += unexplained
        elif not beside:
            problems.append(
                f"total_tokens ({total}) is less than prompt ({prompt}) plus completion ({completion})"
            )
    cost = get("cost")
    if cost is not None:
        if type(cost) not in (int, float) or not math.isfinite(cost) or cost < 0:
            problems.append(f"cost is {cost!r}, not an amount: ignored")
            cost = None
        else:
            cost = float(cost)
    return (
        prompt,
        cached,
        audio_in,
        completion,
        reasoning,
        audio_out,
        write,
        write_long,
        cost,
        tuple(problems),
    )


def _split(written: int, split: Any, short_key: str, long_key: str, problems: list[str]) -> tuple[int, int]:
    """``(short, long)`` retention writes of ``written`` by their split; writes the split does not
    explain are taken as the long (dearer) ones."""
    get = split.get if isinstance(split, Mapping) else functools.partial(_get, split)
    short = _count(get(short_key), short_key, problems)
    long = _count(get(long_key), long_key, problems)
    if short + long != written:
        problems.append(f"{short_key} ({short}) + {long_key} ({long}) is not the {written} tokens written")
        written = max(written, short + long)
    return short, written - short


def _agreed_reads(cached: int, other: int, name: str, problems: list[str]) -> int:
    """Cache reads reported twice (``cached_tokens`` and a provider's field): the smaller when both say
    something and they differ (reads cost less than input: the dearer reading)."""
    if not other:
        return cached
    if not cached:
        return other
    if cached != other:
        problems.append(f"cached_tokens ({cached}) and {name} ({other}) disagree")
        return min(cached, other)
    return cached


def billed_usd(price: Price, billed: BilledTokens) -> tuple[float, float]:
    """``(input_usd, output_usd)`` of billed tokens at ``price`` (already the tier's)."""
    figures = (
        billed.prompt,
        billed.cached,
        billed.audio_input,
        billed.completion,
        billed.reasoning,
        billed.audio_output,
        billed.cache_write,
        billed.cache_write_long,
        billed.reported_cost,
        billed.problems,
    )
    return figures_usd(price, figures)


def figures_usd(price: Price, figures: Figures) -> tuple[float, float]:
    """:func:`billed_usd` of figures read by :func:`billed_figures`: reads at the cached price, writes
    at their retention's write price, audio at the audio prices."""
    prompt, cached, audio_input, completion, _, audio_output, write, write_long, _, _ = figures
    text_in = prompt - cached - audio_input - write - write_long
    audio_in = price.input if price.audio_input is None else price.audio_input
    audio_out = price.output if price.audio_output is None else price.audio_output
    input_usd = (text_in * price.input + cached * price.cached_input + audio_input * audio_in) / 1e6
    if write or write_long:
        input_usd += (write * price.write + write_long * price.write_long) / 1e6
    output_usd = ((completion - audio_output) * price.output + audio_output * audio_out) / 1e6
    return input_usd, output_usd


def unpriced_writes(price: Price, write: int, write_long: int) -> tuple[str, ...]:
    """What :func:`figures_usd` priced without a published price: writes of a model whose table entry
    has no write price (at the input price), or no long-retention one (at the short retention's)."""
    out = []
    if (write or write_long) and price.cache_write is None:
        out.append(
            f"{write + write_long} cache-write tokens priced at the input price: the table has no write price"
        )
    elif write_long and price.cache_write_long is None:
        out.append(
            f"{write_long} long-retention cache-write tokens priced at the short retention's price: the table "
            "has no long-retention price"
        )
    return tuple(out)


def asked_retention(usage: Mapping[str, Any], body: Mapping[str, Any]) -> Mapping[str, Any]:
    """``usage`` with its cache writes kept at the retention the request asked for, when it does not
    say itself: Chat Completions reports ``cache_write_tokens`` without the 30-minute / 12-hour split the
    Responses API gives, and a request asking ``prompt_cache_options: {"ttl": "12h"}`` wrote them for
    12 hours (read as the short retention otherwise: both providers' default)."""
    options = body.get("prompt_cache_options")
    if not isinstance(options, Mapping) or options.get("ttl") != "12h":
        return usage
    details = usage.get("prompt_tokens_details")
    if not isinstance(details, Mapping) or details.get("cache_write_tokens_details") is not None:
        return usage
    written = details.get("cache_write_tokens")
    if type(written) is not int or written <= 0:
        return usage
    split = {"ttl_30m_tokens": 0, "ttl_12h_tokens": written}
    return {**usage, "prompt_tokens_details": {**details, "cache_write_tokens_details": split}}


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
