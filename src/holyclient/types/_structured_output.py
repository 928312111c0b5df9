"""How a ``parse()`` result was obtained: the way structured output was asked for, and every attempt.

``completion.structured_output`` (chat) and ``response.structured_output`` (Responses) carry one
:class:`StructuredOutput`: ``"json_schema"`` for the strict JSON schema openai's ``parse()`` sends (one
attempt, nothing else changes), or the fallback a model that cannot take a schema needed -- ``"tool"``
(a forced call of a tool whose parameters are the schema) or ``"json_object"`` (JSON mode with the
schema in the prompt) -- with each attempt: refused by the server, answered but not valid (then
repaired once), or answered. Plain data, not a model field: printing or dumping the result shows what
openai's shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class StructuredAttempt:
    """One request ``parse()`` sent.

    Attributes:
        method: ``"json_schema"``, ``"tool"`` or ``"json_object"``.
        outcome: ``"rejected"`` (a 400 saying the way is unavailable: not charged), ``"invalid"`` (the
            answer did not validate and was repaired by the next attempt) or ``"answered"``.
        usage: the usage the answer reported, as a dict (``None`` for a refusal).
        cost_usd: its list price from holyclient's price table (``0.0`` for a refusal, ``None`` for a
            model with no price); the client's ``usage`` tracker charged it as any other call.
    """

    method: str
    outcome: str
    # The usage object as answered and how to price it: read on first access only, so a parse() whose
    # result nobody inspects does not pay for a dump and a price lookup.
    answered_usage: Any = field(default=None, repr=False, compare=False)
    price: Callable[[dict[str, Any]], float | None] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def usage(self) -> dict[str, Any] | None:
        value = self.answered_usage
        data = value.model_dump() if hasattr(value, "model_dump") else value
        return data if isinstance(data, dict) else None

    @cached_property
    def cost_usd(self) -> float | None:
        if self.outcome == "rejected":
            return 0.0
        usage = self.usage
        return None if usage is None or self.price is None else self.price(usage)

    def __repr__(self) -> str:
        return (
            f"StructuredAttempt(method={self.method!r}, outcome={self.outcome!r}, usage={self.usage!r}, "
            f"cost_usd={self.cost_usd!r})"
        )


@dataclass(frozen=True)
class StructuredOutput:
    """The way a parsed result was obtained and what it took (see the module docstring)."""

    method: str
    attempts: tuple[StructuredAttempt, ...]

    @property
    def repaired(self) -> bool:
        """Whether a first answer failed validation and a repair request was sent."""
        return any(attempt.outcome == "invalid" for attempt in self.attempts)

    @property
    def cost_usd(self) -> float | None:
        """The list price of every attempt together; ``None`` when a model has no price."""
        costs = [attempt.cost_usd for attempt in self.attempts]
        return None if any(cost is None for cost in costs) else sum(cost or 0.0 for cost in costs)


class CarriesStructuredOutput:
    """Mixed into ``ParsedChatCompletion`` and ``ParsedResponse``: the ``structured_output`` attribute.

    Kept in the instance ``__dict__`` beside the fields, as ``_request_id`` is, so serialization,
    equality and printing ignore it.
    """

    __dict__: dict[str, Any]

    @property
    def structured_output(self) -> StructuredOutput | None:
        """How ``parse()`` (or a ``stream()`` with a format) obtained this result; ``None`` otherwise."""
        value = self.__dict__.get("_structured_output")
        return value if isinstance(value, StructuredOutput) else None


def set_structured_output(result: Any, info: StructuredOutput) -> None:
    """Record ``info`` on a parsed result (see :class:`CarriesStructuredOutput`)."""
    result.__dict__["_structured_output"] = info
