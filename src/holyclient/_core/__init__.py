"""The sans-IO core: request options and bodies, redaction, error mapping, SSE decoding, the retry
policy, multipart and binary bodies. Nothing here sends, awaits or sleeps."""

from __future__ import annotations

from ._atomic import write_atomically
from ._binary import (
    AsyncStreamedBinaryContext,
    AsyncStreamedBinaryResponse,
    HttpxBinaryResponseContent,
    StreamedBinaryResponse,
    parse_response,
)
from ._event_clock import EventClock, reasons_silently, stream_limits
from ._message_checks import ROLES, kind, message_problem, messages_problem
from ._messages import as_mapping, message_mapping
from ._multipart import FileTypes, encode_multipart, form_fields, multipart_body, read_file
from ._parse import make_status_error, parse_error_body, parse_model
from ._percentile import percentile
from ._printable import printable
from ._redact import REDACTED, redacted_request, redacted_text, safe_url
from ._request import (
    NOT_GIVEN,
    USER_AGENT,
    ForeignRequest,
    RequestOptions,
    build_body,
    build_headers,
    given_args,
    omitted,
    to_jsonable,
)
from ._retry import RetryPolicy, retry_after_seconds
from ._sse import DONE, SSEDecoder, stream_error
from ._vectors import base64_floats, decode_embeddings, prefer_base64

__all__ = [
    "DONE",
    "NOT_GIVEN",
    "REDACTED",
    "ROLES",
    "USER_AGENT",
    "AsyncStreamedBinaryContext",
    "AsyncStreamedBinaryResponse",
    "EventClock",
    "FileTypes",
    "ForeignRequest",
    "HttpxBinaryResponseContent",
    "RequestOptions",
    "RetryPolicy",
    "SSEDecoder",
    "StreamedBinaryResponse",
    "as_mapping",
    "base64_floats",
    "build_body",
    "build_headers",
    "decode_embeddings",
    "encode_multipart",
    "form_fields",
    "given_args",
    "kind",
    "make_status_error",
    "message_mapping",
    "message_problem",
    "messages_problem",
    "multipart_body",
    "omitted",
    "parse_error_body",
    "parse_model",
    "parse_response",
    "percentile",
    "prefer_base64",
    "printable",
    "read_file",
    "reasons_silently",
    "redacted_request",
    "redacted_text",
    "retry_after_seconds",
    "safe_url",
    "stream_error",
    "stream_limits",
    "to_jsonable",
    "write_atomically",
]
