"""Corrections fitted from what the relay billed: stand-in counts made right for a workload.

For a model whose tokenizer holyclient does not have, each billed request gives a sample: the stand-in
count (``o200k_base``), the request's mix of content kinds, and the billed ``usage.prompt_tokens``. The fit
is the ratio of the totals (billed / stand-in; the ratio a workload's total follows), and its error the
spread of the per-request ratios around it. When the samples cover several content kinds, a factor per
kind is fitted too (least squares on the kind mix) and kept only if it measurably helps: it must cut the
residual spread by a fifth or more. Applying the fit to a new request gives an estimate and a range of
three standard deviations around it.

The file written by ``holyclient calibrate`` and :meth:`Calibration.save` is plain JSON::

    {"schema": 1, "models": {"claude-sonnet-4.5": {"factor": 1.31, "error": 0.04, "samples": 120,
                                                   "kinds": {"prose": 1.24, "code": 1.39}}}}
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import HolyClientError
from ._ranges import KINDS

__all__ = ["Calibration", "CalibrationFileError", "ModelFit", "Sample", "fit"]

#: Standard deviations of the per-request ratio the range spans.
SPREAD = 3.0
#: A fitted per-kind model is kept only if it cuts the residual spread by at least this share.
KIND_GAIN = 0.2
#: The smallest relative error a range assumes: a fit on a few identical requests is not perfect.
MIN_ERROR = 0.01


class CalibrationFileError(HolyClientError, ValueError):
    """A calibration file cannot be read or has the wrong shape (the message names the file and field)."""


@dataclass(frozen=True)
class Sample:
    """One billed request: its model, stand-in count, kind mix (estimated tokens) and billed count."""

    model: str
    stand_in: int
    weights: Mapping[str, float]
    billed: int


@dataclass(frozen=True)
class ModelFit:
    """A model's correction: billed ~= stand-in x factor (per content kind when ``kinds`` is set).

    Attributes:
        factor: billed tokens per stand-in token over the whole sample.
        error: relative standard deviation of a request's billed count around the fit.
        samples: how many requests the fit saw.
        kinds: a factor per content kind, when that fitted measurably better.
    """

    factor: float
    error: float
    samples: int
    kinds: Mapping[str, float] | None = None

    def ratio(self, weights: Mapping[str, float]) -> float:
        """The factor for a request with this kind mix."""
        if not self.kinds:
            return self.factor
        total = sum(w for k, w in weights.items() if k in self.kinds)
        if total <= 0:
            return self.factor
        return sum(self.kinds[k] * w for k, w in weights.items() if k in self.kinds) / total

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "factor": round(self.factor, 6),
            "error": round(self.error, 6),
            "samples": self.samples,
        }
        if self.kinds:
            out["kinds"] = {k: round(v, 6) for k, v in self.kinds.items()}
        return out


@dataclass
class Calibration:
    """Fitted corrections per model (looked up by the name the requests used)."""

    models: dict[str, ModelFit] = field(default_factory=dict)

    def get(self, model: str) -> ModelFit | None:
        """The fit for a model name, also found without a provider prefix or in another case."""
        fit_ = self.models.get(model)
        if fit_ is None:
            key = model.strip().lower().rsplit("/", 1)[-1]
            fit_ = next((f for name, f in self.models.items() if name.lower() == key), None)
        return fit_

    def apply(self, model: str, stand_in: int, weights: Mapping[str, float]) -> tuple[int, int, int] | None:
        """``(estimate, low, high)`` for a stand-in count, or None when the model was not calibrated."""
        fit_ = self.get(model)
        if fit_ is None:
            return None
        ratio = fit_.ratio(weights)
        width = SPREAD * max(fit_.error, MIN_ERROR)
        return (
            round(stand_in * ratio),
            math.floor(stand_in * ratio * max(1.0 - width, 0.0)),
            math.ceil(stand_in * ratio * (1.0 + width)),
        )

    def as_dict(self) -> dict[str, Any]:
        return {"schema": 1, "models": {name: f.as_dict() for name, f in sorted(self.models.items())}}

    def save(self, path: str | Path) -> None:
        """Write the calibration as JSON (atomically: a reader never sees half a file)."""
        from .._core import write_atomically

        write_atomically(Path(path), [json.dumps(self.as_dict(), indent=2) + "\n"])

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration file.

        Raises:
            CalibrationFileError: the file is missing, not JSON, or a field has the wrong shape.
        """
        try:
            data = json.loads(Path(path).read_text("utf-8-sig"))
        except OSError as exc:
            raise CalibrationFileError(
                f"{path}: cannot read calibration file: {exc.strerror or exc}"
            ) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationFileError(f"{path}:1: not a JSON calibration file ({exc})") from None
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: Any, *, origin: str = "<calibration>") -> Calibration:
        models = data.get("models") if isinstance(data, Mapping) else None
        if not isinstance(models, Mapping):
            raise CalibrationFileError(f"{origin}:1: models: expected an object of model fits")
        out = cls()
        for name, entry in models.items():
            where = f"{origin}:1: models.{name}"
            if not isinstance(entry, Mapping):
                raise CalibrationFileError(f"{where}: expected an object")
            factor: Any = entry.get("factor")
            error: Any = entry.get("error")
            if not _positive(factor):
                raise CalibrationFileError(f"{where}.factor: expected a positive number, got {factor!r}")
            if not _positive(error, zero=True):
                raise CalibrationFileError(f"{where}.error: expected a non-negative number, got {error!r}")
            kinds = entry.get("kinds")
            if kinds is not None and (
                not isinstance(kinds, Mapping)
                or any(k not in KINDS or not _positive(v) for k, v in kinds.items())
            ):
                raise CalibrationFileError(
                    f"{where}.kinds: expected {{kind: positive number}}, kinds {KINDS}"
                )
            samples = entry.get("samples", 0)
            out.models[str(name)] = ModelFit(
                float(factor), float(error), int(samples) if isinstance(samples, int) else 0, kinds
            )
        return out


