"""How much output a request holds against a budget before it is sent: the budget policy.

A request that sets an output cap (``max_completion_tokens``, ``max_tokens``, ``max_output_tokens``)
holds exactly that: its worst case is known. Most applications set none, and the worst case is then
the model's whole output limit (32,768 tokens on gpt-4.1, 64,000 on Claude Sonnet 4.5): held for every
call, it makes a small budget refuse its very first request. So the policy decides what an uncapped
request holds:

* ``"expected"`` (the default): the output this client's own billed answers for that model show -- the
  95th percentile of the last :data:`WINDOW` answers' completion tokens, once :data:`LEARN_FROM` have
  been seen; before that the larger of :data:`PRIOR_OUTPUT_TOKENS` and the largest answer seen. An
  answer longer than its hold is settled at its real cost, and the tracker reports by how much holds
  were exceeded (``UsageSnapshot.overrun_usd``). Only answers to requests like the ones it holds for
  teach it (:func:`teaches`): an answer to a request that set its own output cap (``max_tokens=1``)
  or asked for ``n`` choices says nothing about how long an uncapped single answer runs, and ten
  ``max_tokens=1`` calls would otherwise make every uncapped request hold 1 output token.
* ``"worst_case"``: the model's whole output limit (never more than its context window leaves); the
  budget is then never exceeded.

Both hold at most the model's output limit, times ``n`` choices.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._cost import requested_output_tokens

if TYPE_CHECKING:
    from ._charging import Charging
    from ._learning import CalibrationLearner, StandIn
    from ._table import ModelInfo

__all__ = [
    "LEARN_FROM",
    "PRIOR_OUTPUT_TOKENS",
    "WINDOW",
    "BudgetPolicy",
    "OutputEstimate",
    "Reservation",
    "output_hold",
    "request_hold",
    "teaches",
]

BudgetPolicy = Literal["expected", "worst_case"]
POLICIES: tuple[BudgetPolicy, ...] = ("expected", "worst_case")

#: Output tokens an uncapped request holds before the client has seen answers of its model: twice a
#: typical chat answer (:data:`~holyclient.pricing.DEFAULT_OUTPUT_TOKENS`), so a first answer of
#: ordinary length stays within its hold.
PRIOR_OUTPUT_TOKENS = 1024
#: Answers of a model needed before their percentile replaces the prior.
LEARN_FROM = 10
#: How many of a model's latest answers the percentile is taken over (old ones age out).
WINDOW = 200
#: The percentile of answer lengths held: 1 uncapped request in 20 may outgrow its hold.
QUANTILE = 0.95


class OutputEstimate:
    """Per model, the completion tokens of its latest billed answers, and what an uncapped request holds
    (thread-safe; the percentile is recomputed only when new answers arrived)."""

    def __init__(self) -> None:
        self._seen: dict[str, deque[int]] = {}
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def observe(self, model: str, completion_tokens: int) -> None:
        """Add a billed answer's completion tokens (reasoning included)."""
        with self._lock:
            seen = self._seen.get(model)
            if seen is None:
                seen = self._seen[model] = deque(maxlen=WINDOW)
            seen.append(completion_tokens)
            self._held.pop(model, None)

    def why(self, model: str) -> str:
        """Where :meth:`tokens` of ``model`` comes from, for a refusal's message: the default, the longest
        answer seen, or the percentile of the answers seen."""
        with self._lock:
            seen = list(self._seen.get(model, ()))
        if len(seen) >= LEARN_FROM:
            return (
                f"the {round(QUANTILE * 100)}th percentile of the last {len(seen)} uncapped answers of {model} "
                "this client has seen (budget_policy='expected')"
            )
        so_far = f"it has seen {len(seen)} of the {LEARN_FROM} it learns from"
        if seen and max(seen) > PRIOR_OUTPUT_TOKENS:
            return (
                f"the longest uncapped answer of {model} this client has seen "
                f"({so_far}; budget_policy='expected')"
            )
        return (
            f"the {PRIOR_OUTPUT_TOKENS:,}-token default, not yet learnt from this client's answers "
            f"({so_far}; budget_policy='expected')"
        )

    def tokens(self, model: str) -> int:
        """The output an uncapped request of ``model`` holds (see the module docstring)."""
        held = self._held.get(model)
        if held is not None:
            return held
        with self._lock:
            seen = sorted(self._seen.get(model, ()))
            if len(seen) < LEARN_FROM:
                held = max(PRIOR_OUTPUT_TOKENS, seen[-1] if seen else 0)
            else:
                held = seen[max(math.ceil(QUANTILE * len(seen)) - 1, 0)]
            self._held[model] = held
        return held


