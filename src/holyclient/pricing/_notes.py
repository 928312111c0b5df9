"""What a usage tracker notes beside its totals: usage that did not add up, a relay-reported cost that
differs from holyclient's price, and anything else that went wrong beside the calls. The snapshot shows
them (``UsageSnapshot.warnings``) and the ``holyclient`` logger says them; each kind of problem is noted
once per model, since a busy client behind an odd relay would otherwise repeat one line per request
(the snapshot's counters count every request)."""

from __future__ import annotations

import logging
import re

from .._constants import LOGGER_NAME
from ._snapshot import Totals

logger = logging.getLogger(LOGGER_NAME)

_DIGITS = re.compile(r"\d+")
#: (model, kind of problem) pairs noted; beyond this many, new kinds are counted but not noted.
NOTED_KEPT = 256
#: A relay's cost differs from holyclient's when apart by more than this share (or 1e-6 USD).
COST_TOLERANCE = 0.01


class Notes:
    """A tracker's warnings, and those still to be logged (used under the tracker's lock; :meth:`flush`
    after it is released: a log handler may read the tracker)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self._noted: set[tuple[str, str]] = set()
        self._to_log: list[str] = []

    @property
    def pending(self) -> bool:
        """Whether something waits to be logged."""
        return bool(self._to_log)

    def warn(self, text: str) -> None:
        """Something that went wrong beside the calls, told by its owner (who logs it)."""
        self.warnings.append(text)

    def note(self, model: str, kind: str, text: str) -> None:
        """``text`` in the warnings and the log, the first time ``model`` meets this kind of problem."""
        key = (model, _DIGITS.sub("N", kind))
        if key in self._noted or len(self._noted) >= NOTED_KEPT:
            return
        self._noted.add(key)
        self.warnings.append(text)
        self._to_log.append(text)

    def usage(
        self,
        model: str,
        totals: Totals,
        problems: tuple[str, ...],
        reported: float | None,
        cost: float | None,
    ) -> None:
        """Count and note what a recorded usage said beside its tokens: the ways it did not add up, and
        the cost the relay reported (kept beside holyclient's ``cost``, compared with it)."""
        if problems:
            totals.unreconciled += 1
            for problem in problems:
                self.note(model, problem, f"usage of {model} did not add up: {problem}")
        if reported is not None:
            totals.reported = (totals.reported or 0.0) + reported
            if cost is not None and abs(reported - cost) > max(1e-6, COST_TOLERANCE * cost):
                totals.mismatches += 1
                self.note(
                    model,
                    "reported cost",
                    f"the relay reported ${reported:.6f} for a request of {model} that holyclient prices at "
                    f"${cost:.6f} (cost_mismatches counts every such request)",
                )

    def flush(self) -> None:
        """Log what :meth:`note` queued."""
        while self._to_log:
            try:
                text = self._to_log.pop(0)
            except IndexError:  # another thread logged the last one
                return
            logger.warning("%s", text)
