"""The options every subcommand that talks to an API server shares, and advice that works on a shell.

The library's :class:`~holyclient.ConfigurationError` messages speak to Python callers ("pass
api_key=... to the client"); on the command line the same problems need the flag or the variable to
set. :func:`client_settings` checks the settings first and returns CLI advice, so a subcommand never
shows library advice to a shell user.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

NO_KEY = (
    "no API key: set HOLYSHEEP_API_KEY or pass --api-key "
    "(OPENAI_API_KEY is never read: an OpenAI key must not be sent to another host by accident)"
)


def add_server_arguments(parser: argparse._ActionsContainer, *, base_url: bool = True) -> None:
    """Add ``--api-key``, ``--base-url`` (unless the subcommand has its own) and ``--allow-insecure-http``."""
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key (default: $HOLYSHEEP_API_KEY; prefer the variable: flags show in `ps`)",
    )
    if base_url:
        parser.add_argument(
            "--base-url",
            metavar="URL",
            help="API base URL (default: $HOLYSHEEP_BASE_URL, else https://api.holysheep.ai/v1)",
        )
    parser.add_argument(
        "--allow-insecure-http",
        action="store_true",
        help="allow a plain http:// base URL on another machine (the key travels in clear)",
    )


@dataclass(frozen=True)
class ClientSettings:
    api_key: str
    base_url: str
    allow_insecure_http: bool

    def as_kwargs(self) -> dict[str, Any]:
        return {
            "api_key": self.api_key,
            "base_url": self.base_url,
            "allow_insecure_http": self.allow_insecure_http,
        }


class SettingsError(Exception):
    """A setting the command line can fix; the message names the flag or variable."""


def client_settings(args: argparse.Namespace) -> ClientSettings:
    """Resolve key and base URL as the client would, with command-line advice on failure.

    Raises:
        SettingsError: no key, an empty ``--api-key``, a base URL that is not http(s), or plain http to
            another machine without ``--allow-insecure-http``.
    """
    from .._config import is_loopback_host, resolve_api_key, resolve_base_url
    from .._exceptions import ConfigurationError

    explicit = getattr(args, "api_key", None)
    if explicit is not None and not explicit.strip():
        raise SettingsError("--api-key is empty")
    try:
        key = resolve_api_key(explicit)
    except ConfigurationError:
        raise SettingsError(NO_KEY) from None
    base_url = resolve_base_url(getattr(args, "base_url", None))
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(
            f"the base URL (--base-url or HOLYSHEEP_BASE_URL) must be an http:// or https:// URL, got {base_url!r}"
        )
    allow = bool(getattr(args, "allow_insecure_http", False))
    if parts.scheme == "http" and not allow and not is_loopback_host(parts.hostname):
        raise SettingsError(
            f"refusing to send the API key over plain http:// to {parts.hostname!r}: use https://, "
            "or pass --allow-insecure-http if this network is trusted"
        )
    return ClientSettings(key, base_url, allow)