def _positive(value: Any, *, zero: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    return value >= 0 if zero else value > 0


def fit(samples: Iterable[Sample]) -> Calibration:
    """Fit a correction per model from billed samples (requests with a zero stand-in count are skipped)."""
    by_model: dict[str, list[Sample]] = {}
    for sample in samples:
        if sample.stand_in > 0 and sample.billed >= 0:
            by_model.setdefault(sample.model, []).append(sample)
    return Calibration({model: _fit_model(group) for model, group in by_model.items()})


def _fit_model(samples: list[Sample]) -> ModelFit:
    factor = sum(s.billed for s in samples) / sum(s.stand_in for s in samples)
    pooled = _spread(samples, lambda s: factor)
    kinds = _fit_kinds(samples)
    if kinds is not None:
        per_kind = ModelFit(factor, 0.0, len(samples), kinds)
        spread = _spread(samples, lambda s: per_kind.ratio(s.weights))
        if spread < pooled * (1 - KIND_GAIN):
            return ModelFit(factor, spread, len(samples), kinds)
    return ModelFit(factor, pooled, len(samples))


def _spread(samples: list[Sample], ratio: Any) -> float:
    """Relative standard deviation of billed counts around the fit's predictions."""
    if len(samples) < 2:
        return 0.0
    squares = sum((s.billed / (s.stand_in * ratio(s)) - 1.0) ** 2 for s in samples)
    return math.sqrt(squares / (len(samples) - 1))


def _fit_kinds(samples: list[Sample]) -> dict[str, float] | None:
    """Least-squares factors per kind (billed ~= sum_k f_k * stand_in * share_k), or None when the
    samples do not cover at least two kinds with enough requests each to tell them apart."""
    kinds = sorted({k for s in samples for k, w in s.weights.items() if w > 0})
    if len(kinds) < 2 or len(samples) < 4 * len(kinds):
        return None
    rows = []
    for s in samples:
        total = sum(s.weights.values()) or 1.0
        rows.append(([s.stand_in * s.weights.get(k, 0.0) / total for k in kinds], float(s.billed)))
    n = len(kinds)
    # Normal equations, weighted by 1/stand_in so long requests do not drown short ones.
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for (x, y), s in zip(rows, samples, strict=True):
        w = 1.0 / s.stand_in
        for i in range(n):
            b[i] += w * x[i] * y
            for j in range(n):
                a[i][j] += w * x[i] * x[j]
    solved = _solve(a, b)
    if solved is None or any(v <= 0 for v in solved):
        return None
    return dict(zip(kinds, solved, strict=True))


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None for a singular system (kinds never apart)."""
    n = len(b)
    m = [[*row[:], b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


class OnlineCalibration:
    """Samples gathered from every billed response (thread-safe), fitted on demand."""

    def __init__(self, limit: int = 10_000) -> None:
        self._samples: list[Sample] = []
        self._limit = limit
        self._lock = threading.Lock()
        self.added = 0  #: samples ever added (the list keeps the newest ``limit``)

    def add(self, sample: Sample) -> None:
        with self._lock:
            self.added += 1
            if len(self._samples) >= self._limit:  # keep the newest: traffic drifts
                del self._samples[: self._limit // 10]
            self._samples.append(sample)

    def fit(self) -> Calibration:
        with self._lock:
            samples = list(self._samples)
        return fit(samples)
