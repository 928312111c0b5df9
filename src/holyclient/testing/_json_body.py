"""The one JSON encoding every answer of the local server uses: compact and UTF-8 as the relay sends it."""

from __future__ import annotations

import json
from typing import Any


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text (no spaces after separators, non-ASCII kept as is)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def sse(event: str | None, payload: dict[str, Any]) -> bytes:
    """One server-sent event carrying ``payload`` as JSON, named ``event`` when given."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {dumps(payload)}\n\n".encode()
