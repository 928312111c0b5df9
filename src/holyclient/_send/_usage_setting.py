"""A client's usage tracker, from its settings: its own, or one shared with another client (``usage=``).

A sync and an async client (and the openai clients they hand out) share a tracker, and so its budget,
its totals and what it learns, when the second is given the first's: ``AsyncClient(usage=client.usage)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..pricing import UsageTracker

__all__ = ["tracker_of"]


def tracker_of(settings: Mapping[str, Any]) -> UsageTracker:
    """The client's usage tracker: the one given (``usage=``: another client's, shared with its budget),
    else a new one with the client's budget settings. Made now, not on first use: threads making their
    first calls at once would each make one, losing requests and each enforcing the whole budget.

    Args:
        settings: the client's :class:`~holyclient._send._base_client.ClientSettings`.

    Raises:
        TypeError: ``usage=`` is not a tracker.
        ValueError: ``usage=`` with a budget setting of its own (the tracker's are the ones that apply).
    """
    from ..pricing import UsageTracker

    shared = settings["usage"]
    if shared is None:
        return UsageTracker(
            budget_usd=settings["budget_usd"],
            calibration=settings["calibration"],
            budget_policy=settings["budget_policy"],
        )
    if not isinstance(shared, UsageTracker):
        raise TypeError(
            f"usage= takes a UsageTracker (another client's client.usage), not {type(shared).__name__}"
        )
    given = [
        name
        for name, default in (("budget_usd", None), ("budget_policy", "expected"), ("calibration", None))
        if settings[name] != default
    ]
    if given:
        raise ValueError(
            f"usage= shares a tracker with its own budget, policy and calibration; {', '.join(given)} cannot "
            "be given beside it (set them on the tracker: UsageTracker(budget_usd=...), or on the first client)"
        )
    return shared
