"""Reading answers: a 2xx body into its model, an error body into the matching status error.

One status-to-class table (:func:`~holyclient._exceptions.status_error_class`) serves both clients,
the batch runner and the stream decoder.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from .._exceptions import APIResponseValidationError, APIStatusError, status_error_class
from ._redact import _scrub_response, redacted_request

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


def parse_error_body(content: bytes) -> object:
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace") or None


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
    body = parse_error_body(content)
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
        safe_request = redacted_request(request)
        _scrub_response(response, safe_request)
        error = APIResponseValidationError(
            "Response body is not valid JSON" if invalid_json else f"Unexpected response shape: {exc}",
            response=response,
            body=None if invalid_json else parse_error_body(content),
            request=safe_request,
        )
        error.retryable = invalid_json  # type: ignore[attr-defined]
        raise error from None
