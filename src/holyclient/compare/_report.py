"""The comparison report: per-request pairs, aggregate metrics and gate results. No I/O.

Built from what each side's run returned; :meth:`Report.as_dict` is ``-o report.json`` and what
the HTML page is drawn from. Keys never enter it: it holds base URLs, models and answers only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL
from .._core import safe_url
from ..batch import BatchRequest, BatchResult
from ._embeddings import apply
from ._gates import Gate, GateResult, evaluate
from ._pairs import Pair, SideResult
from ._run import SideRun, Timing
from ._similarity import Output, output_of, similarity
from ._stats import bootstrap_ratio_ci, percentile, ratio


def side_result(
    result: BatchResult | None,
    timing: Timing | None,
    json_mode: bool,
    price: Any,
    url: str = CHAT_COMPLETIONS_URL,
) -> SideResult:
    """A :class:`SideResult` from the runner's result to ``url``; ``price(model, usage)`` returns USD or
    ``None``."""
    latency = timing.latency if timing else None
    ttft = timing.ttft if timing else None
    if result is None:
        return SideResult(None, "not sent", None, None, None, None, None, Output("error", "not sent"))
    if not result.ok:
        if result.error is not None:
            error = f"{result.error.get('code')}: {result.error.get('message')}"
        else:
            body = result.body if isinstance(result.body, Mapping) else {}
            detail = body.get("error")
            message = detail.get("message") if isinstance(detail, Mapping) else None
            error = f"HTTP {result.status_code}: {message or 'error'}"
        return SideResult(
            result.status_code,
            error,
            latency,
            ttft,
            None,
            None,
            None,
            Output("error", error),
            result.attempts,
        )
    usage = result.usage or {}
    prompt = usage.get("prompt_tokens")
    completion = usage.get("completion_tokens")
    cost = price(result.model or "", usage) if usage else None
    return SideResult(
        result.status_code,
        None,
        latency,
        ttft,
        prompt if isinstance(prompt, int) else None,
        completion if isinstance(completion, int) else None,
        cost,
        output_of(result.body, json_mode, url),
        result.attempts,
    )


def is_json_mode(body: Mapping[str, Any]) -> bool:
    """Whether the request asks for JSON: chat's ``response_format``, or the Responses API's
    ``text.format``."""
    fmt = body.get("response_format")
    text = body.get("text")
    if not isinstance(fmt, Mapping) and isinstance(text, Mapping):
        fmt = text.get("format")
    return isinstance(fmt, Mapping) and fmt.get("type") in ("json_object", "json_schema")


def build_pairs(
    requests: Sequence[BatchRequest],
    streams: set[str],
    local_tokens: Mapping[str, int | None],
    old: SideRun,
    new: SideRun,
    repeats: Sequence[SideRun],
    price: Any,
) -> list[Pair]:
    pairs = []
    for request in requests:
        cid = request.custom_id
        json_mode = is_json_mode(request.body)

        def side(
            run: SideRun, cid: str = cid, json_mode: bool = json_mode, url: str = request.url
        ) -> SideResult:
            return side_result(run.results.get(cid), run.timings.get(cid), json_mode, price, url)

        old_side, new_side = side(old), side(new)
        again = [side(run) for run in repeats]
        noise = None
        if again:
            noise = sum(similarity(old_side.output, other.output).score for other in again) / len(again)
        pairs.append(
            Pair(
                cid,
                cid in streams,
                local_tokens.get(cid),
                old_side,
                new_side,
                similarity(old_side.output, new_side.output),
                again,
                noise,
            )
        )
    return pairs


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _sum(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _retry_metrics(name: str, sides: Sequence[SideResult]) -> dict[str, float | None]:
    """A side's attempts, retries (attempts beyond each request's first) and the retries' share of the
    attempts; None when no request's attempts are known."""
    counts = [side.attempts for side in sides if side.attempts is not None]
    if not counts:
        return {f"{name}_attempts": None, f"{name}_retries": None, f"{name}_retry_rate": None}
    attempts, retries = sum(counts), sum(max(count - 1, 0) for count in counts)
    return {
        f"{name}_attempts": float(attempts),
        f"{name}_retries": float(retries),
        f"{name}_retry_rate": retries / attempts if attempts else None,
    }


def retry_summary(metrics: Mapping[str, float | None], side: str, missing: str = "-") -> str:
    """A side's retries and their share of its attempts, as the reports show them: ``14 (43.8%)``."""
    count, rate = metrics[f"{side}_retries"], metrics[f"{side}_retry_rate"]
    if count is None:
        return missing
    return f"{int(count)}" + ("" if rate is None else f" ({rate:.1%})")