def choices(body: Mapping[str, Any]) -> int:
    """How many answers a request asks for (``n``), at least 1."""
    n = body.get("n")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1


def teaches(body: Mapping[str, Any] | None) -> bool:
    """Whether the answer to ``body`` teaches the expected answer length: a request with no output cap of
    its own and one choice, as the requests the estimate holds for (see the module docstring). An answer
    whose request is unknown teaches nothing."""
    if body is None:
        return False
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens"):  # as requested_output_tokens
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return False
    n = body.get("n")  # (inline: this runs on every settled answer)
    return not (isinstance(n, int) and not isinstance(n, bool) and n > 1)


def output_hold(
    body: Mapping[str, Any],
    *,
    model: str,
    max_output_tokens: int,
    room: int,
    policy: BudgetPolicy,
    estimate: OutputEstimate,
) -> tuple[int, str]:
    """``(output tokens held, why)`` for a generating request (see the module docstring).

    Args:
        model: the price table's name of the model (what answers are learnt under).
        max_output_tokens: the model's output limit.
        room: what the context window leaves after the prompt.
    """
    n = choices(body)
    cap = requested_output_tokens(body)
    if cap is not None:
        return cap * n, "its max_tokens"
    limit = min(max_output_tokens, room)
    if policy == "worst_case":
        return limit * n, "the model's whole output limit (budget_policy='worst_case')"
    expected = estimate.tokens(model)
    why = estimate.why(model)
    if limit < expected:
        why = f"what the model's output limit and context window leave, below {why}"
    return min(expected, limit) * n, why


def request_hold(
    body: Mapping[str, Any],
    charging: Charging,
    info: ModelInfo,
    learner: CalibrationLearner,
    policy: BudgetPolicy,
    estimate: OutputEstimate,
    prompt: int | None = None,
) -> tuple[int, int, str, StandIn | None]:
    """``(prompt tokens, output tokens, why that output, stand-in)`` a request to ``charging``'s endpoint
    holds on the model ``info``: its prompt counted at the high end of the count's range (a stand-in
    count may be far below the bill) unless its count is given, and for a generation its output under
    ``policy``."""
    stand_in = None
    if prompt is None:
        counted, stand_in = learner.count(body, info.name, charging.counts or "chat")
        prompt = counted.input_tokens_range[1]
    if not charging.generates:
        return prompt, 0, "none (nothing is generated)", stand_in
    output, why = output_hold(
        body,
        model=info.name,
        max_output_tokens=info.max_output_tokens,
        room=max(info.context_window - prompt, 0),
        policy=policy,
        estimate=estimate,
    )
    return prompt, output, why, stand_in


@dataclass(frozen=True)
class Reservation:
    """A request's place in the budget until it is settled.

    Attributes:
        model: the model of the request.
        prompt_tokens: prompt tokens counted offline, at the high end of the count's range when the
            count is not exact (None when not counted).
        worst_case_usd: the amount held (0 when the model has no price).
        priced: False when the model has no price (its cost is then unknown).
        stand_in: the uncorrected stand-in count and kind mix of a count that is not exact: what the
            billed usage is compared with to learn the correction online.
        teaches: the answer teaches the expected answer length (:func:`teaches`).
    """

    id: int
    model: str
    prompt_tokens: int | None
    worst_case_usd: float
    priced: bool
    stand_in: StandIn | None = field(default=None, compare=False)
    teaches: bool = field(default=False, compare=False)
