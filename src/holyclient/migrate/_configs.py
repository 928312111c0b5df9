"""Framework configuration files: each names the relay, or its OpenAI default is listed.

* ``.env`` files: LlamaIndex reads only ``OPENAI_API_BASE``; pydantic-ai, the Agents SDK and the openai
  SDK only ``OPENAI_BASE_URL`` (CrewAI and litellm either). A file that sets one of them to OpenAI's or
  the relay's URL gets the other beside it, so every framework the app uses is pointed at the relay.
* Haystack pipeline YAML: an OpenAI component's ``init_parameters`` get ``api_base_url`` (a ``null``
  is filled in, a missing one added under ``init_parameters``).
* AutoGen's ``OAI_CONFIG_LIST`` (JSON): an OpenAI entry without ``base_url`` gets one; a literal key in it
  is reported, so the file-level rule (``_scope``) keeps it away from the relay.

The text is the file decoded as latin-1 (offsets are byte offsets), as in :mod:`._text`.
"""

from __future__ import annotations

import json
import os
import re

from ._edits import Edit, Lines, newline_of
from ._js import mask
from ._report import Finding
from ._rules import BASE_URL, NEW_HOST, NEW_KEY, secret_like

_ENV_BASE = re.compile(
    r"^([ \t]*(?:export[ \t]+)?)(OPENAI_BASE_URL|OPENAI_API_BASE)[ \t]*=[ \t]*([\"']?)(\S*?)\3[ \t]*\r?$",
    re.M,
)
_OTHER = {"OPENAI_BASE_URL": "OPENAI_API_BASE", "OPENAI_API_BASE": "OPENAI_BASE_URL"}
_HAYSTACK_TYPE = re.compile(
    r"^([ \t]*)type:[ \t]*[\"']?haystack\.components\.[\w.]+\.(?:OpenAIChatGenerator|OpenAIGenerator|"
    r"OpenAITextEmbedder|OpenAIDocumentEmbedder)[\"']?[ \t]*\r?$",
    re.M,
)
_NULL = re.compile(r"^([ \t]*api_base_url:)[ \t]*(null|~|''|\"\")?[ \t]*\r?$")


def is_env_file(path: str) -> bool:
    name = os.path.basename(path).lower()
    return name.startswith(".env") or name.endswith(".env")


def rewrite(path: str, text: str, keys: str = "rename") -> tuple[list[Edit[str]], list[Finding]]:
    """Edits and findings for the framework configuration in one text file (none for other files)."""
    name = os.path.basename(path)
    if is_env_file(path):
        return _env_pair(text)
    if name.startswith("OAI_CONFIG_LIST"):
        return _oai_config_list(text)
    if (
        name.lower().endswith((".yml", ".yaml"))
        and "init_parameters" in text
        and "haystack.components" in text
    ):
        return _haystack(text, keys)
    return [], []


def _relay(value: str) -> str | None:
    low = value.lower()
    if low.startswith(("https://api.openai.com", "http://api.openai.com")):
        return "https://" + NEW_HOST + value[value.index("api.openai.com") + len("api.openai.com") :]
    return value if NEW_HOST in low else None


def _env_pair(text: str) -> tuple[list[Edit[str]], list[Finding]]:
    found = {m.group(2): m for m in _ENV_BASE.finditer(text)}
    lines, nl = Lines(text), newline_of(text)
    edits: list[Edit[str]] = []
    findings: list[Finding] = []
    for var, m in found.items():
        other = _OTHER[var]
        value = _relay(m.group(4))
        if other in found or value is None:
            continue
        line = lines.line_of(m.start())
        eol = lines.end(line)
        edits.append((eol, eol, f"{nl}{m.group(1)}{other}={m.group(3)}{value}{m.group(3)}"))
        findings.append(
            (
                line,
                "env-pair",
                "rewrite",
                f"added {other} beside {var}: frameworks that read only {other} go to the relay too",
            )
        )
    return edits, findings


