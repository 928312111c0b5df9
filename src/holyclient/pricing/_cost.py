"""Model prices and cost estimates, from a sourced table shipped in the package.

The table (``holyclient/_data/models.json``) lists, per model: provider, tokenizer, context window,
max output tokens, USD per 1M tokens for input, cached input and output, optional long-context tiers,
aliases, dated snapshots, and the ``source`` and ``as_of`` date of each price. Users extend or override
it with a JSON file of the same shape, given with ``--prices FILE`` or the ``HOLYSHEEP_PRICES``
environment variable; an entry for a known model may give only the fields it changes.

HolySheep bills in CNY at 1 CNY per 1 USD of list price (:data:`DEFAULT_CNY_RATE`); every estimate
can be shown in CNY at another rate.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ._billed import BilledTokens, billed_tokens, billed_usd, unpriced_writes
from ._table import ModelInfo, Price, PriceFileError, PriceTable, Tier, UnknownModelError

__all__ = [
    "DEFAULT_CNY_RATE",
    "DEFAULT_OUTPUT_TOKENS",
    "CostEstimate",
    "ModelInfo",
    "Price",
    "PriceFileError",
    "PriceTable",
    "Tier",
    "UnknownModelError",
    "cost_from_usage",
    "default_table",
    "estimate_cost",
    "estimate_request",
    "lookup_model",
    "requested_output_tokens",
    "usage_tokens",
]

#: Output tokens assumed for a request that sets neither ``max_tokens`` nor ``max_completion_tokens``.
#: A typical chat answer; pass ``output_tokens=`` (or ``--output-tokens``) for your own workload.
DEFAULT_OUTPUT_TOKENS = 512

#: CNY charged per USD of list price by HolySheep.
DEFAULT_CNY_RATE = 1.0


def clean_float(value: float) -> float:
    """``9.000000000000001e-07`` -> ``9e-07``: money sums carry binary noise that a repr should not show."""
    return float(f"{value:.12g}")


def money_repr(obj: Any, *extra: tuple[str, float]) -> str:
    """The dataclass repr, floats shown without their noise, ``extra`` computed fields appended."""
    shown = [(f.name, getattr(obj, f.name)) for f in fields(obj) if f.repr] + list(extra)
    parts = (f"{name}={clean_float(v) if isinstance(v, float) else v!r}" for name, v in shown)
    return f"{type(obj).__name__}({', '.join(parts)})"


@dataclass(frozen=True)
class CostEstimate:
    """What a request costs (or would cost).

    Attributes:
        model: the table's name for the model.
        requested_model: the name that was asked for (an alias or snapshot, say).
        input_tokens: prompt tokens, cached ones included.
        cached_input_tokens: the part of ``input_tokens`` served from the prompt cache.
        output_tokens: completion tokens (reasoning included).
        output_assumed: True when ``output_tokens`` is an assumption, not a measurement.
        approximate: True when the tokens were counted with a stand-in tokenizer.
        input_usd, output_usd, cost_usd: the costs in USD.
        cache_write_input_tokens: the part of ``input_tokens`` written to the prompt cache (at either
            retention), priced at the model's write prices.
        reported_cost_usd: what the relay says the request cost (``usage.cost``), when it says so.
        problems: what did not add up in the usage it was priced from (see
            :mod:`holyclient.pricing._billed`); it was priced the dearer way.
    """

    model: str
    requested_model: str
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    output_assumed: bool
    approximate: bool
    input_usd: float
    output_usd: float
    cost_usd: float
    cache_write_input_tokens: int = 0
    reported_cost_usd: float | None = None
    problems: tuple[str, ...] = ()

    def cost_cny(self, rate: float = DEFAULT_CNY_RATE) -> float:
        """The cost in CNY as HolySheep bills it (``rate`` CNY per USD of list price)."""
        return self.cost_usd * rate

    def __repr__(self) -> str:  # USD and CNY (at the default rate), as the README shows it
        return money_repr(self, ("cost_cny", self.cost_cny()))

    def as_dict(self, cny_rate: float | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "requested_model": self.requested_model,
            "input_tokens": self.input_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "output_tokens": self.output_tokens,
            "output_assumed": self.output_assumed,
            "approximate": self.approximate,
            "input_usd": self.input_usd,
            "output_usd": self.output_usd,
            "cost_usd": self.cost_usd,
            "cache_write_input_tokens": self.cache_write_input_tokens,
            "reported_cost_usd": self.reported_cost_usd,
            "problems": list(self.problems),
        }
        if cny_rate is not None:
            out["cost_cny"] = self.cost_cny(cny_rate)
        return out


_default: PriceTable | None = None
_default_lock = threading.Lock()


def default_table() -> PriceTable:
    """The built-in table plus ``HOLYSHEEP_PRICES``, loaded once per process."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = PriceTable.load()
    return _default


