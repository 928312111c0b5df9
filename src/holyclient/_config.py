"""The one place that reads the environment.

Resolution order for every setting: explicit argument, then ``HOLYSHEEP_*`` variables, then the
defaults in :mod:`holyclient._constants`. ``OPENAI_API_KEY`` is deliberately never read: an OpenAI
secret picked up silently would be sent to another host.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from urllib.parse import urlsplit

from ._constants import API_KEY_ENV, BASE_URL_ENV, CAPABILITIES_ENV, DEFAULT_BASE_URL, PRICES_ENV
from ._exceptions import ConfigurationError


def resolve_api_key(explicit: str | None) -> str:
    """Return the API key from the argument or ``HOLYSHEEP_API_KEY``.

    Raises:
        ConfigurationError: neither is set (the message names both, never a value).
    """
    key = explicit if explicit is not None else os.environ.get(API_KEY_ENV)
    if not key:
        raise ConfigurationError(
            f"No API key: pass api_key=... to the client or set the {API_KEY_ENV} environment variable. "
            "(OPENAI_API_KEY is never read: an OpenAI key must not be sent to another host by accident.)"
        )
    return key


def resolve_base_url(explicit: object) -> str:
    """Return the base URL from the argument (a string or a URL object), ``HOLYSHEEP_BASE_URL`` or the
    default, without a trailing slash."""
    url = str(explicit or "") or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    return url.rstrip("/")


def is_loopback_host(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_transport_security(base_url: str, *, allow_insecure_http: bool) -> None:
    """Refuse to send a key in clear text to another machine unless the caller opted in.

    Raises:
        ConfigurationError: ``base_url`` is ``http://`` to a non-loopback host.
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https"):
        raise ConfigurationError(f"base_url must start with https:// or http://, got {base_url!r}")
    if parts.scheme == "http" and not allow_insecure_http and not is_loopback_host(parts.hostname or ""):
        raise ConfigurationError(
            f"Refusing to send the API key over plain http:// to {parts.hostname!r}: use https://, "
            "or pass allow_insecure_http=True if this network is trusted."
        )


def prices_file_from_env() -> str | None:
    """Path of a user price table from ``HOLYSHEEP_PRICES``, if set."""
    return os.environ.get(PRICES_ENV) or None


def capabilities_file_from_env() -> str | None:
    """Path of the capabilities file ``holyclient doctor`` wrote, from ``HOLYSHEEP_CAPABILITIES``, if set."""
    return os.environ.get(CAPABILITIES_ENV) or None


def key_from_variable(name: str) -> str | None:
    """The value of a key variable the user named explicitly (``--old-key-env VAR``), if set and non-empty.

    Naming the variable is the opt-in that makes reading, say, ``OPENAI_API_KEY`` safe: the user chose
    which host it goes to.
    """
    return os.environ.get(name) or None


def key_from_env(variable: str, *, owner: str) -> str:
    """The key in the environment variable a caller named explicitly (a router target's ``key_env``).

    Naming the variable is the opt-in: ``OPENAI_API_KEY`` is read here only because the caller asked
    for it for this one target, whose host is the only one it is sent to.

    Raises:
        ConfigurationError: the variable is unset or empty (the message names it, never a value).
    """
    key = key_from_variable(variable)
    if not key:
        raise ConfigurationError(
            f"{owner}: the environment variable {variable} is not set (key_env={variable!r})"
        )
    return key


def otel_settings() -> tuple[bool, bool, bool]:
    """OpenTelemetry switches: ``(disabled, latest conventions, capture message content)``.

    ``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS`` (a comma list; ``holyclient`` or ``*`` turns ours off),
    ``OTEL_SEMCONV_STABILITY_OPT_IN`` (``gen_ai_latest_experimental`` selects the latest GenAI
    conventions) and ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (``true`` records prompts
    and completions) are the names OpenTelemetry's own instrumentations read.
    """
    disabled = {
        name.strip() for name in os.environ.get("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", "").split(",")
    }
    opt_in = {name.strip() for name in os.environ.get("OTEL_SEMCONV_STABILITY_OPT_IN", "").split(",")}
    capture = os.environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip().lower()
    return (
        bool(disabled & {"holyclient", "*"}),
        "gen_ai_latest_experimental" in opt_in,
        capture == "true",
    )


@functools.cache
def otel_provider_named() -> bool:
    """Whether ``OTEL_PYTHON_TRACER_PROVIDER`` or ``OTEL_PYTHON_METER_PROVIDER`` names a provider for the
    OpenTelemetry API to load on its first use. Read once per process: it is the process's start-up
    configuration, and every call of every client asks until the API is in use."""
    return bool(os.environ.get("OTEL_PYTHON_TRACER_PROVIDER") or os.environ.get("OTEL_PYTHON_METER_PROVIDER"))
