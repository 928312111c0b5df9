"""Sites migrate cannot complete, worded once: what is wrong, and ``fix: ...`` (the CLI exits 3 on them).

A constructor whose base URL migrate can neither see nor set (``OpenAI(**kwargs)``, options from a
variable) or a base URL built at run time would go on sending to wherever it points, now with a
HolySheep key: the run is not done until a person has looked. A base URL expression that names the
relay's host or reads a ``HOLYSHEEP_*`` variable (the ``os.environ.get("HOLYSHEEP_BASE_URL", ...)``
migrate writes itself) is complete.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._rules import BASE_URL, NEW_HOST


def reaches_relay(literals: Iterable[str], base_url_env: str | None = None) -> bool:
    """Whether the string literals of a base-URL expression show it points at the relay."""
    names = {"HOLYSHEEP_BASE_URL", base_url_env}
    return any(NEW_HOST in s or s in names for s in literals)


def kwargs_message(name: str, base_url_env: str | None) -> str:
    ignored = (
        f"; --base-url-env {base_url_env} could not be applied here (a keyword added beside **kwargs "
        "would clash when they carry base_url)"
        if base_url_env
        else ""
    )
    return (
        f"{name}(**...) builds the client from a dict migrate cannot read, so its base URL stays whatever "
        f"the dict holds (api.openai.com when it has none){ignored}; fix: run `holyclient migrate --sdk` "
        f"(holyclient's client reads HOLYSHEEP_BASE_URL itself), or set base_url={BASE_URL!r} in the dict, "
        "then mark the line `# holyclient-migrate: ok`"
    )


def runtime_message(what: str, src: str) -> str:
    return (
        f"{what} base URL is computed at run time ({src}); fix: make it {BASE_URL} (or read "
        "HOLYSHEEP_BASE_URL), then mark the line `# holyclient-migrate: ok`"
    )


def js_message(label: str, why: str) -> str:
    return (
        f"{label}({why}): migrate cannot see or set its baseURL; fix: set baseURL to {BASE_URL!r}, then "
        "mark the line `// holyclient-migrate: ok`"
    )
