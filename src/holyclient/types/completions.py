"""Legacy text completions (``client.completions.create``); a streamed chunk is a ``Completion`` too."""

from __future__ import annotations

from pydantic import Field

from ._model import BaseModel
from .shared import CompletionUsage


class CompletionLogprobs(BaseModel):
    text_offset: list[int] | None = None
    token_logprobs: list[float] | None = None
    tokens: list[str] | None = None
    top_logprobs: list[dict[str, float]] | None = None


class CompletionChoice(BaseModel):
    index: int = 0
    text: str = ""
    finish_reason: str | None = None
    logprobs: CompletionLogprobs | None = None


class Completion(BaseModel):
    id: str
    object: str = "text_completion"
    created: int = 0
    model: str
    choices: list[CompletionChoice] = Field(default_factory=list)
    usage: CompletionUsage | None = None
    """On the response; on a stream, only on the last chunk with ``stream_options={"include_usage": True}``."""
    system_fingerprint: str | None = None
