"""What a usage tracker reports: totals per model and a consistent snapshot of them (plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._cost import money_repr


@dataclass(frozen=True)
class ModelUsage:
    """Totals for one model. ``cost_usd`` is None when the model has no known price.

    Attributes:
        approximate_requests: requests whose tokens were counted locally because the server sent no
            usage (a stream left early, or a server that ignores ``stream_options``).
        uncertain_requests: requests whose outcome is unknown (timeout or dropped connection after
            sending), charged at their worst case; their completion tokens are unknown and not counted.
        cache_write_tokens: the part of ``prompt_tokens`` written to the prompt cache, priced at the
            model's write prices (``cached_tokens`` are the reads, at the cached price).
        cache_write_long_tokens: the part of ``cache_write_tokens`` kept at the long retention (1 hour on
            Claude, 12 hours on OpenAI), priced at its own write price.
        reported_cost_usd: the sum of what the relay reported charging (``usage.cost``) for the requests
            that report it; None when none did.
        cost_mismatches: requests whose reported cost differed from holyclient's price of them (by more
            than 1%, or $0.000001): the snapshot's ``warnings`` and the log name the first.
        unreconciled_requests: requests whose usage did not add up (a detail larger than its parent, a
            total that is not prompt plus completion ...): each was priced the dearer way its numbers
            allow, and the first of each kind is in ``warnings`` and the log.
        lower_bound_requests: streams left before their end (closed early or dropped unclosed, their
            usage never sent): each is settled at what was read, counted locally, which is a lower
            bound -- the server bills what it generated until it noticed the caller had gone -- and the
            rest of what it held (without a budget: would have held) is in the snapshot's
            ``uncertain_usd``. Counted among ``approximate_requests`` too.
        priced_as: the model whose prices these answers were charged at, when the name they answered
            under is not in the price table (a relay's upstream id): the model the requests asked for.
            None when the answered name has its own price.
    """

    requests: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float | None
    approximate_requests: int = 0
    uncertain_requests: int = 0
    cache_write_tokens: int = 0
    cache_write_long_tokens: int = 0
    reported_cost_usd: float | None = None
    cost_mismatches: int = 0
    unreconciled_requests: int = 0
    lower_bound_requests: int = 0
    priced_as: str | None = None

    def __repr__(self) -> str:
        return money_repr(self)


@dataclass(frozen=True)
class UsageSnapshot:
    """A consistent copy of a tracker's totals.

    Attributes:
        uncertain_usd: the part of ``total_cost_usd`` charged at the worst case for requests whose
            outcome is unknown (the server may or may not have billed them), and for streams left
            before their end, what they held beyond what was read (see ``lower_bound_requests``).
        approximate: True when some of the totals were counted locally rather than reported by the server.
        warnings: what went wrong beside the calls without failing them (a ``record_to`` file that could
            not be written, so recording stopped).
        overrun_usd: how much settled requests cost beyond what they held against the budget (requests
            without an output cap hold an expected answer length: see the budget policy); 0 when every
            answer fitted its hold.
        overrun_requests: how many settled requests cost more than they held.
        pending_requests: background responses (``responses.create(background=True)``) still running,
            whose usage is not known yet: each stays held against the budget until retrieving,
            cancelling or deleting it shows how it ended, and is charged then.
    """

    models: dict[str, ModelUsage]
    total_cost_usd: float
    reserved_usd: float
    budget_usd: float | None
    remaining_usd: float | None
    unpriced_models: tuple[str, ...]
    uncertain_usd: float = 0.0
    warnings: tuple[str, ...] = ()
    overrun_usd: float = 0.0
    overrun_requests: int = 0
    pending_requests: int = 0

    def __repr__(self) -> str:
        return money_repr(self)

    @property
    def approximate(self) -> bool:
        return any(m.approximate_requests for m in self.models.values())

    @property
    def uncertain_requests(self) -> int:
        return sum(m.uncertain_requests for m in self.models.values())

    @property
    def total_tokens(self) -> int:
        return sum(m.prompt_tokens + m.completion_tokens for m in self.models.values())

    @property
    def unreconciled_requests(self) -> int:
        """Requests whose usage did not add up (see :attr:`ModelUsage.unreconciled_requests`)."""
        return sum(m.unreconciled_requests for m in self.models.values())

    @property
    def lower_bound_requests(self) -> int:
        """Streams settled at what was read, a lower bound (see :attr:`ModelUsage.lower_bound_requests`)."""
        return sum(m.lower_bound_requests for m in self.models.values())

    @property
    def cost_mismatches(self) -> int:
        """Requests whose relay-reported cost differed from holyclient's (see :class:`ModelUsage`)."""
        return sum(m.cost_mismatches for m in self.models.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "models": {
                name: {
                    "requests": m.requests,
                    "prompt_tokens": m.prompt_tokens,
                    "cached_tokens": m.cached_tokens,
                    "completion_tokens": m.completion_tokens,
                    "cost_usd": m.cost_usd,
                    "approximate_requests": m.approximate_requests,
                    "uncertain_requests": m.uncertain_requests,
                    "cache_write_tokens": m.cache_write_tokens,
                    "cache_write_long_tokens": m.cache_write_long_tokens,
                    "reported_cost_usd": m.reported_cost_usd,
                    "cost_mismatches": m.cost_mismatches,
                    "unreconciled_requests": m.unreconciled_requests,
                    "lower_bound_requests": m.lower_bound_requests,
                    "priced_as": m.priced_as,
                }
                for name, m in self.models.items()
            },
            "total_cost_usd": self.total_cost_usd,
            "reserved_usd": self.reserved_usd,
            "budget_usd": self.budget_usd,
            "remaining_usd": self.remaining_usd,
            "unpriced_models": list(self.unpriced_models),
            "uncertain_usd": self.uncertain_usd,
            "approximate": self.approximate,
            "warnings": list(self.warnings),
            "overrun_usd": self.overrun_usd,
            "overrun_requests": self.overrun_requests,
            "unreconciled_requests": self.unreconciled_requests,
            "cost_mismatches": self.cost_mismatches,
            "lower_bound_requests": self.lower_bound_requests,
            "pending_requests": self.pending_requests,
        }


class Totals:
    """A model's running totals inside a tracker (mutable, under the tracker's lock)."""

    __slots__ = (
        "approximate",
        "cached",
        "completion",
        "cost",
        "early",
        "mismatches",
        "priced",
        "priced_as",
        "prompt",
        "reported",
        "requests",
        "uncertain",
        "unreconciled",
        "written",
        "written_long",
    )

    def __init__(self) -> None:
        self.requests = 0
        self.prompt = 0
        self.cached = 0
        self.written = 0
        self.written_long = 0
        self.completion = 0
        self.cost = 0.0
        self.priced = True
        self.priced_as: str | None = None  # the model asked, whose price charges an unknown answered name
        self.approximate = 0
        self.uncertain = 0
        self.reported: float | None = None  # what the relay reported it charged, when it did
        self.mismatches = 0
        self.unreconciled = 0
        self.early = 0  # streams left before their end, settled at what was read

    def usage(self) -> ModelUsage:
        """The totals as the snapshot shows them (a cost only when the model has a price)."""
        return ModelUsage(
            self.requests,
            self.prompt,
            self.cached,
            self.completion,
            self.cost if self.priced else None,
            self.approximate,
            self.uncertain,
            self.written,
            self.written_long,
            self.reported,
            self.mismatches,
            self.unreconciled,
            self.early,
            self.priced_as,
        )
