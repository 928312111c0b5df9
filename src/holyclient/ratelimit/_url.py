"""Naming a shared limiter's Redis: its URL checked and shown without a password, and the API key's hash
that Redis key names carry instead of the key."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from .._core import safe_url as _safe_url

URL_SCHEMES = ("redis", "rediss", "unix")


def key_hash(api_key: str) -> str:
    """What Redis key names carry instead of the API key: 16 hex digits of its SHA-256."""
    return hashlib.sha256(api_key.encode()).hexdigest()[:16]


def safe_url(url: str) -> str:
    """``url`` without its password (nor a query, which may carry ``?password=``), for messages."""
    return _safe_url(url, keep_user=True)


def check_url(url: str) -> str | None:
    """What is wrong with a ``--limiter`` URL, or ``None``."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:  # its text quotes the "port", which may be the start of a password: not shown
        return (
            "not a URL: the port must be a number from 0 to 65535 (a password with '#', '/', '?' "
            "or '@' in it must be percent-encoded: %23 %2F %3F %40)"
        )
    if parts.scheme not in URL_SCHEMES:
        return "expected redis://HOST:PORT/DB (or rediss://, unix://)"
    if parts.scheme != "unix" and not parts.hostname:
        return "no host in the URL"
    db = parts.path.strip("/")
    if parts.scheme != "unix" and db and not (db.isascii() and db.isdigit()):  # not '²'
        return f"database must be a number, got {db!r}"
    return None
