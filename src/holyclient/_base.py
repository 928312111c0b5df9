"""The sans-IO core shared by both clients: request building, response parsing, SSE decoding, error mapping.

Nothing here sends, awaits or sleeps, so :class:`~holyclient.Client` and :class:`~holyclient.AsyncClient`
stay thin shells and every decision can be unit-tested with plain values.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ._exceptions import (
    APIResponseValidationError,
    APIStatusError,
    status_error_class,
)
from ._version import __version__

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")
T = TypeVar("T")

USER_AGENT = f"holyclient/{__version__}"
REDACTED = "<redacted>"
_SENSITIVE_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "proxy-authorization"})


class _Omit:
    """Sentinel for "not given", distinct from an explicit ``None`` (``timeout=None`` means no timeout)."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN: Any = _Omit()


@dataclass(frozen=True)
class RequestOptions:
    """Everything needed to send one API call, independent of the HTTP library."""

    method: str
    path: str
    body: Mapping[str, Any] | None = None
    query: Mapping[str, Any] | None = None
    """Query-string parameters (``extra_query``, and the fields of a GET)."""
    content: bytes | None = None
    """A pre-encoded body (a multipart upload) sent instead of ``body``; its type is in ``extra_headers``."""
    extra_headers: Mapping[str, str] | None = None
    timeout: Any = NOT_GIVEN
    max_retries: int | None = None
    stream: bool = False


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _is_plain(value: Any) -> bool:
    """Whether ``value`` is JSON data already (dicts, lists, scalars): the common case, checked without copying."""
    kind = type(value)
    # Explicit loops, not all(<generator>): this runs on every request body and is ~2x faster.
    if kind is dict:
        for item in value.values():  # noqa: SIM110
            if type(item) not in _PLAIN and not _is_plain(item):
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110
            if type(item) not in _PLAIN and not _is_plain(item):
                return False
        return True
    return kind in _PLAIN


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data: pydantic objects dumped as openai does, iterables as lists.

    This is what lets the tool loop ``messages.append(response.choices[0].message)`` work: a response
    model is sent as ``model_dump(mode="json", exclude_unset=True, by_alias=True)``, i.e. exactly the
    fields the server sent. Plain JSON data is returned as it is (checked without copying).

    Raises:
        TypeError: for a class (``response_format=MyModel`` belongs to ``parse()``).
    """
    if _is_plain(value):
        return value
    if isinstance(value, type):
        raise TypeError(
            f"Cannot send the class {value.__name__} in a request body. To get a structured output, "
            "pass a pydantic class to `client.chat.completions.parse(response_format=...)` instead of "
            "`create()`; `create()` takes a JSON-schema dict."
        )
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(value, Mapping):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)):  # subclasses (enums ...): json encodes them
        return value
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        return [to_jsonable(v) for v in value]
    return value


def build_body(params: Mapping[str, Any], extra_body: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge call parameters and ``extra_body``; parameters pass through as JSON (forward compatible)."""
    body = {key: to_jsonable(value) for key, value in params.items() if value is not NOT_GIVEN}
    if extra_body:
        body.update(extra_body)
    return body


def build_headers(
    api_key: str,
    default_headers: Mapping[str, str] | None,
    extra_headers: Mapping[str, str] | None,
    *,
    stream: bool = False,
) -> dict[str, str]:
    headers = {
        "Authorization": f"Bearer {api_key}",
        "User-Agent": USER_AGENT,
        "Accept": "text/event-stream" if stream else "application/json",
    }
    if default_headers:
        headers.update(default_headers)
    if extra_headers:
        headers.update(extra_headers)
    return headers


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: (REDACTED if k.lower() in _SENSITIVE_HEADERS else v) for k, v in headers.items()}


def redacted_request(request: Any) -> Any:
    """A copy of an httpx(2) request safe to attach to an error: same method and URL, no secret headers."""
    if request is None:
        return None
    return type(request)(request.method, request.url, headers=redact_headers(request.headers))


def request_secrets(request: Any) -> tuple[str, ...]:
    """The secrets ``request`` carried: each secret header's value and the bare key after its scheme.

    The request is what was actually sent, so this is the key to blank whatever the client's
    configuration (a key provider, ``default_headers``, a batch's prebuilt headers).
    """
    headers = getattr(request, "headers", None)
    if headers is None:
        return ()
    secrets: list[str] = []
    for name in _SENSITIVE_HEADERS:
        value = headers.get(name)
        if not value:
            continue
        for secret in (value, value.partition(" ")[2]):
            if len(secret) >= 8:  # never blank out a short common word
                secrets.append(secret)
    return tuple(secrets)


