"""A token count and how much to trust it (see :mod:`holyclient.tokens._count`)."""

from __future__ import annotations

from typing import NamedTuple

from ._ranges import CountMethod


class TokenCount(NamedTuple):
    """A token count and how much to trust it (an immutable tuple: cheap on the hot path).

    Attributes:
        tokens: the count (for a stand-in count, the estimate: the stand-in count times the model
            family's typical ratio, or the calibrated factor).
        model: the model it was counted for.
        encoding: the tiktoken encoding used.
        approximate: True when the model's real tokenizer is not the one used (non-OpenAI models), or
            the input holds parts that cannot be counted offline (audio, files).
        count_method: ``exact`` (the model's own tokenizer and rules), ``calibrated`` (a stand-in
            count corrected from billed usage) or ``approximate`` (corrected by published ratios).
        low, high: the range that holds the billed count (None: ``tokens``, an exact count).
        stand_in: the raw count with ``encoding`` before any correction (None: ``tokens``).
    """

    tokens: int
    model: str
    encoding: str
    approximate: bool
    count_method: CountMethod = "exact"
    low: int | None = None
    high: int | None = None
    stand_in: int | None = None

    def __int__(self) -> int:
        return self.tokens

    @property
    def input_tokens_range(self) -> tuple[int, int]:
        """``(low, high)``: the billed count lies in it; zero width for an exact count."""
        low = self.tokens if self.low is None else self.low
        high = self.tokens if self.high is None else self.high
        return low, high

    @property
    def raw_tokens(self) -> int:
        """The count with ``encoding`` before any correction (what calibration fits against)."""
        return self.tokens if self.stand_in is None else self.stand_in

    def __str__(self) -> str:
        """``13`` when exact, ``~13 (11-17)`` otherwise."""
        if self.count_method == "exact" and self.low is None:
            return f"{self.tokens:,}"
        low, high = self.input_tokens_range
        return f"~{self.tokens:,} ({low:,}-{high:,})"
