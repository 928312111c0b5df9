"""Server-sent events: the incremental ``text/event-stream`` decoder and error events inside a 200 stream."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._exceptions import APIStatusError, status_error_class
from ._redact import _scrub_response, redact, redacted_request, request_secrets


class SSEDecoder:
    """Incremental decoder for ``text/event-stream``: feed bytes, get the ``data`` payload of each event.

    Only ``data`` lines matter to the chat API; ``event``/``id``/``retry`` fields and comments are
    skipped. Multi-line data is joined with ``\\n`` as the SSE specification says.
    """

    __slots__ = ("_buffer", "_data")

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        buffer = self._buffer + chunk if self._buffer else chunk
        if (  # the common read: exactly one ``data: ...`` line and its blank line (tested in C)
            not self._data
            and buffer.startswith(b"data:")
            and buffer.endswith(b"\n\n")
            and buffer.count(b"\n") == 2
            and b"\r" not in buffer
        ):
            self._buffer = b""
            value = buffer[5:-2]
            return [value[1:] if value.startswith(b" ") else value]
        events: list[bytes] = []
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            line = buffer[start:end]
            start = end + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if self._data:
                    events.append(b"\n".join(self._data))
                    self._data = []
            elif line.startswith(b"data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(b" ") else value)
        self._buffer = buffer[start:]
        return events

    def flush(self) -> list[bytes]:
        """Events left when the stream ends without a final blank line."""
        events = self.feed(b"\n\n") if (self._buffer or self._data) else []
        self._buffer = b""
        return events


DONE = b"[DONE]"

#: Status used for an error event inside a 200 stream, from the error's ``type`` or ``code``.
_STREAM_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "invalid_api_key": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "model_not_found": 404,
    "timeout_error": 408,
    "conflict_error": 409,
    "request_too_large": 413,
    "unprocessable_entity_error": 422,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "server_error": 500,
    "api_error": 500,
    "internal_error": 500,
    "service_unavailable": 503,
    "overloaded_error": 503,
}


def _stream_error_status(error: Mapping[str, Any]) -> int:
    """The HTTP status an error event stands for: its own ``status`` (or a numeric ``code``), else its
    ``type`` or ``code`` through the table, else 500. The status picks the class from the one status
    table, so ``{"type": "rate_limit_error"}`` raises ``RateLimitError`` like a 429 would."""
    for key in ("status", "status_code", "code"):
        value = error.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 400 <= value <= 599:
            return value
    for key in ("type", "code"):
        status = _STREAM_ERROR_STATUS.get(str(error.get(key)))
        if status is not None:
            return status
    return 500


def stream_error(data: bytes, response: Any, *, request: Any = None) -> APIStatusError | None:
    """Return the error carried by an SSE event, if the event is an error event."""
    if b'"error"' not in data:
        return None
    try:
        payload = redact(json.loads(data), request_secrets(request))
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("error"), dict):
        return None
    error = payload["error"]
    status = _stream_error_status(error)
    cls = status_error_class(status)
    safe_request = redacted_request(request)
    _scrub_response(response, safe_request)
    # openai raises the event's own message (its ``Error code: ...`` prefix is for status answers only)
    message = error.get("message")
    text = message if isinstance(message, str) and message else "An error occurred during streaming"
    exc = cls(text, response=response, body=error, request=safe_request)
    exc.status_code = status
    return exc
