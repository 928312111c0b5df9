"""The OpenAI Batch API (``client.batches``): one JSONL file of requests processed within a window.

Not to be confused with :mod:`holyclient.batch`, the client-side runner that sends requests itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

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


class BatchUsage(BaseModel):
    """Tokens the whole batch used (already billed by the provider; never re-counted in ``client.usage``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: dict[str, Any] | None = None
    output_tokens_details: dict[str, Any] | None = None


class Batch(BaseModel):
    usage_is_billed: ClassVar[bool] = False
    """The batch's ``usage`` was billed by its requests: ``client.usage`` does not count it again."""

    id: str
    object: str = "batch"
    endpoint: str = ""
    input_file_id: str = ""
    completion_window: str = "24h"
    status: str = ""
    created_at: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: BatchErrors | None = None
    in_progress_at: int | None = None
    expires_at: int | None = None
    finalizing_at: int | None = None
    completed_at: int | None = None
    failed_at: int | None = None
    expired_at: int | None = None
    cancelling_at: int | None = None
    cancelled_at: int | None = None
    request_counts: BatchRequestCounts | None = None
    metadata: dict[str, str] | None = None
    model: str | None = None
    usage: BatchUsage | None = None
