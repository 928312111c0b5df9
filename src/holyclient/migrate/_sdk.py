"""``--sdk``: construct holyclient's client instead of openai's, with one edit per import.

``from openai import OpenAI, AsyncOpenAI`` becomes ``from holyclient import OpenAI, AsyncOpenAI``, and with
``import openai`` each ``openai.OpenAI`` (and every other name below) becomes ``holyclient.OpenAI`` after an
added ``import holyclient``. holyclient's client reads ``HOLYSHEEP_API_KEY`` / ``HOLYSHEEP_BASE_URL``
itself, so a client built from a dict (``OpenAI(**kwargs)``) reaches the relay with no other edit. The
exceptions move with the client (an ``except openai.RateLimitError`` would never see holyclient's), and
what holyclient does not offer (``AzureOpenAI``, ``openai.types``, the v0 names) stays with openai: a
mixed import is split in two. A statement with a comment inside is listed for review, never rewritten.

Works on the Python rewriter's state through :class:`SdkState`, as :mod:`._pylegacy` does.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Protocol

from ._edits import indent_of

if TYPE_CHECKING:
    from ._edits import Edit, Lines
    from ._pynames import Names
    from ._pysource import Pos
    from ._report import Finding

#: names that ``openai`` and ``holyclient`` both export at top level and mean the same thing
#: (``tests/migrate/test_migrate_sdk.py`` checks both packages export each one)
SDK_NAMES = frozenset(
    {
        "OpenAI",
        "AsyncOpenAI",
        "Client",
        "AsyncClient",
        "Stream",
        "AsyncStream",
        "NOT_GIVEN",
        "DefaultHttpxClient",
        "DefaultAsyncHttpxClient",
        "DefaultAioHttpClient",
        "pydantic_function_tool",
        "OpenAIError",
        "APIError",
        "APIStatusError",
        "APIConnectionError",
        "APITimeoutError",
        "APIResponseValidationError",
        "BadRequestError",
        "AuthenticationError",
        "PermissionDeniedError",
        "NotFoundError",
        "ConflictError",
        "UnprocessableEntityError",
        "RateLimitError",
        "InternalServerError",
        "LengthFinishReasonError",
        "ContentFilterFinishReasonError",
    }
)

#: what differs from openai for switched code: README, "Switching from openai" (a test ties the two)
DIFFERENCES = (
    "Key and base URL come from HOLYSHEEP_API_KEY / HOLYSHEEP_BASE_URL (default https://api.holysheep.ai/v1); "
    "OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID are never read: pass "
    "organization= / project= explicitly",
    "Plain http:// to a non-loopback host is refused unless allow_insecure_http=True",
    "Unknown keyword arguments raise TypeError; the accepted names come from the OpenAPI spec: "
    "provider-specific fields go in extra_body=",
    "Retries also cover a 200 whose body is not JSON; a 429 insufficient_quota is never retried; a "
    "Retry-After longer than max_retry_after raises at once",
    "Errors read as openai's; an error event inside a stream is raised as the status class it names "
    "(openai: APIError); the HTTP library's own words are notes on the exception",
    "Client(timeout=None) is the default timeout, not none; a number t waits at most min(t, 5) s to connect",
    "Response classes are holyclient's own models: isinstance(x, openai.types...) is false",
    "holyclient.types has openai's module paths for the relayed areas only; imports of openai.types, "
    "AzureOpenAI and the areas HolySheep does not relay stay with openai",
    "with_raw_response / with_streaming_response are typed as Any; with_streaming_response has already "
    "read non-stream bodies when it returns",
    "await client.models.list() on the async client gives one page to plain `for`; `async for` walks all",
    "Streams ask for usage (stream_options include_usage) unless you set stream_options; the extra chunk "
    "is hidden unless you asked for it",
    "The chat stream helper's final message holds only the fields that were streamed",
    "responses.input_tokens.count() falls back to the offline counter when the server lacks the endpoint",
    "http_client=: the Default*Client classes are holyclient's; a client you pass is yours to close",
    "Python 3.11+",
)

#: what openai's client has and holyclient's does not: code using one of these stays on openai's client
#: (``tests/migrate/test_migrate_sdk_runs.py`` ties both lists to the two packages)
UNSUPPORTED_ATTRS = frozenset(
    {
        "admin",
        "containers",
        "content_provenance_checks",
        "conversations",
        "decisions",
        "evals",
        "fine_tuning",
        "live",
        "realtime",
        "safety",
        "skills",
        "uploads",
        "vector_stores",
        "videos",
        "webhooks",
    }
)
UNSUPPORTED_BETA = frozenset({"agents", "assistants", "chatkit", "realtime", "responses", "threads"})
#: the constructor keywords holyclient's client shares with openai's
SHARED_KWARGS = frozenset(
    {
        "api_key",
        "organization",
        "project",
        "base_url",
        "timeout",
        "max_retries",
        "default_headers",
        "default_query",
        "http_client",
    }
)

_FROM = re.compile(r"from\s+(openai)\b")


class SdkState(Protocol):
    """What :func:`switch` reads and extends of the Python rewriter."""

    text: str
    tree: ast.Module
    pos: Pos
    lines: Lines
    nl: str
    names: Names
    attributes: list[ast.Attribute]
    calls: list[ast.Call]
    edits: list[Edit[str]]
    findings: list[Finding]
    keep_openai: bool

    def line(self, offset: int) -> int: ...
    def insert_import(self, statement: str) -> None: ...


def unsupported(self: SdkState) -> str | None:
    """What in the file holyclient's client does not have (a resource, a constructor keyword), if
    anything: such a file stays on openai's client, configured for the relay, so that it still runs."""
    for a in self.attributes:
        if a.attr in UNSUPPORTED_ATTRS and isinstance(a.ctx, ast.Load):
            return f"line {a.lineno} uses .{a.attr}"
        if a.attr in UNSUPPORTED_BETA and isinstance(a.value, ast.Attribute) and a.value.attr == "beta":
            return f"line {a.lineno} uses .beta.{a.attr}"
    for c in self.calls:
        q = self.names.qualname(c.func) or ""
        if q.rpartition(".")[0] == "openai" and q.rpartition(".")[2] in (
            "OpenAI",
            "AsyncOpenAI",
            "Client",
            "AsyncClient",
        ):
            extra = sorted(k.arg for k in c.keywords if k.arg and k.arg not in SHARED_KWARGS)
            if extra:
                return f"line {c.lineno} passes {', '.join(extra)}="
    return None