def lookup_model(model: str, table: PriceTable | None = None) -> ModelInfo:
    """Find a model's table entry by name, alias or snapshot; see :meth:`PriceTable.lookup`."""
    return (table or default_table()).lookup(model)


def estimate_cost(
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    cached_input_tokens: int = 0,
    output_assumed: bool = False,
    approximate: bool | None = None,
    table: PriceTable | None = None,
) -> CostEstimate:
    """Price a number of tokens on a model (tiers and cache discount applied).

    Raises:
        UnknownModelError: the model has no price.
        ValueError: negative token counts, or more cached than input tokens.
    """
    if input_tokens < 0 or output_tokens < 0 or cached_input_tokens < 0:
        raise ValueError("token counts must not be negative")
    if cached_input_tokens > input_tokens:
        raise ValueError(f"cached_input_tokens ({cached_input_tokens}) exceeds input_tokens ({input_tokens})")
    info = lookup_model(model, table)
    price = info.price_for(input_tokens)
    input_usd = (
        (input_tokens - cached_input_tokens) * price.input + cached_input_tokens * price.cached_input
    ) / 1e6
    output_usd = output_tokens * price.output / 1e6
    return CostEstimate(
        model=info.name,
        requested_model=model,
        input_tokens=input_tokens,
        cached_input_tokens=cached_input_tokens,
        output_tokens=output_tokens,
        output_assumed=output_assumed,
        approximate=info.approximate if approximate is None else approximate,
        input_usd=input_usd,
        output_usd=output_usd,
        cost_usd=input_usd + output_usd,
    )


def requested_output_tokens(body: Mapping[str, Any]) -> int | None:
    """The output cap a request sets (``max_completion_tokens``, else ``max_tokens``, else the Responses
    API's ``max_output_tokens``), if any."""
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def estimate_request(
    body: Mapping[str, Any],
    *,
    model: str | None = None,
    output_tokens: int | None = None,
    cached_input_tokens: int = 0,
    image_size: tuple[int, int] | None = None,
    table: PriceTable | None = None,
    endpoint: str | None = None,
) -> CostEstimate:
    """Estimate a request's cost before sending it.

    Input tokens are counted offline (:func:`holyclient.tokens.count_request`). Output tokens are, in
    order: ``output_tokens``; the body's ``max_completion_tokens`` or ``max_tokens`` times ``n``; else
    :data:`DEFAULT_OUTPUT_TOKENS` times ``n``. Embedding requests have no output.

    Args:
        body: the request body (chat or embeddings).
        model: price this model instead of ``body["model"]``.
        output_tokens: assumed completion tokens (overrides the body).
        cached_input_tokens: prompt tokens expected to be served from the cache.
        image_size: size assumed for images given by URL.
        table: a price table (default: built-in + ``HOLYSHEEP_PRICES``).
        endpoint: the path the body is sent to (``"/v1/chat/completions"``...); without it the shape
            is guessed from the body's keys (see :func:`holyclient.tokens.count_request`).

    Raises:
        UnknownModelError: the model has no price.
        ValueError / TypeError: the body is not a chat or embeddings request.
    """
    from ..tokens import count_request, shape_of

    name = model or body.get("model")
    if not isinstance(name, str) or not name:
        raise ValueError("no model: the body has no 'model' and none was given")
    table = table or default_table()
    info = table.lookup(name)  # fail on an unknown model before spending time counting
    counted = count_request(body, endpoint=endpoint, model=_counting_name(name, info), image_size=image_size)
    assumed = output_tokens is None
    generates = shape_of(endpoint) != "embeddings" if endpoint is not None else "messages" in body
    if not generates:
        out = 0
        assumed = False
    elif output_tokens is not None:
        out = output_tokens
    else:
        cap = requested_output_tokens(body)
        n = body.get("n")
        choices = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
        out = (cap if cap is not None else DEFAULT_OUTPUT_TOKENS) * choices
    return estimate_cost(
        name,
        counted.tokens,
        out,
        cached_input_tokens=min(cached_input_tokens, counted.tokens),
        output_assumed=assumed,
        approximate=counted.approximate or info.approximate,
        table=table,
    )