def metrics_of(pairs: Sequence[Pair]) -> dict[str, float | None]:
    """The aggregate metrics that gates name (see ``_gates.METRICS``), plus their parts."""
    both = [p for p in pairs if p.old.ok and p.new.ok]
    lat = [
        (p.old.latency, p.new.latency)
        for p in both
        if p.old.latency is not None and p.new.latency is not None
    ]
    ttft = [(p.old.ttft, p.new.ttft) for p in both if p.old.ttft is not None and p.new.ttft is not None]
    old_lat, new_lat = [o for o, _ in lat], [n for _, n in lat]
    metrics: dict[str, float | None] = {
        "requests": float(len(pairs)),
        "old_errors": float(sum(1 for p in pairs if not p.old.ok)),
        "new_errors": float(sum(1 for p in pairs if not p.new.ok)),
        "error_rate": (sum(1 for p in pairs if not p.new.ok) / len(pairs)) if pairs else None,
        "old_p50": percentile(old_lat, 50),
        "new_p50": percentile(new_lat, 50),
        "old_p95": percentile(old_lat, 95),
        "new_p95": percentile(new_lat, 95),
        "old_ttft_p95": percentile([o for o, _ in ttft], 95),
        "new_ttft_p95": percentile([n for _, n in ttft], 95),
        "old_cost_usd": _sum([p.old.cost_usd for p in both]),
        "new_cost_usd": _sum([p.new.cost_usd for p in both]),
        "old_prompt_tokens": _sum([p.old.prompt_tokens for p in both]),
        "new_prompt_tokens": _sum([p.new.prompt_tokens for p in both]),
        "local_prompt_tokens": _sum([p.local_tokens for p in both]),
        "similarity": _mean([p.similarity.score for p in pairs]),
        "noise": _mean([p.noise for p in pairs if p.noise is not None]),
        "embedding_similarity": _mean(
            [p.embedding_similarity for p in pairs if p.embedding_similarity is not None]
        ),
        "embedding_noise": _mean([p.embedding_noise for p in pairs if p.embedding_noise is not None]),
    }
    for name, sides in (("old", [p.old for p in pairs]), ("new", [p.new for p in pairs])):
        metrics.update(_retry_metrics(name, sides))
    metrics["retry_rate"] = metrics["new_retry_rate"]
    metrics["retries"] = metrics["new_retries"]
    metrics["p50_ratio"] = ratio(metrics["new_p50"], metrics["old_p50"])
    metrics["p95_ratio"] = ratio(metrics["new_p95"], metrics["old_p95"])
    metrics["ttft_p95_ratio"] = ratio(metrics["new_ttft_p95"], metrics["old_ttft_p95"])
    metrics["cost_ratio"] = ratio(metrics["new_cost_usd"], metrics["old_cost_usd"])
    metrics["token_ratio"] = ratio(metrics["new_prompt_tokens"], metrics["old_prompt_tokens"])
    for q in (50, 95):
        ci = bootstrap_ratio_ci(lat, q)
        metrics[f"p{q}_ratio_ci_low"], metrics[f"p{q}_ratio_ci_high"] = ci if ci else (None, None)
    return metrics


@dataclass
class Report:
    old_url: str
    new_url: str
    old_model: str | None
    new_model: str | None
    repeat: int
    cny_rate: float
    pairs: list[Pair]
    metrics: dict[str, float | None]
    gates: list[GateResult]

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)

    def as_dict(self) -> dict[str, Any]:
        return {
            "old": {"base_url": self.old_url, "model": self.old_model},
            "new": {"base_url": self.new_url, "model": self.new_model},
            "repeat": self.repeat,
            "cny_rate": self.cny_rate,
            "metrics": self.metrics,
            "cost_cny": {
                side: None if usd is None else usd * self.cny_rate
                for side, usd in (
                    ("old", self.metrics["old_cost_usd"]),
                    ("new", self.metrics["new_cost_usd"]),
                )
            },
            "gates": [g.as_dict() for g in self.gates],
            "passed": self.passed,
            "requests": [p.as_dict(self.cny_rate) for p in self.pairs],
        }


def make_report(
    *,
    embeddings: Mapping[str, Sequence[float]] | None = None,
    old_url: str,
    new_url: str,
    old_model: str | None,
    new_model: str | None,
    repeat: int,
    cny_rate: float,
    pairs: list[Pair],
    gates: Sequence[Gate],
) -> Report:
    if embeddings is not None:
        apply(pairs, embeddings)
    metrics = metrics_of(pairs)
    results = [evaluate(gate, metrics) for gate in gates]
    return Report(
        safe_url(old_url), safe_url(new_url), old_model, new_model, repeat, cny_rate, pairs, metrics, results
    )