def _render(aliases: list[ast.alias]) -> str:
    return ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)


def switch(self: SdkState) -> None:
    """Point every openai name holyclient offers at holyclient (unless the file stays on openai's)."""
    if self.keep_openai:
        why = unsupported(self)
        self.findings.append(
            (
                1,
                "sdk",
                "review",
                f"kept on openai's client (configured for the relay): {why}, which holyclient's client does not "
                "have; `Client().as_openai()` gives a genuine openai client that runs through holyclient",
            )
        )
        return
    statements = sorted(set(self.names.import_of.values()), key=lambda n: (n.lineno, n.col_offset))
    for stmt in statements:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "openai" and stmt.level == 0:
            _from_import(self, stmt)
    module = next((local for local, q in self.names.bound.items() if q == "openai"), None)
    if module is not None:
        _module_names(self, module)


def _from_import(self: SdkState, stmt: ast.ImportFrom) -> None:
    moved = [a for a in stmt.names if a.name in SDK_NAMES]
    if not moved:
        return
    start, end = self.pos.node(stmt)
    line = self.line(start)
    names = ", ".join(a.name for a in moved)
    if len(moved) == len(stmt.names):
        m = _FROM.match(self.text, start)
        if m is None:
            return
        self.edits.append((m.start(1), m.end(1), "holyclient"))
        self.findings.append((line, "sdk", "rewrite", f"{names} from holyclient instead of openai"))
        return
    if "#" in self.text[start:end] or "\\" in self.text[start:end]:
        self.findings.append(
            (
                line,
                "sdk",
                "review",
                f"split this import by hand: {names} from holyclient, the rest from openai",
            )
        )
        return
    indent = indent_of(self.text[self.lines.start(line) : start])
    rest = [a for a in stmt.names if a.name not in SDK_NAMES]
    new = f"from holyclient import {_render(moved)}{self.nl}{indent}from openai import {_render(rest)}"
    self.edits.append((start, end, new))
    self.findings.append(
        (line, "sdk", "rewrite", f"{names} from holyclient; {_render(rest)} stay with openai")
    )


def _module_names(self: SdkState, module: str) -> None:
    """``openai.OpenAI`` -> ``holyclient.OpenAI`` (after ``import openai``), adding ``import holyclient``."""
    uses = [
        a
        for a in self.attributes
        if isinstance(a.value, ast.Name)
        and a.value.id == module
        and a.attr in SDK_NAMES
        and isinstance(a.ctx, ast.Load)
    ]
    if not uses:
        return
    local = next((n for n, q in self.names.bound.items() if q == "holyclient"), None)
    if local is None:
        local = "holyclient"
        # at module level, where every use can see it: after the module's own `import openai` (a function
        # may import openai again; its scope is not the others'), else before the first statement
        anchor = next(
            (
                s
                for s in self.tree.body
                if isinstance(s, ast.Import) and any((a.asname or a.name) == module for a in s.names)
            ),
            None,
        )
        if anchor is None:
            self.insert_import("import holyclient")
        else:
            eol = self.lines.end(anchor.end_lineno or anchor.lineno)
            self.edits.append((eol, eol, f"{self.nl}import holyclient"))
    for use in uses:
        start, end = self.pos.node(use)
        self.edits.append((start, end, f"{local}.{use.attr}"))
        self.findings.append(
            (self.line(start), "sdk", "rewrite", f"{module}.{use.attr} -> {local}.{use.attr}")
        )
