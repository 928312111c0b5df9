"""Types shared by several API areas (token usage)."""

from __future__ import annotations

from ._model import BaseModel as _Model


class PromptTokensDetails(_Model):
    audio_tokens: int | None = None
    cache_write_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens served from the provider's cache (billed at the cached-input price)."""
    image_tokens: int | None = None
    text_tokens: int | None = None


class CompletionTokensDetails(_Model):
    accepted_prediction_tokens: int | None = None
    audio_tokens: int | None = None
    reasoning_tokens: int | None = None
    rejected_prediction_tokens: int | None = None
    text_tokens: int | None = None


# In openai's field order, so that a usage object prints and dumps as openai's does.
class CompletionUsage(_Model):
    completion_tokens: int = 0
    prompt_tokens: int = 0
    total_tokens: int = 0
    completion_tokens_details: CompletionTokensDetails | None = None
    prompt_tokens_details: PromptTokensDetails | None = None
