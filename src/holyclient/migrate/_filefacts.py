"""The proof's facts of every file that is not Python: the variables an environment file sets, the keys
of a config file, the client entries of AutoGen's ``OAI_CONFIG_LIST`` and Haystack pipelines, and the
URLs and keys each file holds in its own scope.

**Environment providers** are the files that set an app's environment: ``.env*``, docker compose files,
CI workflows, Dockerfiles, Kubernetes manifests with ``env:`` lists, shell and PowerShell scripts. Each
``NAME=value`` / ``NAME: value`` they hold becomes a source: a literal, ``${OTHER}`` (another
variable), ``${{ secrets.NAME }}`` (a CI secret, known by its name) or something migrate cannot read.
**Config files** (YAML, JSON, TOML, INI) are parsed into a tree that code reading them
(``json.load(open("config.json"))["base_url"]``) is resolved against.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import tomllib

from . import _provenance as pv
from ._edits import Lines
from ._facts import OPENAI_KEY, OPENAI_URL, Facts, ScopeKey, Sink
from ._rules import MARK, in_comment, secret_like
from ._yamlish import parse_yaml

_URL = re.compile(r"(?i)\b(?:https?|wss?)://[\w.-]+")
_SK = re.compile(r"(?<![\w-])sk-[A-Za-z0-9_-]{8,}")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
#: ``NAME=value`` (.env, shell, compose lists, Dockerfile ENV/ARG) or ``NAME: value`` (YAML maps)
_ASSIGN = re.compile(
    rf"^[ \t]*(?:-[ \t]+)?(?:export[ \t]+|ENV[ \t]+|ARG[ \t]+|setenv[ \t]+|\$env:)?({_NAME})[ \t]*"
    r"(=|:(?=[ \t]|$))[ \t]*(?P<v>.*?)[ \t]*\r?$",
    re.M,
)
_DOCKER_ENV = re.compile(rf"(?:^|[ \t])(?:-e|--env)(?:[ \t]+|=)[\"']?({_NAME})(?:=(?P<v>[^\s\"']*))?", re.M)
_ENV_SPACE = re.compile(rf"^[ \t]*ENV[ \t]+({_NAME})[ \t]+(?P<v>[^=\s][^\r\n]*?)[ \t]*\r?$", re.M)
_K8S = re.compile(rf"-[ \t]*name:[ \t]*[\"']?({_NAME})[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*(?P<v>[^\r\n]*)")
_SECRET_REF = re.compile(r"^\$\{\{\s*secrets\.(\w+)\s*\}\}$")
_CI_REF = re.compile(r"^\$\{\{\s*(?:env|vars)\.(\w+)\s*\}\}$")
_SHELL_REF = re.compile(
    rf"^\$\{{({_NAME})(?::?[-=](?P<d>[^}}]*)|(?P<req>:?\?)[^}}]*)?\}}$|^\$({_NAME})$|^%({_NAME})%$|^\$env:({_NAME})$"
)
_YAML_SUFFIXES = (".yml", ".yaml")
_PROVIDER_SUFFIXES = (".env", ".sh", ".bash", ".zsh", ".ksh", ".ps1")


def is_provider(path: str, text: str) -> bool:
    """Whether the file sets environment variables for the app (see the module docstring)."""
    name = os.path.basename(path).lower()
    if name.startswith(".env") or name.endswith(_PROVIDER_SUFFIXES) or name == ".envrc":
        return True  # .env files (as _configs.is_env_file) and shell scripts
    if "dockerfile" in name:
        return True
    if name.endswith(_YAML_SUFFIXES):
        norm = path.replace(os.sep, "/").lower()
        return (
            "compose" in name
            or "/.github/workflows/" in f"/{norm}"
            or name in (".gitlab-ci.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml")
            or "/.circleci/" in f"/{norm}"
            or ("\nkind:" in f"\n{text}" and "env:" in text)
        )
    return False


def _value(raw: str, name: str) -> pv.Src:
    """One assigned value as a source (quotes and a trailing comment removed)."""
    v = raw.strip()
    if v[:1] in "\"'" and v[-1:] == v[:1] and len(v) >= 2:
        v = v[1:-1]
    elif " #" in v:
        v = v.split(" #", 1)[0].rstrip()
    if not v:
        return pv.Lit(pv.NONE, pv.PLACEHOLDER)  # set to nothing: no key
    if m := _SECRET_REF.match(v):
        return pv.Secret(m.group(1))
    if m := _CI_REF.match(v):
        return pv.Env(m.group(1))
    if m := _SHELL_REF.match(v):
        var = m.group(1) or m.group(4) or m.group(5) or m.group(6)
        default = m.group("d")
        return pv.Env(
            var, _value(default, var) if default is not None else None, required=bool(m.group("req"))
        )
    if v.startswith(("$(", "`", "${", "$")):
        return pv.Unknown(f"{name}, computed when the environment is set")
    return env_literal(v, name)


def env_literal(value: str, name: str) -> pv.Lit:
    """A literal set to a variable or config key: a real-looking key is OpenAI's unless the name says
    HolySheep's; a placeholder will hold what the name says (``OPENAI_API_KEY=your-key``: an OpenAI key),
    or no key when the name does not say (``api_key: changeme``)."""
    if secret_like(value) and (not name or pv.is_key_name(name) or value.startswith("sk-")):
        return pv.literal(value, name)
    by_name = pv.key_of_name(name) if name and pv.is_key_name(name) else pv.UNKNOWN
    if by_name == pv.UNKNOWN:
        return pv.Lit(pv.url_class(value), pv.PLACEHOLDER)
    return pv.Lit(pv.url_class(value), by_name, name)


def _env_sets(text: str, lines: Lines, yaml: bool) -> dict[str, list[tuple[int, pv.Src]]]:
    out: dict[str, list[tuple[int, pv.Src]]] = {}
    seen: set[int] = set()

    def add(at: int, name: str, raw: str | None) -> None:
        if at in seen or in_comment(text, at):
            return
        seen.add(at)
        value = pv.Env(name) if raw is None else _value(raw, name)  # `-e NAME`: passed through
        out.setdefault(name, []).append((lines.line_of(at), value))

    for m in _K8S.finditer(text):
        add(m.start(1), m.group(1), m.group("v"))
    for m in _ASSIGN.finditer(text):
        name = m.group(1)
        if yaml and (m.group(2) != ":" or not name.isupper() or not m.group("v")):
            continue
        if not yaml and m.group(2) == ":":
            continue
        if name in ("name", "value"):
            continue
        add(m.start(1), name, m.group("v"))
    for m in _ENV_SPACE.finditer(text):
        add(m.start(1), m.group(1), m.group("v"))
    for m in _DOCKER_ENV.finditer(text):
        add(m.start(1), m.group(1), m.group("v"))
    return out


def _parse_config(path: str, text: str) -> object:
    """The config file as plain data (None when it is not one migrate reads)."""
    low = path.lower()
    try:
        if low.endswith(".json") or os.path.basename(path).startswith("OAI_CONFIG_LIST"):
            return json.loads(text)
        if low.endswith(".toml"):
            return tomllib.loads(text)
        if low.endswith((".ini", ".cfg", ".conf")):
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
            return {section: dict(parser[section].items()) for section in parser.sections()}
        if low.endswith(_YAML_SUFFIXES):
            return parse_yaml(text)
    except (ValueError, configparser.Error, RecursionError):
        return None
    return None


def _tree(value: object, name: str = "") -> pv.Src:
    if isinstance(value, dict):
        return pv.Table(tuple((str(k), _tree(v, str(k))) for k, v in value.items()))
    if isinstance(value, list):
        return pv.Table(tuple((str(i), _tree(v, name)) for i, v in enumerate(value)))
    if isinstance(value, str):
        if value.startswith("$"):
            return _value(value, name)
        return env_literal(value, name)
    return pv.NO_VALUE if value is None else pv.Unknown(repr(value)[:20])


def _config_keys(tree: pv.Src, lines_of: dict[str, int], prefix: str = "") -> list[ScopeKey]:
    out: list[ScopeKey] = []
    if isinstance(tree, pv.Table):
        for k, v in tree.items:
            if isinstance(v, pv.Table):
                out.extend(_config_keys(v, lines_of, f"{prefix}{k}."))
            elif pv.is_key_name(k) or (isinstance(v, pv.Lit) and v.key in (pv.OPENAI, pv.OTHER)):
                out.append(ScopeKey(lines_of.get(k, 1), v, f"{prefix}{k}"))
    return out


def _entries(tree: pv.Src) -> list[pv.Table]:
    return [v for _, v in tree.items if isinstance(v, pv.Table)] if isinstance(tree, pv.Table) else []


def _line_of_key(text: str, key: str) -> int:
    m = re.search(rf"[\"']?{re.escape(key)}[\"']?\s*[:=]", text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def extract(path: str, raw: bytes) -> Facts:
    """The proof's facts of one non-Python file (decoded as latin-1: offsets are bytes)."""
    text = raw.decode("latin-1")
    lines = Lines(text)
    provider = is_provider(path, text)
    facts = Facts(path, "env" if provider else "text")
    if MARK in text:
        facts.marked = {i + 1 for i, line in enumerate(text.split("\n")) if MARK in line}
    yaml = path.lower().endswith(_YAML_SUFFIXES)
    if provider:
        facts.env_sets = _env_sets(text, lines, yaml)
        for name, sets in facts.env_sets.items():
            if pv.is_key_name(name):
                facts.keys.extend(ScopeKey(line, src, name) for line, src in sets)
    else:
        data = _parse_config(path, text)
        if data is not None:
            facts.lang = "config"
            tree = _tree(data)
            facts.config = tree
            # (a key never starts after a letter: the same match from that letter would have been tried)
            keys = set(re.findall(r"(?<![A-Za-z_])[\"']?([A-Za-z_][\w-]*)[\"']?\s*[:=]", text))
            facts.keys.extend(
                _config_keys(tree, {k: _line_of_key(text, k) for k in keys if pv.is_key_name(k)})
            )
            _config_sinks(path, text, data, facts)
    # each scan below needs a literal its substring test finds far faster than the regex scans a text
    for m in _URL.finditer(text) if "://" in text else ():
        if in_comment(text, m.start()) and not provider:
            continue
        cls = pv.url_class(m.group())
        if cls == pv.RELAY:
            facts.raw_relay.append(lines.line_of(m.start()))
        elif cls == pv.OPENAI:
            facts.raw_openai.append(lines.line_of(m.start()))
    if not provider and facts.lang != "config":
        for m in _ASSIGN.finditer(text):
            value = m.group("v").strip().strip("\"'")
            if pv.is_key_name(m.group(1)) and secret_like(value):
                facts.keys.append(
                    ScopeKey(lines.line_of(m.start(1)), pv.literal(value, m.group(1)), m.group(1))
                )
    known = {k.line for k in facts.keys}
    for m in _SK.finditer(text) if "sk-" in text else ():
        line = lines.line_of(m.start())
        if line not in known and secret_like(m.group()):
            facts.keys.append(ScopeKey(line, pv.literal(m.group()), "a literal key"))
    return facts