def _oai_config_list(text: str) -> tuple[list[Edit[str]], list[Finding]]:
    try:
        entries = json.loads(text)
    except ValueError:
        return [], [
            (
                1,
                "framework",
                "review",
                "OAI_CONFIG_LIST is not JSON: add base_url to its OpenAI entries by hand",
            )
        ]
    if not isinstance(entries, list):
        return [], []
    masked, lines = mask(text), Lines(text)
    opens, depth = [], 0
    for i, c in enumerate(masked):
        if c in "[{":
            depth += 1
            if c == "{" and depth == 2:
                opens.append(i)
        elif c in "]}":
            depth -= 1
    edits: list[Edit[str]] = []
    findings: list[Finding] = []
    for at, entry in zip(opens, entries, strict=False):
        if not isinstance(entry, dict):
            continue
        line = lines.line_of(at)
        key = entry.get("api_key")
        if isinstance(key, str) and secret_like(key):
            findings.append(
                (
                    line,
                    "hardcoded-key",
                    "review",
                    "OAI_CONFIG_LIST entry holds a literal API key; use a HolySheep key",
                )
            )
        model = str(entry.get("model", ""))
        if {"base_url", "api_base", "api_type"} & entry.keys() or not model.startswith(
            ("gpt-", "o1", "o3", "o4")
        ):
            continue
        after = text[at + 1 :]
        gap = after[: len(after) - len(after.lstrip())]
        if "\n" in gap:
            indent = gap[gap.rindex("\n") + 1 :]
            edits.append(
                (at + 1, at + 1, f'{gap[: gap.rindex(chr(10)) + 1]}{indent}"base_url": "{BASE_URL}",')
            )
        else:
            edits.append((at + 1, at + 1, f'"base_url": "{BASE_URL}", '))
        findings.append((line, "framework", "rewrite", "OAI_CONFIG_LIST entry: added base_url"))
    return edits, findings


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _haystack(text: str, keys: str = "rename") -> tuple[list[Edit[str]], list[Finding]]:
    lines = Lines(text)
    nl = newline_of(text)
    rows = text.split("\n")
    edits: list[Edit[str]] = []
    findings: list[Finding] = []
    for m in _HAYSTACK_TYPE.finditer(text):
        at = lines.line_of(m.start()) - 1  # 0-based row of `type:`
        level = len(m.group(1))
        first = at
        while first > 0 and (not rows[first - 1].strip() or _indent(rows[first - 1]) >= level):
            first -= 1
        last = at
        while last + 1 < len(rows) and (not rows[last + 1].strip() or _indent(rows[last + 1]) >= level):
            last += 1
        init = next(
            (
                r
                for r in range(first, last + 1)
                if _indent(rows[r]) == level and rows[r].strip().startswith("init_parameters:")
            ),
            None,
        )
        if init is None or rows[init].split(":", 1)[1].strip() not in ("", "\r"):
            findings.append(
                (
                    at + 1,
                    "framework",
                    "review",
                    f"Haystack component without an init_parameters block: set api_base_url: {BASE_URL}",
                )
            )
            continue
        children = [r for r in range(init + 1, last + 1) if rows[r].strip() and _indent(rows[r]) > level]
        child_level = _indent(rows[children[0]]) if children else level + 2
        base = next(
            (
                r
                for r in children
                if _indent(rows[r]) == child_level and rows[r].strip().startswith("api_base_url:")
            ),
            None,
        )
        has_key = any(
            _indent(rows[r]) == child_level and rows[r].strip().startswith("api_key:") for r in children
        )
        # without api_key the component reads OPENAI_API_KEY (Haystack's default Secret): give it HolySheep's
        key_lines = (
            "".join(
                f"{nl}{' ' * child_level}{row}"
                for row in (
                    "api_key:",
                    "  env_vars:",
                    f"  - {NEW_KEY}",
                    "  strict: true",
                    "  type: env_var",
                )
            )
            if not has_key and keys == "rename"
            else ""
        )
        if base is None:
            eol = lines.end(init + 1)
            edits.append((eol, eol, f"{nl}{' ' * child_level}api_base_url: {BASE_URL}{key_lines}"))
        else:
            nm = _NULL.match(rows[base])
            if nm is None:
                continue  # a URL: OpenAI's is rewritten by the URL rule, another vendor's is left alone
            start = lines.start(base + 1) + nm.end(1)
            edits.append((start, lines.end(base + 1), f" {BASE_URL}{key_lines}"))
        findings.append(
            (at + 1, "framework", "rewrite", "Haystack OpenAI component: api_base_url set to the relay")
        )
    return edits, findings
