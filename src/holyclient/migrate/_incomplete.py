"""Sites migrate cannot complete, worded once: what is wrong, and ``fix: ...`` (the CLI exits 3 on them).

A constructor whose base URL migrate can neither see nor set (``OpenAI(**kwargs)``, options from a
variable) or a base URL built at run time would go on sending to wherever it points, now with a
HolySheep key: the run is not done until a person has looked. A base URL expression that names the
relay's host or reads a ``HOLYSHEEP_*`` variable (the ``os.environ.get("HOLYSHEEP_BASE_URL", ...)``
migrate writes itself) is complete.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from ._rules import BASE_URL, NEW_HOST

#: how a runtime-url message names the variable the base URL is read from (the run joins it to env files)
_READS = re.compile(r"\(reads ([A-Za-z_][A-Za-z0-9_]*)\)")
_ENV_LINE = re.compile(rb"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*[\"']?(\S*)", re.M)


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


def env_var_read(value: ast.expr) -> str | None:
    """``NAME`` when the expression is ``os.getenv("NAME", ...)``, ``os.environ.get("NAME")`` or
    ``os.environ["NAME"]`` (any alias): an env file of the run may set it."""
    arg: ast.expr | None = None
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Attribute, ast.Name)) and value.args:
        name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id
        arg = value.args[0] if name in ("get", "getenv") else None
    elif isinstance(value, ast.Subscript):
        arg = value.slice
    if (
        isinstance(arg, ast.Constant)
        and isinstance(arg.value, str)
        and re.fullmatch(r"[A-Z_][A-Z0-9_]*", arg.value)
    ):
        return arg.value
    return None


def runtime_message(what: str, src: str, var: str | None = None) -> str:
    reads = f" (reads {var})" if var else ""
    return (
        f"{what} base URL is computed at run time ({src}){reads}; fix: make it {BASE_URL} (or read "
        "HOLYSHEEP_BASE_URL), then mark the line `# holyclient-migrate: ok`"
    )


def relay_variables(env_files: Iterable[tuple[str, bytes]]) -> dict[str, str]:
    """Variable -> env file, for each variable an env file of the run sets to the relay's URL."""
    found: dict[str, str] = {}
    for path, data in env_files:
        for m in _ENV_LINE.finditer(data):
            if NEW_HOST.encode() in m.group(2):
                found.setdefault(m.group(1).decode("latin-1"), path)
    return found


def read_var(message: str) -> str | None:
    m = _READS.search(message)
    return m.group(1) if m else None


def js_message(label: str, why: str) -> str:
    return (
        f"{label}({why}): migrate cannot see or set its baseURL; fix: set baseURL to {BASE_URL!r}, then "
        "mark the line `// holyclient-migrate: ok`"
    )
