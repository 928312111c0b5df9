"""Background responses still running, by id: what holds each until its usage is known.

``responses.create(background=True)`` answers before the work is done (``status: "queued"``,
``usage: null``). The attempt's :class:`~holyclient.pricing._ledger.Ledger` is then kept here, its hold
still on the tracker, until an answer that shows how the response ended collects it (see the ledger's
module docstring). A Router and its targets share one registry: another target may serve the
retrieval that collects a response this one created.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Deferred", "Kept"]


class Kept(Protocol):
    """What a kept hold is (a ledger): it knows the tracker it charges."""

    @property
    def tracker(self) -> Any: ...


class Deferred:
    """The registry. Each operation is one dict operation, atomic without a lock: a tracker's lock is
    not shared by the trackers that share a registry."""

    def __init__(self) -> None:
        self._kept: dict[str, Kept] = {}

    def keep(self, response_id: str, kept: Kept) -> None:
        self._kept[response_id] = kept

    def take(self, response_id: str) -> Any:
        """What holds ``response_id`` (removed: it is charged once), or None."""
        return self._kept.pop(response_id, None)

    def count(self, tracker: object) -> int:
        """How many kept holds charge ``tracker`` (a Router's total: also those of its targets' trackers)."""
        return sum(
            1
            for kept in list(self._kept.values())
            if kept.tracker is tracker or getattr(kept.tracker, "parent", None) is tracker
        )
