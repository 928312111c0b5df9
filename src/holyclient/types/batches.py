"""The OpenAI Batch API (``client.batches``): one JSONL file of requests processed within a window.

Not to be confused with :mod:`holyclient.batch`, the client-side runner that sends requests itself.
"""

from __future__ import annotations

from ._model import BaseModel


class BatchRequestCounts(BaseModel):
    completed: int = 0
    failed: int = 0
    total: int = 0


class BatchError(BaseModel):
    code: str | None = None
    line: int | None = None
    message: str | None = None
    param: str | None = None


class BatchErrors(BaseModel):
    data: list[BatchError] | None = None
    object: str | None = None

    def __repr_name__(self) -> str:
        return "Errors"  # ``openai.types.batch.Errors``


class InputTokensDetails(BaseModel):
    cached_tokens: int = 0


class OutputTokensDetails(BaseModel):
    reasoning_tokens: int = 0


class BatchUsage(BaseModel):
    """Tokens the whole batch used (already billed by the provider; never re-counted in ``client.usage``)."""

    input_tokens: int = 0
    input_tokens_details: InputTokensDetails | None = None
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails | None = None
    total_tokens: int = 0


# openai's fields in openai's order, so that a batch prints and dumps as openai's does.
class Batch(BaseModel):
    id: str
    completion_window: str = "24h"
    created_at: int = 0
    endpoint: str = ""
    input_file_id: str = ""
    object: str = "batch"
    status: str = ""
    cancelled_at: int | None = None
    cancelling_at: int | None = None
    completed_at: int | None = None
    error_file_id: str | None = None
    errors: BatchErrors | None = None
    expired_at: int | None = None
    expires_at: int | None = None
    failed_at: int | None = None
    finalizing_at: int | None = None
    in_progress_at: int | None = None
    metadata: dict[str, str] | None = None
    model: str | None = None
    output_file_id: str | None = None
    request_counts: BatchRequestCounts | None = None
    usage: BatchUsage | None = None
