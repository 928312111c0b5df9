"""What a usage tracker learns from billed responses: the token-count correction of each model that
is counted with a stand-in tokenizer (see :mod:`holyclient.tokens._calibration`).

Every reservation of such a model keeps its stand-in count and content mix; when the response's bill
arrives the pair becomes a calibration sample. Reservations use the calibration given at creation, and
per model the online fit once it has seen :attr:`CalibrationLearner.LEARN_AFTER` responses (refitted
every that many new ones: fitting is not free).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tokens import Calibration, OnlineCalibration, TokenCount

#: What a reservation keeps to learn from its bill: the model's table name, stand-in count, content mix.
StandIn = tuple[str, int, dict[str, float]]

#: Whether each model name met so far is counted with a stand-in tokenizer (see ``learns``).
_STAND_IN: dict[str, bool] = {}
_STAND_IN_KEPT = 1024


class CalibrationLearner:
    """The given calibration, and what billed responses teach on top of it (thread-safe)."""

    #: Billed responses of a model needed before the online fit replaces the given calibration.
    LEARN_AFTER = 20

    def __init__(self, calibration: Calibration | str | Path | None) -> None:
        if isinstance(calibration, (str, Path)):
            from ..tokens import Calibration

            calibration = Calibration.load(calibration)
        self._given = calibration
        self._online: OnlineCalibration | None = None
        self._fitted: Calibration | None = calibration
        self._fitted_at = 0
        self._lock = threading.Lock()

    @staticmethod
    def learns(body: Mapping[str, Any]) -> bool:
        """Whether a request's bill would teach something (its model is counted with a stand-in).

        Asked of every settled answer: known per model name once (the tokenizer a name maps to does
        not change while the process runs)."""
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return False
        known = _STAND_IN.get(model)
        if known is None:
            from ..tokens import encoding_name_for_model

            if len(_STAND_IN) >= _STAND_IN_KEPT:  # names from user input: keep the memo bounded
                _STAND_IN.clear()
            known = _STAND_IN[model] = encoding_name_for_model(model)[1]
        return known

    def count(self, body: Mapping[str, Any], name: str, endpoint: str) -> tuple[TokenCount, StandIn | None]:
        """The prompt's count of a request to ``endpoint`` for the model whose table name is ``name``
        (corrected, with its range), and what to keep to learn from its bill (None for an exact count)."""
        from ..tokens import profile_request, qualify_profile

        counted, weights = profile_request(body, endpoint=endpoint, model=name)
        if not counted.approximate or counted.low is not None:  # exact, or exact text in a template
            return counted, None
        qualified = qualify_profile(counted, weights, self._in_use())
        # Nothing counted (a Responses continuation: its earlier turns are on the server) teaches nothing.
        return qualified, (name, counted.tokens, weights) if counted.tokens > 0 else None

    def learn(self, stand_in: StandIn, usage: Any) -> None:
        """Add a billed response of a reservation that kept ``stand_in``."""
        from ..tokens import OnlineCalibration, Sample
        from ._cost import usage_tokens

        name, raw, weights = stand_in
        billed = usage_tokens(usage)[0]
        if billed <= 0 or raw <= 0:  # a fit skips such a sample: it must not count toward the refit either
            return
        with self._lock:
            if self._online is None:
                self._online = OnlineCalibration()
        self._online.add(Sample(name, raw, weights, billed))

    def calibration(self) -> Calibration:
        """Everything learnt so far, over the calibration given at creation."""
        from ..tokens import Calibration

        merged = Calibration(dict(self._given.models) if self._given else {})
        if self._online is not None:
            merged.models.update(self._online.fit().models)
        return merged

    def _in_use(self) -> Calibration | None:
        online = self._online
        if online is None or online.added < self._fitted_at + self.LEARN_AFTER:
            return self._fitted
        with self._lock:
            self._fitted_at = online.added
            learnt = self.calibration()
            given = self._given.models if self._given else {}
            kept = {n: f for n, f in learnt.models.items() if f.samples >= self.LEARN_AFTER}
            learnt.models = {**given, **kept}
            self._fitted = learnt
        return learnt
