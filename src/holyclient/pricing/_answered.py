"""Which price charges an answer: the model that answered, or, when the price table does not know that
name, the model the request asked for.

A relay may answer under its upstream's id (``anthropic.claude-sonnet-4-5-20250929-v1:0`` for
``claude-sonnet-4.5``). Usage is kept under the model that answered; priced by that name alone, such an
answer would cost $0 and a budget would never refuse. It is priced as the model asked instead, and
flagged: in the model's totals (``ModelUsage.priced_as``), once in the snapshot's warnings and the log
(see :meth:`~holyclient.pricing._book.Book.record`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._table import ModelInfo, PriceTable

__all__ = ["price_of", "priced_as_note"]


def price_of(prices: PriceTable, model: str, asked: str | None) -> tuple[ModelInfo | None, str | None]:
    """``(the entry that charges an answer under model, the name asked when it is that one's)``; the
    entry is None when neither name has a price."""
    info = prices.get(model)
    if info is not None or not asked or asked == model:
        return info, None
    info = prices.get(asked)
    return info, (asked if info is not None else None)


def priced_as_note(model: str, asked: str) -> str:
    """What the snapshot's warnings and the log say of answers under ``model`` priced as ``asked``."""
    return (
        f"answers under the model name {model!r}, which the price table does not know, are priced as "
        f"{asked!r}, the model the request asked for; add {model!r} to HOLYSHEEP_PRICES to price it"
    )
