"""Keeping the key out of everything we keep: headers, requests attached to errors, error text.

An error object outlives the call (logs, Sentry, a batch OUTPUT line): whatever it holds must be safe
to print.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

REDACTED = "<redacted>"
#: Headers that carry a secret. openai 3.63 removes ``authorization``, ``api-key`` and
#: ``x-amz-security-token`` from the request it keeps on errors; the others are secrets too.
_SENSITIVE_HEADERS = frozenset(
    {"authorization", "api-key", "x-api-key", "proxy-authorization", "x-amz-security-token"}
)


def without_secret_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` without those that carry a secret: removed, not masked, as openai does, so that
    ``"authorization" in error.request.headers`` reads the same in both SDKs."""
    return {k: v for k, v in headers.items() if k.lower() not in _SENSITIVE_HEADERS}


def redacted_request(request: Any) -> Any:
    """A copy of an httpx(2) request safe to attach to an error: same method and URL, no secret headers."""
    if request is None:
        return None
    return type(request)(request.method, request.url, headers=without_secret_headers(request.headers))


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


def safe_url(url: str, *, keep_user: bool = False) -> str:
    """``url`` fit for a message or a report: no password, no query string, no fragment. Never raises.

    The user info may hold a password (``redis://:pw@host``) or a key (``https://sk-...@host``), the
    query a ``?password=`` or ``?api-key=``. The URL is cut by hand, not by ``urlsplit``: a password
    with an unencoded ``#``, ``/``, ``?`` or ``@`` would otherwise be read as a fragment, a path or a
    host and printed in full, and a bad port would make the message itself raise. The user info ends
    at the last ``@`` (a query holding an ``@`` then loses the host too: safe, if less helpful).

    Args:
        keep_user: keep the user name and show a password as ``***`` (``redis://user:***@host``);
            otherwise the whole user info goes.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    at = rest.rfind("@")
    userinfo = ""
    if at >= 0:
        user, colon, _ = rest[:at].partition(":")
        userinfo = f"{user}{':***' if colon else ''}@" if keep_user else ""
        rest = rest[at + 1 :]
    for mark in ("?", "#"):
        rest = rest.partition(mark)[0]
    return f"{scheme}{sep}{userinfo}{rest}"


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
