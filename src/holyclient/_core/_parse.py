"""Reading answers: a 2xx body into its model, an error body into the matching status error.

One status-to-class table (:func:`~holyclient._exceptions.status_error_class`) serves both clients,
the batch runner and the stream decoder.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from .._exceptions import APIResponseValidationError, APIStatusError, status_error_class
from ._redact import _scrub_response, redact, redacted_request, redacted_text, request_secrets

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


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
    """A status error's text, worded as openai 3.63 words it (apps log, match and test it): ``Error code:
    400 - <the error's message>``, or ``Error code: 400`` when the body has no message."""
    text = f"Error code: {status_code}"
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str) and message:
        text += f" - {message}"
    return text


def error_notes(status_code: int, body: object, request: Any = None) -> list[str]:
    """What holyclient says of a status error beyond openai's text, kept as notes on the exception (they
    print with its traceback): a body that is not an error object, and the missing ``/v1`` hint."""
    notes = []
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, str) and error:
        notes.append(f"error: {error[:500]}")
    elif isinstance(body, str) and body:
        notes.append(f"response body: {body[:500]}")
    hint = missing_v1_hint(status_code, request)
    if hint:
        notes.append(hint)
    return notes


def missing_v1_hint(status_code: int, request: Any) -> str:
    """A hint for the commonest set-up mistake: a base URL without ``/v1`` ends in a bare 404.

    OpenAI-compatible servers route ``/v1/chat/completions``; ``https://host`` as the base URL sends
    ``/chat/completions``, which they answer 404 ``unknown_url``.
    """
    path = str(getattr(getattr(request, "url", None), "path", "/v1"))
    if status_code != 404 or "v1" in path.split("/"):
        return ""
    return "the request URL has no /v1: add /v1 to the end of the base URL, e.g. https://api.holysheep.ai/v1"


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
    error = cls(
        error_message(status, body),
        response=response,
        body=inner_error(body),
        request=safe_request,
        retry_after=retry_after,
    )
    for note in error_notes(status, body, request):
        error.add_note(note)
    return error


def parse_model(cls: type[ModelT], content: bytes, response: Any, *, request: Any = None) -> ModelT:
    """Validate a 2xx body into ``cls``.

    Raises:
        APIResponseValidationError: with ``retryable`` set when the body was not JSON at all (a truncated
            or garbled 200 is worth another attempt; a well-formed but wrong shape is not).
    """
    try:
        return cls.model_validate_json(content)
    except Exception as exc:
        from pydantic import ValidationError  # imported here: pydantic loads with the first model

        if not isinstance(exc, ValidationError):
            raise
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