def _config_sinks(path: str, text: str, data: object, facts: Facts) -> None:
    """AutoGen's OAI_CONFIG_LIST entries and Haystack pipeline components are clients."""
    if os.path.basename(path).startswith("OAI_CONFIG_LIST") and isinstance(data, list):
        for i, entry in enumerate(data):
            if not isinstance(entry, dict) or "api_type" in entry:
                continue
            if not str(entry.get("model", "")).startswith(("gpt-", "o1", "o3", "o4")):
                continue
            table = _tree(entry)
            url = pv.Fallback(pv.pick(table, ("base_url",)), OPENAI_URL)
            entry_key = pv.Fallback(pv.pick(table, ("api_key",)), OPENAI_KEY)
            facts.sinks.append(Sink(_nth_brace(text, i), "OAI_CONFIG_LIST entry", url, entry_key))
    elif isinstance(data, dict) and isinstance(data.get("components"), dict):
        for cname, comp in data["components"].items():
            if not isinstance(comp, dict) or not isinstance(comp.get("init_parameters"), dict):
                continue
            if not re.search(r"haystack\.components\.[\w.]*\.OpenAI\w*$", str(comp.get("type", ""))):
                continue
            params = comp["init_parameters"]
            url = pv.Fallback(pv.pick(_tree(params), ("api_base_url",)), OPENAI_URL)
            key: pv.Src = OPENAI_KEY
            api_key = params.get("api_key")
            if isinstance(api_key, dict):
                names = api_key.get("env_vars") or []
                key = (
                    pv.one_of(pv.Env(str(n), required=True) for n in names)
                    if names
                    else pv.Unknown("api_key")
                )
            elif isinstance(api_key, str):
                key = env_literal(api_key, "api_key")
            m = re.search(rf"^[ \t]*{re.escape(str(cname))}:", text, re.M)
            line = text.count("\n", 0, m.start()) + 1 if m else 1
            facts.sinks.append(Sink(line, "Haystack OpenAI component", url, key))


def _nth_brace(text: str, n: int) -> int:
    """Line of the ``n``-th object of a top-level JSON list."""
    from ._js import mask

    masked, depth, count = mask(text), 0, -1
    for i, c in enumerate(masked):
        if c in "[{":
            depth += 1
            if c == "{" and depth == 2:
                count += 1
                if count == n:
                    return text.count("\n", 0, i) + 1
        elif c in "]}":
            depth -= 1
    return 1
