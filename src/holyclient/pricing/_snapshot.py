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
    priced_as: str | None = None

    def __repr__(self) -> str:
        return money_repr(self)


@dataclass(frozen=True)
class UsageSnapshot:
    """A consistent copy of a tracker's totals.

    Attributes:
        uncertain_usd: the part of ``total_cost_usd`` charged at the worst case for requests whose
            outcome is unknown (the server may or may not have billed them).
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
            "pending_requests": self.pending_requests,
        }


class Totals:
    """A model's running totals inside a tracker (mutable, under the tracker's lock)."""

    __slots__ = (
        "approximate",
        "cached",
        "completion",
        "cost",
        "priced",
        "priced_as",
        "prompt",
        "requests",
        "uncertain",
    )

    def __init__(self) -> None:
        self.requests = 0
        self.prompt = 0
        self.cached = 0
        self.completion = 0
        self.cost = 0.0
        self.priced = True
        self.approximate = 0
        self.uncertain = 0
        self.priced_as: str | None = None
