"""Where a client site's base URL and key come from, and what they are worth: the provenance model.

Taint analysis in the terms of Semgrep's taint mode and CodeQL's data flow. **Sources** are what a
base URL or a key can be read from: a literal, an environment variable by name, a module constant
(also one imported from another module of the run), a config file's key, a dict entry, a function
parameter or another record migrate cannot follow, a CI secret, and a client's own default (the
openai SDK reads ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``). **Sinks** are the places that send a key
to a URL: client constructors of openai, holyclient and every framework migrate knows, the openai
module client, the Agents SDK's default client and trace exporter, framework config dicts and files,
and every file's own scope (a raw URL next to the keys the file reads). The extractors
(:mod:`._pyflow`, :mod:`._filefacts`) turn a file into sinks whose URL and key are :data:`Src` trees;
:func:`resolve` follows a tree through the run (env files, other modules, config files) to the set of
classes it can take, and :func:`verdict` says whether the pair is safe.

What a class means, and the assumptions that make the model decidable (docs/guides/migrating.md,
"What exit 0 means"):

* URL classes: ``relay`` (HolySheep, or the variable named by ``--base-url-env``, or a ``HOLYSHEEP_*``
  variable), ``local`` (loopback), ``openai``, ``other`` (another host), ``unknown``.
* Key classes: ``holysheep``, ``openai``, ``other`` (another vendor's), ``placeholder`` (a value that
  is no key), ``none`` (None or unset: the client's default applies), ``unknown``.
* A variable that an env file, compose file, CI workflow, Dockerfile or script of the run sets holds
  what it is set to there; one that none sets holds what its name says: ``HOLYSHEEP_*`` HolySheep's,
  a name with ``OPENAI`` OpenAI's (unset, the SDK's default: api.openai.com), another vendor's name that
  vendor's, any other name something migrate cannot know.
* A literal key in a file is an OpenAI key unless its variable's name says HolySheep's.

Nothing here holds a value: a literal is kept as its class, so no model object can leak a secret.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ._rules import NEW_HOST, secret_like

RELAY, LOCAL, OPENAI, OTHER, UNKNOWN, NONE, HS, PLACEHOLDER = (
    "relay",
    "local",
    "openai",
    "other",
    "unknown",
    "none",  # None, or unset: the client's own default applies
    "holysheep",
    "placeholder",  # a value that is no key (``"not-needed"``, ``""``, ``<your key>``): nothing to leak
)
URL, KEY = "url", "key"
_LOOPBACK = ("localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal")
#: other vendors: a key variable named for one of them is that vendor's key
_VENDORS = (
    "ANTHROPIC",
    "CLAUDE",
    "GEMINI",
    "GOOGLE",
    "VERTEX",
    "MISTRAL",
    "COHERE",
    "GROQ",
    "AZURE",
    "AWS",
    "BEDROCK",
    "HUGGINGFACE",
    "HF_",
    "DEEPSEEK",
    "TOGETHER",
    "REPLICATE",
    "PERPLEXITY",
    "FIREWORKS",
    "OPENROUTER",
    "XAI",
    "VOYAGE",
    "PINECONE",
    "TAVILY",
    "SERPAPI",
    "LANGSMITH",
    "LANGCHAIN",
    "WANDB",
    "OLLAMA",
)


# -- sources -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Lit:
    """A literal, kept as its classes only: ``url`` as a base URL, ``key`` as a key. ``named``: a
    placeholder whose key class is what its variable's name says it will hold (``OPENAI_API_KEY=...``)."""

    url: str
    key: str
    named: str = ""


@dataclass(frozen=True, slots=True)
class Env:
    """An environment variable read by name; ``default`` is what an unset variable gives (None: None);
    ``required`` when reading an unset variable fails (``os.environ[NAME]``)."""

    name: str
    default: Src | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class Const:
    """A module-level name of ``module`` ("" is the module holding the reference), then ``keys`` into it."""

    module: str
    name: str
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Config:
    """A key path read from a config file of the run (``configparser``, ``json``, ``tomllib``, YAML)."""

    file: str
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Table:
    """A dict literal: its string keys and values; ``open`` when code adds keys migrate cannot see."""

    items: tuple[tuple[str, Src], ...]
    open: bool = False


