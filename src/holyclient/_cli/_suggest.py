""" "Did you mean ...?" for a model name the price table does not know: one wording for every command.

``estimate`` warns with it and ``doctor`` refuses with it; both ask the price table for its close
matches (``PriceTable.unknown``), so a typo such as ``gpt-4.1-mni`` is answered the same way everywhere.
"""

from __future__ import annotations

from typing import Any


def did_you_mean(table: Any, model: str) -> str:
    """`` (did you mean a, b?)`` for a model ``table`` has no price for; empty when nothing is close."""
    hint = table.unknown(model).suggestions
    return f" (did you mean {', '.join(hint)}?)" if hint else ""
