"""One request's outcome on each side, and the pair a report row is drawn from. No I/O.

Apart from the report so that what fills a pair in (the embedding judge) and what reads it (the report,
the HTML page) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._similarity import Output, Similarity

#: How much of each answer the report keeps (the HTML shows differing requests side by side).
MAX_TEXT = 2000


@dataclass
class SideResult:
    """One request's outcome on one side: ``latency`` and ``ttft`` from its first attempt's start (the
    retries and their waits included), ``attempts`` sent (None: not sent, or not known)."""

    status: int | None
    error: str | None
    latency: float | None
    ttft: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    output: Output
    attempts: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def retries(self) -> int | None:
        return None if self.attempts is None else max(self.attempts - 1, 0)

    def as_dict(self, cny_rate: float) -> dict[str, Any]:
        return {
            "status": self.status,
            "error": self.error,
            "latency_s": self.latency,
            "ttft_s": self.ttft,
            "attempts": self.attempts,
            "retries": self.retries,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "cost_cny": None if self.cost_usd is None else self.cost_usd * cny_rate,
            "output": self.output.display()[:MAX_TEXT],
        }


@dataclass
class Pair:
    custom_id: str
    stream: bool
    local_tokens: int | None
    old: SideResult
    new: SideResult
    similarity: Similarity
    repeats: list[SideResult] = field(default_factory=list)
    noise: float | None = None
    embedding_similarity: float | None = None
    embedding_noise: float | None = None

    def as_dict(self, cny_rate: float) -> dict[str, Any]:
        return {
            "custom_id": self.custom_id,
            "stream": self.stream,
            "local_prompt_tokens": self.local_tokens,
            "similarity": self.similarity.score,
            "similarity_method": self.similarity.method,
            "noise_similarity": self.noise,
            "embedding_similarity": self.embedding_similarity,
            "embedding_noise": self.embedding_noise,
            "old": self.old.as_dict(cny_rate),
            "new": self.new.as_dict(cny_rate),
        }