@dataclass(frozen=True, slots=True)
class Pick:
    """``source[key]...`` (subscripts, ``.get``, attributes) on a source; ``*`` is any key."""

    source: Src
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Record:
    """A value migrate cannot follow -- a parameter, a call's result -- and anything read from it."""

    root: str
    scope: str = ""


@dataclass(frozen=True, slots=True)
class Unknown:
    """Anything else; ``what`` is the source text shown in a report (never a value)."""

    what: str


@dataclass(frozen=True, slots=True)
class Secret:
    """A CI secret by name (``${{ secrets.NAME }}``): its name is its provenance."""

    name: str


@dataclass(frozen=True, slots=True)
class Client:
    """A client object built by a known constructor (``sdk`` is ``openai`` or ``holyclient``), with the
    key it was given."""

    sdk: str
    key: Src | None = None


@dataclass(frozen=True, slots=True)
class At:
    """``source`` as read in another file of the run (run-wide state: the module client, Agents defaults)."""

    source: Src
    origin: str


@dataclass(frozen=True, slots=True)
class OneOf:
    """Any of several sources (branches, several assignments, ``a or b``)."""

    options: tuple[Src, ...]


@dataclass(frozen=True, slots=True)
class Fallback:
    """``primary``, where None (an unset argument) means ``default``: a client's own default."""

    primary: Src
    default: Src


Src = Lit | Env | Const | Config | Table | Pick | Record | Unknown | Secret | Client | OneOf | Fallback | At


def one_of(options: Iterable[Src]) -> Src:
    found: list[Src] = []
    for o in options:
        for x in o.options if isinstance(o, OneOf) else (o,):
            if x not in found:
                found.append(x)
    if not found:
        return Unknown("nothing")
    return found[0] if len(found) == 1 else OneOf(tuple(found))


# -- classes of literals and names -----------------------------------------------------------------
def url_class(value: str) -> str:
    """The class of a literal as a base URL."""
    text = value.strip()
    if not text:
        return NONE
    low = text.lower()
    if "://" not in low:
        return RELAY if low.startswith(NEW_HOST) else OPENAI if low.startswith("api.openai.com") else UNKNOWN
    try:
        host = urlsplit(low).hostname or ""
    except ValueError:
        return UNKNOWN
    if host == NEW_HOST or host.endswith(".holysheep.ai"):
        return RELAY
    if host == "api.openai.com":
        return OPENAI
    if host in _LOOPBACK or host.endswith(".localhost") or host.startswith("127."):
        return LOCAL
    return OTHER if host else UNKNOWN


def key_of_name(name: str) -> str:
    """What a key variable holds when no file of the run sets it: what its name says."""
    up = name.upper()
    if "HOLYSHEEP" in up:
        return HS
    if any(v in up for v in _VENDORS):
        return OTHER
    return OPENAI if "OPENAI" in up else UNKNOWN


def url_of_name(name: str, declared: frozenset[str]) -> str:
    up = name.upper()
    if "HOLYSHEEP" in up or name in declared:
        return RELAY
    if any(v in up for v in _VENDORS):
        return OTHER
    return OPENAI if "OPENAI" in up else UNKNOWN


def key_literal(value: str, name: str = "") -> str:
    """The class of a literal given as a key: a placeholder is no key; a real-looking key is
    OpenAI's (or another vendor's by its prefix) unless the variable it is bound to says HolySheep.
    Bound to a name that is not a key's (``MODEL = "gpt-4o-mini"``), only an ``sk-`` value is a key."""
    if not secret_like(value) or (name and not is_key_name(name) and not value.startswith("sk-")):
        return PLACEHOLDER
    if name and key_of_name(name) in (HS, OTHER):
        return key_of_name(name)
    return OTHER if value.startswith(("sk-ant-", "sk-or-")) else OPENAI


