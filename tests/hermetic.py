"""Which environment variables a test must not inherit from the shell (used by the top conftest)."""

from __future__ import annotations

from collections.abc import Mapping

#: Variables that change where a request goes or which credentials it carries. The ``HOLYSHEEP_`` and
#: ``OPENAI_`` prefixes cover the key, the base URL, the price table, the organisation and project;
#: HOLYCLIENT_* switches (HOLYCLIENT_SKIP_CONTRACT, HOLYCLIENT_PRISM_BIN ...) are the test run's own.
HERMETIC_PREFIXES = ("HOLYSHEEP_", "OPENAI_")
PROXY_VARIABLES = frozenset(
    name
    for base in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "WS_PROXY", "WSS_PROXY")
    for name in (base, base.lower())
)


def leaky_variables(environ: Mapping[str, str]) -> list[str]:
    """The variables in ``environ`` a test must not inherit from the shell that started pytest."""
    return sorted(
        name for name in environ if name.upper().startswith(HERMETIC_PREFIXES) or name in PROXY_VARIABLES
    )
