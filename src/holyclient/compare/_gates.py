"""Gates: ``METRIC OP VALUE`` expressions checked against a report's metrics. No I/O.

``VALUE`` is a number, or ``noise`` optionally plus or minus a number (``similarity>=noise-0.05``):
the old endpoint's agreement with itself, measured with ``--repeat 2`` or more.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: The metrics a gate may name, with what each one means (shown by ``--help`` and in errors).
METRICS = {
    "p50_ratio": "new/old median latency (first attempt to final answer, retries included)",
    "p95_ratio": "new/old 95th-percentile latency (the same)",
    "ttft_p95_ratio": "new/old 95th-percentile time to first token (streams; retries included)",
    "cost_ratio": "new/old total cost",
    "token_ratio": "new/old prompt tokens",
    "error_rate": "share of requests that failed on the new endpoint",
    "retry_rate": "share of the new endpoint's attempts that were retries (0 when none was needed)",
    "retries": "retries the new endpoint needed, all requests together",
    "similarity": "mean similarity of old and new answers",
    "noise": "mean similarity of the old endpoint with itself (--repeat 2)",
    "embedding_similarity": "mean embedding cosine of old and new prose answers (--embedding-model)",
    "embedding_noise": "mean embedding cosine of the old endpoint with itself",
}
#: The noise floor a ``noise``-relative gate on each metric is judged against.
NOISE_OF = {"embedding_similarity": "embedding_noise"}
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "==": operator.eq,
}
_GATE = re.compile(
    r"^\s*(?P<metric>[a-z0-9_]+)\s*(?P<op><=|>=|==|<|>)\s*"
    r"(?:(?P<noise>noise)\s*(?:(?P<sign>[+-])\s*(?P<offset>\d+(?:\.\d*)?|\.\d+))?|(?P<number>-?\d+(?:\.\d*)?|-?\.\d+))\s*$"
)


class GateError(ValueError):
    """A gate expression that cannot be parsed."""


@dataclass(frozen=True)
class Gate:
    text: str
    metric: str
    op: str
    number: float
    relative_to_noise: bool

    def threshold(self, noise: float | None) -> float | None:
        if not self.relative_to_noise:
            return self.number
        return None if noise is None else noise + self.number


@dataclass(frozen=True)
class GateResult:
    gate: str
    metric: str
    value: float | None
    threshold: float | None
    passed: bool
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {
            "gate": self.gate,
            "metric": self.metric,
            "value": self.value,
            "threshold": self.threshold,
            "passed": self.passed,
            "reason": self.reason,
        }


def parse_gate(text: str) -> Gate:
    """Parse ``METRIC OP VALUE``.

    Raises:
        GateError: naming what is wrong (unknown metric, no operator, bad value).
    """
    match = _GATE.match(text)
    if match is None:
        raise GateError(
            f'gate {text!r} is not METRIC OP VALUE, one argument (quote it: --gate "p95_ratio<=1.3" '
            'or --gate "similarity>=noise-0.05")'
        )
    metric = match["metric"]
    if metric not in METRICS:
        raise GateError(f"gate {text!r}: unknown metric {metric!r} (known: {', '.join(METRICS)})")
    if match["noise"]:
        offset = float(match["offset"] or 0.0)
        number = -offset if match["sign"] == "-" else offset
        if metric in ("noise", "embedding_noise"):
            raise GateError(f"gate {text!r}: noise cannot be compared with itself")
        return Gate(text.strip(), metric, match["op"], number, True)
    return Gate(text.strip(), metric, match["op"], float(match["number"]), False)


def evaluate(gate: Gate, metrics: Mapping[str, float | None]) -> GateResult:
    """Check one gate; a metric that could not be measured fails the gate, saying why."""
    value = metrics.get(gate.metric)
    noise = metrics.get(NOISE_OF.get(gate.metric, "noise"))
    threshold = gate.threshold(noise)
    if threshold is None:
        return GateResult(gate.text, gate.metric, value, None, False, "no noise floor: run with --repeat 2")
    if value is None:
        return GateResult(gate.text, gate.metric, None, threshold, False, f"{gate.metric} was not measured")
    passed = _OPS[gate.op](value, threshold)
    reason = f"{gate.metric} = {value:.4g} {'meets' if passed else 'fails'} {gate.op} {threshold:.4g}"
    return GateResult(gate.text, gate.metric, value, threshold, passed, reason)