def literal(value: str, name: str = "") -> Lit:
    return Lit(url_class(value), key_literal(value, name))


NO_VALUE = Lit(NONE, NONE)


def is_key_name(name: str) -> bool:
    """Whether a variable or field name holds an API key (``api_key``, ``OPENAI_KEY``, ``LLM_API_KEY``)."""
    low = name.lower().replace("-", "_")
    if "api_key" in low or "apikey" in low or low in ("key", "token", "access_token", "auth_token"):
        return True
    return ("openai" in low or "holysheep" in low or "llm" in low) and ("key" in low or "token" in low)


def is_url_name(name: str) -> bool:
    low = name.lower().replace("-", "_")
    return any(w in low for w in ("base_url", "api_base", "baseurl", "endpoint", "api_host", "base_path"))


def pick(src: Src, keys: tuple[str, ...]) -> Src:
    """``src[k1][k2]...`` as far as it can be followed without the run."""
    for i, k in enumerate(keys):
        if isinstance(src, Table):
            if k == "*":
                values = [v for _, v in src.items]
                if src.open or not values:
                    values.append(Unknown("a dict entry migrate cannot see"))
                src = one_of(values)
                continue
            hit = [v for name, v in src.items if name == k] or [
                v for name, v in src.items if name.lower() == k.lower()
            ]
            src = hit[-1] if hit else (Unknown(f"a dict without {k!r}") if src.open else NO_VALUE)
        elif isinstance(src, OneOf):
            return one_of(pick(o, keys[i:]) for o in src.options)
        elif isinstance(src, (Const, Config)):
            return Pick(src, keys[i:])
        elif isinstance(src, Record):
            return src
        elif isinstance(src, Pick):
            return Pick(src.source, src.keys + keys[i:])
        elif src == NO_VALUE:
            return src
        else:
            return Unknown("a value read from something migrate cannot follow")
    return src


# -- the verdict on one sink -----------------------------------------------------------------------
SAFE_KEYS = frozenset({HS, NONE, PLACEHOLDER})
RELAY_HOSTS = frozenset({RELAY, LOCAL})


@dataclass(frozen=True)
class Verdict:
    """``ok``; else ``reason`` is one of the failure names below and ``key_risk`` says whether the pair
    sends a key to the wrong host (as opposed to a site that simply still reaches OpenAI)."""

    ok: bool
    reason: str = ""
    key_risk: bool = False


OK = Verdict(True)


def verdict(url: set[str], key: set[str]) -> Verdict:
    """Whether a sink with these URL and key classes is proven: every key that can reach the relay is
    HolySheep's, no HolySheep key can reach another host, and it reaches the relay at all."""
    if not url:
        return Verdict(False, "url-unknown")
    if url <= {OTHER, LOCAL}:
        if HS in key and OTHER in url:
            return Verdict(False, "holysheep-key-elsewhere", True)
        return OK  # not OpenAI: out of scope
    if url <= RELAY_HOSTS:
        if key <= SAFE_KEYS:
            return OK
        return Verdict(False, "key-to-relay" if key & {OPENAI, OTHER} else "key-unknown", True)
    if HS in key and url - RELAY_HOSTS:
        return Verdict(
            False,
            "holysheep-key-to-openai"
            if url <= {OPENAI, RELAY, LOCAL, OTHER}
            else "holysheep-key-unknown-url",
            True,
        )
    if RELAY in url and key - SAFE_KEYS:
        return Verdict(False, "key-to-relay" if key & {OPENAI, OTHER} else "key-unknown", True)
    if url <= {OPENAI, OTHER, LOCAL}:
        return Verdict(False, "still-openai")
    return Verdict(False, "url-unknown")
