"""Keeping the key out of everything we keep: headers, requests attached to errors, error text.

An error object outlives the call (logs, Sentry, a batch OUTPUT line): whatever it holds must be safe
to print.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

REDACTED = "<redacted>"
_SENSITIVE_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "proxy-authorization"})


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: (REDACTED if k.lower() in _SENSITIVE_HEADERS else v) for k, v in headers.items()}


def redacted_request(request: Any) -> Any:
    """A copy of an httpx(2) request safe to attach to an error: same method and URL, no secret headers."""
    if request is None:
        return None
    return type(request)(request.method, request.url, headers=redact_headers(request.headers))


def redacted_text(text: str, request: Any) -> str:
    """``text`` with every secret header value of ``request`` (and the bare key after ``Bearer``) blanked.

    Messages of library exceptions may quote a header or a URL; the key must not ride along.
    """
    headers = getattr(request, "headers", None)
    if headers is None:
        return text
    for name in _SENSITIVE_HEADERS:
        value = headers.get(name)
        if not value:
            continue
        for secret in (value, value.partition(" ")[2]):
            if len(secret) >= 8:  # never blank out a short common word
                text = text.replace(secret, REDACTED)
    return text


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
