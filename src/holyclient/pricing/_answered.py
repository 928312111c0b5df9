"""Which price charges an answer: the model that answered, or, when the price table does not know that
name, the model the request asked for.

A relay may answer under its upstream's id (``anthropic.claude-sonnet-4-5-20250929-v1:0`` for
``claude-sonnet-4.5``). Usage is kept under the model that answered; priced by that name alone, such an
answer would cost $0 and a budget would never refuse. It is priced as the model asked instead, and
flagged: in the model's totals (``ModelUsage.priced_as``), once in the snapshot's warnings and the log.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .._constants import LOGGER_NAME

if TYPE_CHECKING:
    from ._snapshot import Totals
    from ._table import ModelInfo, PriceTable

__all__ = ["price_of"]

logger = logging.getLogger(LOGGER_NAME)


def price_of(
    prices: PriceTable, model: str, asked: str | None, totals: Totals
) -> tuple[ModelInfo | None, str | None]:
    """``(the price table's entry that charges an answer under model, a note to show)``: the note (also
    logged) the first time ``model``'s answers are priced as ``asked``; the entry is None when neither
    name has a price."""
    if not asked or asked == model or prices.get(model) is not None:
        return prices.get(model), None
    info = prices.get(asked)
    if info is None or totals.priced_as == asked:
        return info, None
    totals.priced_as = asked
    note = (
        f"answers under the model name {model!r}, which the price table does not know, are priced as "
        f"{asked!r}, the model the request asked for; add {model!r} to HOLYSHEEP_PRICES to price it"
    )
    logger.warning("holyclient usage: %s", note)
    return info, note
