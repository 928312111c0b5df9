"""The two textual rules every file kind shares: OpenAI URL literals and ``OPENAI_API_KEY`` names.

Both work on ``str``: Python and notebook sources as decoded, every other text file decoded as
latin-1 (one char per byte), since the patterns are ASCII and so match in any ASCII-compatible
encoding. They return :class:`Hit` objects; callers turn hits into edits and report sites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

NEW_HOST = "api.holysheep.ai"
BASE_URL = "https://api.holysheep.ai/v1"
OLD_KEY = "OPENAI_API_KEY"
#: ``--base-url-env NAME``: a variable name the migrated code reads its base URL from.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NEW_KEY = "HOLYSHEEP_API_KEY"

KeyMode = Literal["rename", "report"]

# the exact host ``api.openai.com`` as a whole host name (not a suffix or prefix of another host, so
# ``x.api.openai.com.evil`` and ``myres.openai.azure.com`` never match); the scheme is looked up
# behind it, and the rest of the URL is kept byte for byte and only read to spot realtime endpoints.
_HOST = r"(?i)(?<![\w.@-])api\.openai\.com(?![\w-]|\.[\w-])"
_SCHEME = r"(?i)(?<![\w.+-])(https?|wss?)://$"
_REST = r"[^\s\"'`<>)\]}|\\,;]*"
_KEY = r"(?<![A-Za-z0-9_])OPENAI_API_KEY(?![A-Za-z0-9_])"
# what follows a key name in ``NAME=value`` / ``NAME: value`` shapes (.env, shell, YAML, TOML, JS)
_VALUE = r"[ \t]*(?:=|:(?![:=]))[ \t]*[\"']?(?P<v>[^\s\"'#,;}]*)"
# Azure OpenAI configured in a text file: an ``api_type`` set to ``azure``/``azure_ad`` in any spelling of
# key (api_type, OPENAI_API_TYPE, apiType, api-type), separator (``=``, ``:``, ``:=``, a k8s
# ``name: X`` / ``value: azure`` pair) and quoting; or the SDK's base-URL variable set to an Azure endpoint.
_AZURE = (
    r"(?i)(?<![a-z0-9])(?:openai[_.-]?)?api[_-]?type[\"']?"
    r"(?:[ \t]*(?::=|[:=])|[ \t]*\r?\n[ \t]*-?[ \t]*value[ \t]*:)"
    r"[ \t]*[\"']?azure"
    # the variables the openai SDKs read for their base URL, set to an Azure endpoint: the OPENAI_*
    # settings of this file are Azure's (an Azure URL elsewhere may be just another provider's entry)
    r"|(?<![a-z0-9_])openai_(?:api_base|base_url|api_host|endpoint)[\"']?[ \t]*(?::=|[:=])[ \t]*[\"']?"
    r"https://[\w.-]+\.(?:openai|cognitiveservices)\.azure\.com"
)

_ALL = (
    ("host", _HOST),
    ("scheme", _SCHEME),
    ("rest", _REST),
    ("key", _KEY),
    ("value", _VALUE),
    ("azure", _AZURE),
)
_PATTERNS = {name: re.compile(p) for name, p in _ALL}

SECRET_MESSAGE = (
    f"{OLD_KEY} is set to a literal value here; not renamed so the OpenAI secret is not sent to "
    f"HolySheep: put a HolySheep key in {NEW_KEY} by hand"
)
#: words that make a value a placeholder (docs: "What counts as a placeholder")
_PLACEHOLDERS = ("your", "xxx", "...", "<", "changeme", "placeholder", "replace", "***", "todo", "example")
#: ... and, for a value that does not start with ``sk-`` (an OpenAI key always does), these too: a real
#: ``sk-`` key is random text that may hold any short word, so they cannot clear one
_TEST_WORDS = ("test", "dummy", "fake", "mock", "sample")
#: a marker comment that says "this site was finished by hand": its review and incomplete sites go
MARK = "holyclient-migrate: ok"
_SCHEMES = {"http": "https", "https": "https", "ws": "wss", "wss": "wss"}


@dataclass(frozen=True)
class Hit:
    """A match: ``new`` is the replacement text for ``[start, end)``, or None when it is report-only."""

    start: int
    end: int
    new: str | None
    kind: str
    message: str
    #: a host without a scheme (``api.openai.com``, not ``https://api.openai.com``)
    bare: bool = False


BARE_HOST_MESSAGE = (
    "OpenAI API host named in prose or a comment, left as is: "
    f"if it configures a client, point it at {NEW_HOST}"
)
_COMMENT_STARTS = ("#", "//", ";", "/*", "*", "--", "<!--", "rem ", "REM ", "::")
_COMMENT_MARKS = (" #", "\t#", " //", "\t//", "/*", "<!--")


def is_openai_base(value: str) -> bool:
    """``https://api.openai.com/v1`` (any case, one optional trailing slash): a whole base URL."""
    return value.lower() in ("https://api.openai.com/v1", "https://api.openai.com/v1/")


def env_message(name: str) -> str:
    return f"base URL read from {name} (default {BASE_URL})"