def _counting_name(requested: str, info: ModelInfo) -> str:
    """The name to count tokens for: the requested one when the tokenizer knows it, else the table's
    (a user alias such as ``my-gpt`` for ``gpt-4.1`` is then counted exactly)."""
    from ..tokens import encoding_name_for_model

    if not encoding_name_for_model(requested)[1] or encoding_name_for_model(info.name)[1]:
        return requested
    return info.name


def usage_tokens(usage: Any) -> tuple[int, int, int]:
    """``(prompt, cached, completion)`` tokens from a ``usage`` dict or object of any shape (None fields
    count as 0; reasoning tokens reported beside the completion are added to it)."""
    billed = billed_tokens(usage)
    return billed.prompt, billed.cached, billed.completion


def cost_from_usage(model: str, usage: Any, *, table: PriceTable | None = None) -> CostEstimate:
    """Price a real response from its ``usage`` (a dict or the SDK's usage object).

    Every shape is priced (see :mod:`holyclient.pricing._billed`): prompt-cache reads
    (``prompt_tokens_details`` or the Responses API's ``input_tokens_details``, DeepSeek's and Claude's
    fields) at the cached price, cache writes at the write price of their retention, reasoning tokens
    as output (added when reported beside ``completion_tokens``), audio tokens at the model's audio
    prices, and the long-context tier the whole prompt falls in. Usage that does not add up is priced
    the dearer way and says so in ``problems``; a cost the relay reports is kept as ``reported_cost_usd``.

    Raises:
        UnknownModelError: the model has no price.
    """
    return billed_cost(model, billed_tokens(usage), table=table)


def billed_cost(model: str, billed: BilledTokens, *, table: PriceTable | None = None) -> CostEstimate:
    """:func:`cost_from_usage` of a usage already read (:func:`~._billed.billed_tokens`): a tracker that
    needs both the tokens and the cost of every answer reads the usage once.

    Raises:
        UnknownModelError: the model has no price.
    """
    info = lookup_model(model, table)
    price = info.price_for(billed.prompt)
    input_usd, output_usd = billed_usd(price, billed)
    return CostEstimate(
        model=info.name,
        requested_model=model,
        input_tokens=billed.prompt,
        cached_input_tokens=billed.cached,
        output_tokens=billed.completion,
        output_assumed=False,
        approximate=False,
        input_usd=input_usd,
        output_usd=output_usd,
        cost_usd=input_usd + output_usd,
        cache_write_input_tokens=billed.cache_write + billed.cache_write_long,
        reported_cost_usd=billed.reported_cost,
        problems=billed.problems + unpriced_writes(price, billed.cache_write, billed.cache_write_long),
    )
