"""Which way ``parse()`` asks a model for structured output: what is known of the model, and what was learned.

Three sources say whether a model takes a JSON schema (``json_schema``), a forced tool call (``tools``)
or JSON mode (``json_object``), the most recent first:

1. **learned**: a model that answered such a request with a 400 saying the format is unavailable
   (DeepSeek's "This response_format type is unavailable now") is remembered, per endpoint and model,
   for the rest of the process, so the refused request is sent once;
2. **the capabilities file** ``holyclient doctor --save-capabilities FILE`` writes, named by
   ``HOLYSHEEP_CAPABILITIES`` (what that endpoint answered when probed; a Router's targets read it too);
3. **the capabilities table** shipped with holyclient (``_data/capabilities.json``): per model family,
   dated and sourced; a model in no family is assumed to take a JSON schema, as OpenAI's do.

Only a model that is *known* to take a JSON schema keeps openai's one request with no fallback; for the
others :data:`METHODS` is tried in its declared order, skipping what is known not to work. The family
rule (lower-cased name after the last ``/``, longest ``match`` prefix) is the one the local server's relay
profile applies to the same table (``holyclient.testing._relay``, which reads it on its own because the
server imports nothing of the client).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .._config import capabilities_file_from_env
from .._exceptions import APIStatusError, ConfigurationError

#: The ways to ask for structured output, in the order they are tried: a strict JSON schema (what
#: openai's ``parse()`` sends), a forced call of a strict tool whose parameters are the schema, then JSON
#: mode with the schema written in the prompt (and the word "json", which DeepSeek requires).
METHODS = ("json_schema", "tool", "json_object")

#: What a 400 that refuses a way of asking names: the request fields of that way (its ``param``), or,
#: in its message, one of the way's names beside words that say it is unavailable (DeepSeek: "This
#: response_format type is unavailable now"; OpenAI: "Invalid parameter: 'response_format' of type
#: 'json_schema' is not supported with this model"). Anything else -- a malformed conversation ("messages
#: with role 'tool' must be a response to a preceding message with 'tool_calls'", param ``messages``),
#: a bad value -- refuses the request, not the way, and is never learned.
_PARAMS = {
    "json_schema": ("response_format", "text.format", "response_schema"),
    "tool": ("tools", "tool_choice", "functions", "function_call"),
    "json_object": ("response_format", "text.format"),
}
_NAMES = {
    "json_schema": ("response_format", "json_schema", "text.format", "response_schema", "structured output"),
    "tool": (
        "tools",
        "tool_choice",
        "tool use",
        "tool calling",
        "tool call",
        "function calling",
        "functions",
    ),
    "json_object": ("response_format", "json_object", "text.format", "json mode"),
}
_UNAVAILABLE = (
    "unavailable",
    "not available",
    "not supported",
    "unsupported",
    "does not support",
    "doesn't support",
    "not allowed",
    "not enabled",
    "must contain the word",
)
#: The capability rows each method depends on, and what their ``support`` must not be.
_UNUSABLE = {
    "json_schema": ("json_schema", ("rejected", "ignored")),
    "tool": ("tools", ("rejected", "ignored")),
    "json_object": ("json_object", ("rejected",)),  # ignored is fine: the prompt carries the schema
}
_MAX_LEARNED = 4096


def _takes_json_schema(rows: Mapping[str, Mapping[str, Any]]) -> bool:
    row = rows.get("json_schema")
    return row is not None and row.get("support") == "supported"


_learned: dict[tuple[str, str], set[str]] = {}
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _families() -> dict[str, Any]:
    text = resources.files("holyclient").joinpath("_data/capabilities.json").read_text("utf-8")
    families: dict[str, Any] = json.loads(text)["families"]
    return families


@lru_cache(maxsize=512)
def table_features(model: str) -> Mapping[str, Mapping[str, Any]]:
    """The capabilities table's rows for ``model``'s family; empty for a model in no family."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    best, best_len = None, 0
    for family, entry in _families().items():
        for prefix in entry["match"]:
            if name.startswith(prefix) and len(prefix) > best_len:
                best, best_len = family, len(prefix)
    features: Mapping[str, Mapping[str, Any]] = _families()[best]["features"] if best is not None else {}
    return features


@lru_cache(maxsize=8)
def _read_file(path: str, _stamp: float) -> Mapping[str, Any]:
    try:
        data = json.loads(Path(path).read_text("utf-8-sig"))
    except OSError as exc:
        raise ConfigurationError(
            f"{path}: cannot read the capabilities file: {exc.strerror or exc}"
        ) from None
    except ValueError as exc:
        raise ConfigurationError(f"{path}: the capabilities file is not JSON: {exc}") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ConfigurationError(f"{path}: the capabilities file has no 'models' object")
    return models


def file_features(model: str) -> Mapping[str, Any]:
    """What the capabilities file named by ``HOLYSHEEP_CAPABILITIES`` says of ``model`` (``{}`` if nothing).

    Raises:
        ConfigurationError: the file cannot be read or is not a capabilities file.
    """
    path = capabilities_file_from_env()
    if path is None:
        return {}
    try:
        stamp = Path(path).stat().st_mtime
    except OSError:
        stamp = -1.0
    entry = _read_file(path, stamp).get(model)
    return entry if isinstance(entry, dict) else {}


def learn(endpoint: str, model: str, method: str) -> None:
    """Remember that ``model`` at ``endpoint`` (a base URL, with or without its trailing slash) refused
    ``method`` with a 400."""
    with _lock:
        if len(_learned) >= _MAX_LEARNED:
            _learned.clear()
        _learned.setdefault((endpoint.rstrip("/"), model), set()).add(method)


def forget_learned() -> None:
    """Forget every refusal learned in this process (a relay that now takes the format)."""
    with _lock:
        _learned.clear()


def methods_for(endpoint: str, model: str) -> tuple[str, ...]:
    """The ways to try for ``model`` at ``endpoint``, in order; ``("json_schema",)`` alone when it is known
    to take a JSON schema (openai's behaviour, no fallback)."""
    rows = table_features(model)
    if not _learned and _takes_json_schema(rows) and capabilities_file_from_env() is None:
        return ("json_schema",)  # the common case, on every request a framework sends with a JSON schema
    known: dict[str, bool] = {}
    for method, (row, unusable) in _UNUSABLE.items():
        if row in rows:
            known[method] = rows[row].get("support") not in unusable
    probed = file_features(model)
    for method, row in (("json_schema", "json_schema"), ("tool", "tools"), ("json_object", "json_object")):
        if isinstance(probed.get(row), bool):
            known[method] = probed[row]
    with _lock:
        for method in _learned.get((endpoint.rstrip("/"), model), ()):
            known[method] = False
    if known.get("json_schema") is True:
        return ("json_schema",)
    usable = tuple(m for m in METHODS if known.get(m) is not False)
    return usable or ("json_object",)


def rejects(error: BaseException, method: str) -> bool:
    """Whether ``error`` refuses the way of asking (``method``), not the request: a 400 or 422 that names
    the way (see :data:`_PARAMS`), so that a refusal of something else is never learned."""
    if not isinstance(error, APIStatusError) or error.status_code not in (400, 422):
        return False
    body = error.body if isinstance(error.body, Mapping) else {}
    param = body.get("param")
    if isinstance(param, str) and param:
        field = param.strip().lower()
        return any(field == name or field.startswith((name + ".", name + "[")) for name in _PARAMS[method])
    text = str(body.get("message") or error.message or "").lower()
    return any(word in text for word in _UNAVAILABLE) and any(name in text for name in _NAMES[method])
