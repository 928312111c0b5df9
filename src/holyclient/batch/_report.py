"""Text for people: the progress line, the end-of-run summary and the dry-run estimate (no I/O here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL, EMBEDDINGS_URL, MODERATIONS_URL
from ..pricing import BilledTokens, UnknownModelError, billed_cost, billed_figures
from ._types import BatchResult, BatchStats

#: The model the moderations endpoint uses when a request names none.
DEFAULT_MODERATION_MODEL = "omni-moderation-latest"
_UNSEEN: Any = object()


def _output_tokens(body: Mapping[str, Any], url: str) -> int:
    """The most output tokens a request may be billed: its cap (or the default) times its choices."""
    from ..pricing import DEFAULT_OUTPUT_TOKENS, requested_output_tokens

    if url in (EMBEDDINGS_URL, MODERATIONS_URL):
        return 0
    cap = requested_output_tokens(body)
    n = body.get("n")
    choices = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
    return (DEFAULT_OUTPUT_TOKENS if cap is None else cap) * choices


@dataclass
class CostTally:
    """USD spent per model, from each result's real usage (``None`` for a model without a price)."""

    per_model: dict[str, float | None] = field(default_factory=dict)
    #: costs by (model, billed tokens): a batch's answers repeat the same few counts
    _seen: dict[tuple[str, Any], float | None] = field(default_factory=dict, repr=False)

    def add(self, result: BatchResult) -> None:
        """Price a result's usage by the client tracker's rule (cached, audio, reasoning, tiers)."""
        if result.usage is None or not result.ok:
            return
        model = result.model or "unknown"
        key = (model, billed_figures(result.usage))  # a plain tuple: hashed and compared in C
        cost = self._seen.get(key, _UNSEEN)
        if cost is _UNSEEN:
            cost = self._seen[key] = self._price(key)
        previous = self.per_model.get(model, 0.0)
        self.per_model[model] = None if cost is None or previous is None else previous + cost

    def _price(self, key: tuple[str, Any]) -> float | None:
        if len(self._seen) > 65536:
            self._seen.clear()
        try:
            return billed_cost(key[0], BilledTokens(*key[1])).cost_usd
        except UnknownModelError:
            return None

    @property
    def total(self) -> float | None:
        known = [cost for cost in self.per_model.values() if cost is not None]
        return sum(known) if known else None


def _usd(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:.4f}" if value < 100 else f"${value:,.2f}"


def _tokens(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1e6:.1f}M"
    if value >= 10_000:
        return f"{value / 1e3:.0f}k"
    return str(value)


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def progress_line(stats: BatchStats, costs: CostTally, total: int | None, elapsed: float) -> str:
    """One status line: done, failed, retries, tokens, cost so far, rate and ETA."""
    rate = stats.done / elapsed if elapsed > 0 else 0.0
    done = f"{stats.done}/{total}" if total is not None else str(stats.done)
    eta = ""
    if total is not None and rate > 0 and stats.done < total:
        eta = f" | ETA {_duration((total - stats.done) / rate)}"
    return (
        f"{done} done | {stats.failed} failed | {stats.retries} retries | "
        f"{_tokens(stats.prompt_tokens + stats.completion_tokens)} tokens | {_usd(costs.total)} | "
        f"{rate:.1f} req/s | concurrency {stats.concurrency}{eta}"
    )


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  "
        + "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]


def summary(stats: BatchStats, costs: CostTally, *, skipped: int = 0, interrupted: bool = False) -> str:
    """The end-of-run report: requests, failures, retries, and tokens and cost per model."""
    rate = stats.done / stats.elapsed if stats.elapsed > 0 else 0.0
    head = "batch interrupted" if interrupted else "batch done"
    lines = [
        f"{head}: {stats.done} requests in {stats.elapsed:.1f}s ({rate:.1f}/s): {stats.succeeded} succeeded, "
        f"{stats.failed} failed; {stats.attempts} attempts ({stats.retries} retries, "
        f"{stats.rate_limited} rate-limited)"
        + (f"; mean latency {stats.mean_latency:.3f}s" if stats.mean_latency is not None else "")
    ]
    if skipped:
        lines.append(f"  {skipped} already in the output were skipped")
    if stats.models:
        rows = [
            [
                model,
                str(tally.requests),
                str(tally.failed),
                str(tally.prompt_tokens),
                str(tally.completion_tokens),
                _usd(costs.per_model.get(model, 0.0 if not tally.prompt_tokens else None)),
            ]
            for model, tally in sorted(stats.models.items())
        ]
        lines += _table(["model", "requests", "failed", "prompt tokens", "completion tokens", "cost"], rows)
    return "\n".join(lines)