def review_bare(h: Hit) -> Hit:
    """A host without a scheme in prose or a comment ("we moved off api.openai.com") is more often a
    sentence about OpenAI than configuration: list it for review instead of rewriting the sentence."""
    if h.bare and h.new is not None:
        return Hit(h.start, h.end, None, "host", BARE_HOST_MESSAGE)
    return h


def in_comment(s: str, offset: int) -> bool:
    """Whether ``offset`` sits in a line comment of a config or script file (``#``, ``//``, ``;``,
    ``--``, ``REM``...), judged from the text before it on its line."""
    before = s[s.rfind("\n", 0, offset) + 1 : offset]
    return before.lstrip().startswith(_COMMENT_STARTS) or any(m in before for m in _COMMENT_MARKS)


def url_hits(s: str, start: int = 0, end: int | None = None, *, rewrite_realtime: bool = False) -> list[Hit]:
    """Find OpenAI API URLs (and the bare host) in ``s[start:end]``; keep path, port and query."""
    pats = _PATTERNS
    stop = len(s) if end is None else end
    hits = []
    for m in pats["host"].finditer(s, start, stop):
        # looking behind the host for the scheme keeps the pattern anchored on a literal: a pattern
        # starting with an optional scheme is tried at every offset and costs ~10x more
        sm = pats["scheme"].search(s, max(start, m.start() - 8), m.start())
        scheme = (sm.group(1)).lower() if sm else None
        rest_m = pats["rest"].match(s, m.end(), stop)
        rest = (rest_m.group()).lower() if rest_m else ""
        begin = sm.start() if sm else m.start()
        new = f"{_SCHEMES[scheme]}://{NEW_HOST}" if scheme else NEW_HOST
        if "/realtime" in rest or scheme in ("ws", "wss"):
            if rewrite_realtime:
                hits.append(Hit(begin, m.end(), new, "realtime", "realtime endpoint rewritten"))
            else:
                message = (
                    "realtime/WebRTC endpoint left as is; check HolySheep supports it "
                    "(--rewrite-realtime to rewrite)"
                )
                hits.append(Hit(begin, m.end(), None, "realtime", message))
            continue
        what = "URL" if scheme else "host"
        hits.append(Hit(begin, m.end(), new, "url", f"OpenAI API {what} -> {new}", bare=scheme is None))
    return hits


def is_azure_text(s: str) -> bool:
    """True when a file configures the Azure flavour of OpenAI: ``api_type`` set to ``azure`` or
    ``azure_ad`` (``=``/``:`` forms of .env, YAML, TOML, INI, JSON, k8s env lists), or
    ``OPENAI_API_BASE``/``OPENAI_BASE_URL`` set to an Azure endpoint. Its ``OPENAI_API_KEY`` names are
    then the Azure key: left alone."""
    return _PATTERNS["azure"].search(s) is not None


def secret_like(value: str) -> bool:
    """Whether a literal value may be a real key (reported, never renamed) rather than a placeholder.

    A key starts with ``sk-`` or mixes letters and digits over 8+ characters. Empty values, references
    (``$X``, ``${X}``, ``%X%``, ``{{ x }}``), code (``.``, ``(``, ``[``), ``none``/``null``, words without a
    digit (``api_key``) and values holding a placeholder word are placeholders: renaming their variable
    sends no secret anywhere.
    """
    low = value.lower()
    if not value or value[0] in "${(%" or any(p in low for p in _PLACEHOLDERS):
        return False
    if low in ("none", "null", "sk-") or any(c in value for c in ".([") or value == OLD_KEY:
        return False
    if low.startswith("sk-"):
        return True
    if any(w in low for w in _TEST_WORDS):
        return False
    return len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def key_hits(
    s: str,
    start: int = 0,
    end: int | None = None,
    *,
    mode: KeyMode = "rename",
    check_value: bool = False,
) -> list[Hit]:
    """Find ``OPENAI_API_KEY`` names. With ``check_value``, a name assigned a literal value in the
    same line (``OPENAI_API_KEY=sk-...``) is reported, not renamed: renaming it would send the
    OpenAI secret to HolySheep. The value itself is never read into a message."""
    pats = _PATTERNS
    hits = []
    for m in pats["key"].finditer(s, start, len(s) if end is None else end):
        if mode == "report":
            hits.append(
                Hit(
                    m.start(),
                    m.end(),
                    None,
                    "key",
                    f"{OLD_KEY} referenced; HolySheep needs {NEW_KEY} (a HolySheep key)",
                )
            )
            continue
        before = s[max(0, m.start() - 1) : m.start()]
        if check_value and before not in (
            "$",
            "{",
            "%",
            ":",
            ".",
            "[",
        ):  # ${X}, %X%, $env:X, env.X: a reference
            v = pats["value"].match(s, m.end())
            if v is not None and secret_like(v.group("v")):
                hits.append(Hit(m.start(), m.end(), None, "key-value", SECRET_MESSAGE))
                continue
            if v is not None and s.startswith(("${" + NEW_KEY + "}", "$" + NEW_KEY), v.start("v")):
                continue  # OPENAI_API_KEY=${HOLYSHEEP_API_KEY}: the reference migrate keeps for its readers
        hits.append(Hit(m.start(), m.end(), NEW_KEY, "key", f"{OLD_KEY} -> {NEW_KEY}"))
    return hits
