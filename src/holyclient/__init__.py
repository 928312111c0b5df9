"""holyclient: an OpenAI-compatible SDK for the HolySheep relay.

``import holyclient`` stays light: pydantic models, tiktoken and the codemod load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._client._client import AsyncClient, Client
from ._constants import DEFAULT_MAX_RETRIES
from ._core._request import NOT_GIVEN, NotGiven, Omit, not_given, omit
from ._core._retry import RetryPolicy
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BudgetExceededError,
    ConfigurationError,
    ConflictError,
    ContentFilterFinishReasonError,
    FirstEventTimeoutError,
    HolyClientError,
    IncompleteStreamError,
    InternalServerError,
    LengthFinishReasonError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    StreamIdleTimeoutError,
    StreamRestartError,
    UnprocessableEntityError,
)
from ._lazy import lazy_names as _lazy_names
from ._send._streaming import AsyncStream, Stream
from ._version import __version__

if TYPE_CHECKING:
    from ._chat_stream import ChatCompletionStreamState, accumulate_chunks
    from ._http._clients import (
        DefaultAioHttpClient,
        DefaultAsyncHttpx2Client,
        DefaultAsyncHttpxClient,
        DefaultHttpx2Client,
        DefaultHttpxClient,
    )
    from ._http._defaults import DEFAULT_TIMEOUT, Timeout
    from ._parsing import ParsedChatCompletion, pydantic_function_tool
    from ._send._pagination import ModelList
    from .batch import BatchRequest, BatchResult, BatchRunner, BatchStats, run_batch
    from .pricing import (
        CostEstimate,
        ModelInfo,
        PriceFileError,
        PriceTable,
        UnknownModelError,
        cost_from_usage,
        estimate_cost,
        estimate_request,
        lookup_model,
    )
    from .pricing._tracker import UsageSnapshot, UsageTracker
    from .router import AsyncRouter, Router, Target
    from .tokens import (
        TokenCount,
        count_messages,
        count_request,
        count_tokens,
        encoding_for_model,
        image_tokens,
    )
    from .truncation import ContextOverflowError, fit_messages, truncate_text
    from .types import (
        ChatCompletion,
        ChatCompletionChunk,
        ChatCompletionMessageParam,
        ChatCompletionRequest,
        CompletionUsage,
        CreateEmbeddingResponse,
        Embedding,
        Model,
    )
    from .types._structured_output import StructuredAttempt, StructuredOutput

#: The official SDK's names, so that switching is a change of import only.
OpenAI = Client
AsyncOpenAI = AsyncClient
OpenAIError = HolyClientError

#: Names loaded on first access, so that importing the package does not import pydantic.
_LAZY = {
    "Timeout": "._http._defaults",
    "DEFAULT_TIMEOUT": "._http._defaults",
    "DefaultHttpxClient": "._http._clients",
    "DefaultAsyncHttpxClient": "._http._clients",
    "DefaultAioHttpClient": "._http._clients",
    "DefaultHttpx2Client": "._http._clients",
    "DefaultAsyncHttpx2Client": "._http._clients",
    "BatchRequest": ".batch",
    "BatchResult": ".batch",
    "BatchRunner": ".batch",
    "BatchStats": ".batch",
    "run_batch": ".batch",
    "ChatCompletion": ".types",
    "ChatCompletionChunk": ".types",
    "ChatCompletionMessageParam": ".types",
    "ChatCompletionRequest": ".types",
    "CompletionUsage": ".types",
    "CreateEmbeddingResponse": ".types",
    "Embedding": ".types",
    "Model": ".types",
    "ModelList": "._send._pagination",
    "TokenCount": ".tokens",
    "count_tokens": ".tokens",
    "count_messages": ".tokens",
    "count_request": ".tokens",
    "encoding_for_model": ".tokens",
    "image_tokens": ".tokens",
    "CostEstimate": ".pricing",
    "ModelInfo": ".pricing",
    "PriceTable": ".pricing",
    "PriceFileError": ".pricing",
    "UnknownModelError": ".pricing",
    "estimate_request": ".pricing",
    "estimate_cost": ".pricing",
    "cost_from_usage": ".pricing",
    "lookup_model": ".pricing",
    "truncate_text": ".truncation",
    "fit_messages": ".truncation",
    "ContextOverflowError": ".truncation",
    "UsageTracker": ".pricing",
    "UsageSnapshot": ".pricing",
    "ParsedChatCompletion": "._parsing",
    "pydantic_function_tool": "._parsing",
    "ChatCompletionStreamState": "._chat_stream",
    "accumulate_chunks": "._chat_stream",
    "Router": ".router",
    "AsyncRouter": ".router",
    "Target": ".router",
    "StructuredOutput": ".types._structured_output",
    "StructuredAttempt": ".types._structured_output",
}


__getattr__ = _lazy_names(__name__, _LAZY, globals())


__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncOpenAI",
    "AsyncRouter",
    "AsyncStream",
    "AuthenticationError",
    "BadRequestError",
    "BatchRequest",
    "BatchResult",
    "BatchRunner",
    "BatchStats",
    "BudgetExceededError",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionMessageParam",
    "ChatCompletionRequest",
    "ChatCompletionStreamState",
    "Client",
    "CompletionUsage",
    "ConfigurationError",
    "ConflictError",
    "ContentFilterFinishReasonError",
    "ContextOverflowError",
    "CostEstimate",
    "CreateEmbeddingResponse",
    "DefaultAioHttpClient",
    "DefaultAsyncHttpx2Client",
    "DefaultAsyncHttpxClient",
    "DefaultHttpx2Client",
    "DefaultHttpxClient",
    "Embedding",
    "FirstEventTimeoutError",
    "HolyClientError",
    "IncompleteStreamError",
    "InternalServerError",
    "LengthFinishReasonError",
    "Model",
    "ModelInfo",
    "ModelList",
    "NotFoundError",
    "NotGiven",
    "Omit",
    "OpenAI",
    "OpenAIError",
    "ParsedChatCompletion",
    "PermissionDeniedError",
    "PriceFileError",
    "PriceTable",
    "RateLimitError",
    "RetryPolicy",
    "Router",
    "Stream",
    "StreamIdleTimeoutError",
    "StreamRestartError",
    "StructuredAttempt",
    "StructuredOutput",
    "Target",
    "Timeout",
    "TokenCount",
    "UnknownModelError",
    "UnprocessableEntityError",
    "UsageSnapshot",
    "UsageTracker",
    "__version__",
    "accumulate_chunks",
    "cost_from_usage",
    "count_messages",
    "count_request",
    "count_tokens",
    "encoding_for_model",
    "estimate_cost",
    "estimate_request",
    "fit_messages",
    "image_tokens",
    "lookup_model",
    "not_given",
    "omit",
    "pydantic_function_tool",
    "run_batch",
    "truncate_text",
]
