"""TEMPORARY stub written by the lead so the client tests run; helper-1 (issue 3) replaces this file
with the real UsageTracker (same interface: reserve/settle/record, budget_usd)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any


class UsageTracker:
    def __init__(self, budget_usd: float | None = None) -> None:
        self.budget_usd = budget_usd
        self._lock = threading.Lock()
        self.requests: dict[str, int] = {}

    def reserve(self, body: Mapping[str, Any]) -> Any:
        return body.get("model")

    def settle(self, reservation: Any, usage: Mapping[str, Any] | None) -> None:
        if usage is not None:
            self.record(str(reservation), usage)

    def record(self, model: str, usage: Mapping[str, Any]) -> None:
        with self._lock:
            self.requests[model] = self.requests.get(model, 0) + 1