def redact(value: T, secrets: Sequence[str]) -> T:
    """``value`` (a text, or JSON data) with every secret blanked, in strings at any depth.

    The one redaction of what a server sends back: a server may echo the key it was sent ("Incorrect
    API key provided: sk-..."), and whatever the client keeps of its answer (an exception's message and
    body, a batch's OUTPUT line) goes through here first.
    """
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)  # type: ignore[assignment]
        return value
    if isinstance(value, dict):
        return {redact(k, secrets): redact(v, secrets) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list):
        return [redact(item, secrets) for item in value]  # type: ignore[return-value]
    return value


def redacted_text(text: str, request: Any) -> str:
    """``text`` with every secret of ``request`` (see :func:`request_secrets`) blanked.

    Messages of library exceptions may quote a header or a URL; the key must not ride along.
    """
    return redact(text, request_secrets(request))


def parse_error_body(content: bytes, request: Any = None) -> object:
    """An error answer's body as JSON (or text), with the secrets ``request`` carried blanked."""
    try:
        body: object = json.loads(content)
    except ValueError:
        body = content.decode("utf-8", "replace") or None
    return redact(body, request_secrets(request))


def inner_error(body: object) -> object:
    """The error object as openai exposes it in ``error.body``: ``{"message", "type", ...}``, not the envelope."""
    if isinstance(body, dict) and "error" in body:
        return body["error"]
    return body


def error_message(status_code: int, body: object) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        code = f" ({error['code']})" if error.get("code") else ""
        return f"Error code {status_code}{code}: {error['message']}"
    if isinstance(error, str):
        return f"Error code {status_code}: {error}"
    if isinstance(body, str) and body:
        return f"Error code {status_code}: {body[:500]}"
    return f"Error code {status_code}"


def make_status_error(
    response: Any,
    content: bytes,
    *,
    request: Any = None,
    retry_after: float | None = None,
) -> APIStatusError:
    """Map an error response to the matching :class:`APIStatusError` subclass (one table for both clients)."""
    body = parse_error_body(content, request)  # the message is built from it: both redacted
    status = int(response.status_code)
    cls = status_error_class(status)
    safe_request = redacted_request(request)
    _scrub_response(response, safe_request)
    return cls(
        error_message(status, body),
        response=response,
        body=inner_error(body),
        request=safe_request,
        retry_after=retry_after,
    )


def _scrub_response(response: Any, safe_request: Any) -> None:
    """Point the response at the redacted request so ``error.response.request`` cannot leak the key.

    The redirects that led to it (``response.history``) each hold a request with the key too.
    """
    with contextlib.suppress(AttributeError, TypeError, RuntimeError):  # exotic response objects
        for earlier in getattr(response, "history", None) or ():
            earlier.request = redacted_request(earlier.request)
    if safe_request is not None:
        with contextlib.suppress(AttributeError, TypeError):  # exotic response objects
            response.request = safe_request


def parse_model(cls: type[ModelT], content: bytes, response: Any, *, request: Any = None) -> ModelT:
    """Validate a 2xx body into ``cls``.

    Raises:
        APIResponseValidationError: with ``retryable`` set when the body was not JSON at all (a truncated
            or garbled 200 is worth another attempt; a well-formed but wrong shape is not).
    """
    from pydantic import ValidationError

    try:
        return cls.model_validate_json(content)
    except ValidationError as exc:
        invalid_json = any(err["type"] == "json_invalid" for err in exc.errors())
        # pydantic quotes the input, which may echo the key: the message is redacted, and the error is
        # raised outside this block so the ValidationError is not kept as its ``__context__`` either.
        message = (
            "Response body is not valid JSON"
            if invalid_json
            else redacted_text(f"Unexpected response shape: {exc}", request)
        )
    safe_request = redacted_request(request)
    _scrub_response(response, safe_request)
    error = APIResponseValidationError(
        message,
        response=response,
        body=None if invalid_json else parse_error_body(content, request),
        request=safe_request,
    )
    error.retryable = invalid_json  # type: ignore[attr-defined]
    raise error


# --- server-sent events -------------------------------------------------------------------------


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
    exc = cls(error_message(status, payload), response=response, body=error, request=safe_request)
    exc.status_code = status
    return exc
