"""What compare's requests cost: the worst case before sending, each answer's price, local token counts."""

from __future__ import annotations

from typing import Any


def price(model: str, usage: Any) -> float | None:
    from ..pricing import UnknownModelError, cost_from_usage

    try:
        return cost_from_usage(model, usage).cost_usd
    except (UnknownModelError, ValueError):
        return None


def worst_case(requests: list[Any]) -> float | None:
    """The most the requests can cost (their max_tokens, or 512 assumed), or None if a model is unpriced."""
    from ..pricing import UnknownModelError, estimate_request

    total = 0.0
    for request in requests:
        try:
            total += estimate_request(request.body, endpoint=request.url).cost_usd
        except (UnknownModelError, ValueError, TypeError):
            return None
    return total


def add_embedding_cost(worst: float, requests: list[Any], model: str) -> float | None:
    """``worst`` plus embedding every answer (at most its max_tokens), or None if ``model`` has no price."""
    from ..pricing import UnknownModelError, estimate_cost, estimate_request

    try:
        tokens = sum(estimate_request(r.body, endpoint=r.url).output_tokens for r in requests)
        return worst + estimate_cost(model, tokens, 0).cost_usd
    except (UnknownModelError, ValueError, TypeError):
        return None


def local_tokens(requests: list[Any]) -> dict[str, int | None]:
    from ..tokens import count_request

    out: dict[str, int | None] = {}
    for request in requests:
        try:
            out[request.custom_id] = count_request(request.body, endpoint=request.url).tokens
        except (ValueError, TypeError, KeyError):
            out[request.custom_id] = None
    return out
