"""What a budget says when it refuses a request before sending: one :class:`BudgetExceededError` per
reason, its message saying what was held and why (the budget policy's reason for an output hold)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .._exceptions import BudgetExceededError

if TYPE_CHECKING:
    from ._charging import Charging
    from ._cost import PriceTable

__all__ = ["over_budget", "unpriced"]


def unpriced(
    charging: Charging, model: str, prices: PriceTable, remaining: float | None
) -> BudgetExceededError:
    """The refusal of a request the budget cannot price: an unknown model, an endpoint without a price,
    or a route no declaration names."""
    if charging.holds != "unpriced":
        reason = str(prices.unknown(model))
    elif not charging.declared:
        reason = (
            f"{charging.name} has no charging declaration in holyclient, so it may be billed at a price "
            "holyclient does not know; a client with a budget refuses it before sending (a client without "
            "budget_usd sends it and counts it as unpriced)"
        )
    else:
        reason = f"holyclient has no price for a {charging.name} (priced per image, second or character)"
    return BudgetExceededError(
        f"Cannot check the budget: {reason}",
        requested_usd=math.inf,
        remaining_usd=remaining if remaining is not None else math.inf,
    )


def over_budget(
    held: float, prompt: int, output: int, model: str, why: str, remaining: float, budget: float
) -> BudgetExceededError:
    """The refusal of a request whose hold (``prompt`` + ``output`` tokens on ``model``, the output
    being ``why``) exceeds what is left of the budget."""
    left = max(remaining, 0.0)
    return BudgetExceededError(
        f"Request refused before sending: it holds ${held:.6f} ({prompt} prompt + {output} output tokens on "
        f"{model}, the output being {why}), more than the ${left:.6f} left of the ${budget:.6f} budget. "
        "Set max_tokens lower or raise the budget.",
        requested_usd=held,
        remaining_usd=left,
    )