def summary_json(
    stats: BatchStats,
    costs: CostTally,
    *,
    skipped: int = 0,
    interrupted: bool = False,
    stopped: str | None = None,
    output: str | None = None,
) -> dict[str, Any]:
    """The end-of-run report as one JSON document (``holyclient batch --json``)."""
    return {
        "output": output,
        "requests": stats.done,
        "succeeded": stats.succeeded,
        "failed": stats.failed,
        "skipped": skipped,
        "attempts": stats.attempts,
        "retries": stats.retries,
        "rate_limited": stats.rate_limited,
        "elapsed_seconds": round(stats.elapsed, 3),
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "cost_usd": costs.total,
        "interrupted": interrupted,
        "stopped": stopped,
        "models": {
            model: {
                "requests": tally.requests,
                "failed": tally.failed,
                "prompt_tokens": tally.prompt_tokens,
                "completion_tokens": tally.completion_tokens,
                "cost_usd": costs.per_model.get(model),
            }
            for model, tally in sorted(stats.models.items())
        },
    }


@dataclass
class DryRunEstimate:
    """Requests, tokens and worst-case cost per model of an input, before sending it."""

    models: dict[str, list[Any]] = field(default_factory=dict)  # model -> [requests, in, out, usd|None]

    def add(self, body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> None:
        """Count one request to ``url``: its input tokens, and its output at the cap it sets (none for
        embeddings and moderations)."""
        from ..pricing import UnknownModelError, estimate_cost, estimate_request
        from ..ratelimit import count_prompt_tokens

        model = str(body.get("model") or DEFAULT_MODERATION_MODEL)
        if "model" not in body:  # a moderation that lets the server pick its model
            body = {**body, "model": model}
        entry = self.models.setdefault(model, [0, 0, 0, 0.0])
        entry[0] += 1
        out = _output_tokens(body, url)
        try:
            estimate = estimate_request(body, endpoint=url)
            if url != CHAT_COMPLETIONS_URL:
                estimate = estimate_cost(model, estimate.input_tokens, out, approximate=estimate.approximate)
        except UnknownModelError:
            entry[1] += count_prompt_tokens(body, url)
            entry[2] += out
            entry[3] = None
            return
        entry[1] += estimate.input_tokens
        entry[2] += estimate.output_tokens
        if entry[3] is not None:
            entry[3] += estimate.cost_usd

    @property
    def requests(self) -> int:
        return sum(entry[0] for entry in self.models.values())

    @property
    def total(self) -> float | None:
        """The worst-case cost of what is left to send (``None``: no model of it has a price)."""
        known = [entry[3] for entry in self.models.values() if entry[3] is not None]
        return sum(known) if known or not self.models else None

    def as_json(self, source: str, already: int = 0) -> dict[str, Any]:
        return {
            "input": source,
            "to_send": self.requests,
            "already_done": already,
            "max_cost_usd": self.total,
            "models": {
                model: {
                    "requests": n,
                    "input_tokens": tokens_in,
                    "max_output_tokens": out,
                    "max_cost_usd": usd,
                }
                for model, (n, tokens_in, out, usd) in sorted(self.models.items())
            },
        }

    def render(self, source: str, already: int = 0) -> str:
        """The table; ``already`` requests have a result in OUTPUT and are neither sent nor priced."""
        requests = self.requests
        rows = [
            [model, str(n), str(tokens_in), str(tokens_out), _usd(usd)]
            for model, (n, tokens_in, tokens_out, usd) in sorted(self.models.items())
        ]
        known = [entry[3] for entry in self.models.values() if entry[3] is not None]
        lines = [
            f"{source}: {requests + already} valid requests: {requests} to send, {already} already done "
            "(dry run: nothing sent)"
        ]
        if rows:
            lines += _table(["model", "requests", "input tokens", "max output tokens", "max cost"], rows)
        total = _usd(self.total)
        from ..pricing import DEFAULT_OUTPUT_TOKENS

        lines.append(
            f"estimated cost at most {total} (output counted at max_tokens, or {DEFAULT_OUTPUT_TOKENS} when unset)"
        )
        if len(known) < len(self.models):
            lines.append("  (models without a price are left out; add them with HOLYSHEEP_PRICES)")
        return "\n".join(lines)
