"""Legacy text completions (``client.completions.create``); a streamed chunk is a ``Completion`` too."""

from __future__ import annotations

from pydantic import Field

from ._model import BaseModel
from ._shared import CompletionUsage


class CompletionLogprobs(BaseModel):
    def __repr_name__(self) -> str:
        return "Logprobs"  # openai's name for it (``openai.types.completion_choice.Logprobs``)

    text_offset: list[int] | None = None
    token_logprobs: list[float] | None = None
    tokens: list[str] | None = None
    top_logprobs: list[dict[str, float]] | None = None


# Fields in openai's order, so that completions print and dump as openai's do.
class CompletionChoice(BaseModel):
    finish_reason: str | None = None
    index: int = 0
    logprobs: CompletionLogprobs | None = None
    text: str = ""


class Completion(BaseModel):
    id: str
    choices: list[CompletionChoice] = Field(default_factory=list)
    created: int = 0
    model: str
    object: str = "text_completion"
    system_fingerprint: str | None = None
    usage: CompletionUsage | None = None
    """On the response; on a stream, only on the last chunk with ``stream_options={"include_usage": True}``."""
