"""Types shared by several API areas (token usage)."""

from __future__ import annotations

from ._model import BaseModel as _Model


class PromptTokensDetails(_Model):
    cached_tokens: int | None = None
    """Prompt tokens served from the provider's cache (billed at the cached-input price)."""
    audio_tokens: int | None = None


class CompletionTokensDetails(_Model):
    reasoning_tokens: int | None = None
    audio_tokens: int | None = None
    accepted_prediction_tokens: int | None = None
    rejected_prediction_tokens: int | None = None


class CompletionUsage(_Model):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: PromptTokensDetails | None = None
    completion_tokens_details: CompletionTokensDetails | None = None
