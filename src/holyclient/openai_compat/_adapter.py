"""The transport's core, sans-IO: an HTTP request that openai (or any httpx user) built, as the holyclient
call that sends it; the call's answer or error as an HTTP response again.

Both HTTP libraries (httpx2 and the legacy httpx) and both kinds of client (sync and async) share it;
the transports in :mod:`._transports` and :mod:`._legacy` only read the body, call the client and
build the response. What a call does -- key, identity, limiter, budget, retries, span, recorder,
settlement -- is the client's own call path (``client.request``), never repeated here.

**One layer of retries.** A transport runs in one of two modes:

- ``"auto"`` (``client.as_http_client()``): a request that carries ``x-stainless-retry-count`` comes from
  an openai client with a retry loop of its own; it is sent once (``max_retries=0``), its attempt number
  kept, and that openai client retries it. Any other request gets the client's retry policy.
- ``"holyclient"`` (``client.as_openai()``, whose openai client has ``max_retries=0``): every request gets
  the client's retry policy, holyclient numbers the attempts, and the final answer tells openai not to
  retry it (``x-should-retry: false``; a connection error is raised as openai's own, which openai never
  retries), so even a framework that turns openai's retries back on cannot multiply them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from .._core import NOT_GIVEN, ForeignRequest, RequestOptions
from .._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    BudgetExceededError,
    HolyClientError,
)
from ._answer_types import answer_type

Retries = Literal["auto", "holyclient"]

__all__ = ["BUDGET_STATUS", "Adapter", "Call", "Retries", "idempotency_key"]

#: The header openai sends on every attempt, numbering it: its sender has a retry loop of its own.
RETRY_COUNT = "x-stainless-retry-count"

#: A budget refusal reaches openai as this status (Payment Required: no SDK or framework retries it),
#: with ``x-should-retry: false`` and the error ``code`` ``"budget_exceeded"``.
BUDGET_STATUS = 402

#: Headers of openai's request that the client's own call sets (its key, ``User-Agent``, framing), or
#: that only describe the connection openai would have opened. Its ``OpenAI-Organization`` /
#: ``OpenAI-Project`` are kept: a per-request one (``extra_headers``) is the caller's choice, as in openai.
_DROPPED = frozenset(
    {
        "authorization",
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "accept",
        "accept-encoding",
        "user-agent",
    }
)
#: Headers of the client's answer that no longer describe the body handed on (it is decoded, re-framed).
_STALE = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})

#: The streams whose events openai reads by their ``event:`` name as well (the Responses API), and those
#: that end with ``[DONE]``.
_NAMED_EVENTS = ("/responses",)
_DONE_STREAMS = frozenset({"/chat/completions", "/completions"})
DONE_FRAME = b"data: [DONE]\n\n"


#: The request this thread or task sent last through a transport, and its key (see :func:`idempotency_key`).
_LAST_REQUEST: ContextVar[tuple[tuple[str, str, int], str] | None] = ContextVar(
    "holyclient_last_request", default=None
)


def idempotency_key(method: str, path: str, content: bytes, retry_count: str | None) -> str:
    """The ``Idempotency-Key`` of a request: the key of the request it repeats when it is a retry, else a
    new one (see the module docstring).

    The request a thread or task sent last is remembered in a context variable: openai retries in the
    thread (or task) that made the call, so a retry finds its first attempt there, and two calls made at
    once in different tasks never share a key. A retry is matched by its method, path and body (its hash)
    as well, so that a request sent in between (a hook's own) breaks the chain instead of lending its key.
    """
    fingerprint = (method, path, hash(content))
    if retry_count is not None and retry_count != "0":
        last = _LAST_REQUEST.get()
        if last is not None and last[0] == fingerprint:
            return last[1]
    key = f"holyclient-retry-{os.urandom(16).hex()}"
    _LAST_REQUEST.set((fingerprint, key))
    return key


@dataclass(frozen=True)
class Call:
    """One request as a call of the client: what to send, what to parse the answer as."""

    options: RequestOptions
    cast_to: type[Any]
    named_events: bool
    ends_with_done: bool


class Adapter:
    """Turns requests into calls of ``client`` and answers into response parts (see the module docstring).

    Args:
        client: the holyclient client (or Router) whose calls send the requests.
        retries: ``"auto"`` or ``"holyclient"`` (see the module docstring).
    """

    def __init__(self, client: Any, retries: Retries = "auto") -> None:
        if retries not in ("auto", "holyclient"):
            raise ValueError(f"retries must be 'auto' or 'holyclient', not {retries!r}")
        from urllib.parse import urlsplit

        self.client = client
        self.retries: Retries = retries
        # the client in raw mode: each call answers with its HTTP response as well as what it parsed
        self.raw = client.with_raw_response
        # the base URL without its trailing slash: what the client's own requests are built from
        self._base_url = str(client.base_url).rstrip("/")
        base = urlsplit(self._base_url)
        self._origin = (base.scheme, (base.hostname or "").lower(), base.port or _default_port(base.scheme))
        self._base_path = base.path.rstrip("/")

    @property
    def owns_retries(self) -> bool:
        return self.retries == "holyclient"

    # --- request -> call ------------------------------------------------------------------------------

    def own_path(self, url: Any) -> str | None:
        """The path of ``url`` below the client's base URL, or None for another host (or a path outside
        the base URL): the client's key goes to its own base URL only."""
        scheme = str(url.scheme)
        origin = (scheme, str(url.host).lower(), url.port or _default_port(scheme))
        path = bytes(url.raw_path).split(b"?", 1)[0].decode("ascii")
        if origin != self._origin or not path.startswith(self._base_path + "/"):
            return None
        return path[len(self._base_path) :]

    def call(self, request: Any, path: str, content: bytes) -> Call:
        """The call that sends ``request`` (its body already read as ``content``)."""
        headers: dict[str, str] = {}
        retry_count = authorization = None
        content_type = ""
        owns_retries = self.retries == "holyclient"
        given = request.headers
        encoding = given.encoding  # (once: ``multi_items()`` asks for it twice per header)
        for raw_name, raw_value in given.raw:
            name, value = raw_name.decode(encoding).lower(), raw_value.decode(encoding)
            if name in _DROPPED:
                if name == "authorization":
                    authorization = value
                continue
            if name == RETRY_COUNT:
                retry_count = value
                if owns_retries:  # holyclient numbers its own attempts
                    continue
            elif name == "content-type":
                content_type = value
            headers[name] = value
        method = request.method.upper()
        if method != "GET" and "idempotency-key" not in headers:
            headers["Idempotency-Key"] = idempotency_key(method, path, content, retry_count)
        body: Any = None
        if content and "json" in content_type:
            body = json.loads(content)
        stream = isinstance(body, dict) and body.get("stream") is True
        if stream:  # the call may add ``stream_options`` to it: the body is sent as the call's JSON
            headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        url = request.url
        body = body if isinstance(body, dict) else None
        sent = None if stream else (content or None)
        options = RequestOptions(
            method,
            path,
            # the parsed body is what the call's steps read (its charge, its limiter admission, the
            # recorder); a body the call does not change is sent as openai encoded it, not encoded again
            body=body,
            query=_query(url.params.multi_items()) if url.query else None,
            content=sent,
            extra_headers=headers or None,
            timeout=_timeout(request.extensions.get("timeout")),
            max_retries=0 if retry_count is not None and not owns_retries else None,
            stream=stream,
            foreign=None if stream else ForeignRequest(request, self._base_url, authorization, body, sent),
        )
        return Call(
            options,
            answer_type(method, path, stream=stream),
            named_events=path.startswith(_NAMED_EVENTS),
            ends_with_done=path in _DONE_STREAMS,
        )

    # --- answer -> response -------------------------------------------------------------------------------

    def headers(self, headers: Any, *, final_error: bool = False) -> list[tuple[str, str]]:
        """The answer's headers as handed on: without those that described its encoding on the wire, and
        with ``x-should-retry: false`` on an error the client already retried (``"holyclient"`` mode)."""
        kept = [(k, v) for k, v in headers.multi_items() if k.lower() not in _STALE]
        if final_error and self.owns_retries:
            kept = [(k, v) for k, v in kept if k.lower() != "x-should-retry"]
            kept.append(("x-should-retry", "false"))
        return kept

    def frame(self, event: Any, call: Call) -> bytes:
        """One streamed event as server-sent-event bytes, its data exactly as the server sent it."""
        kind, data = event.type, bytes(event.sse)
        if call.named_events and isinstance(kind, str):
            return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"
        return b"data: " + data + b"\n\n"

    @staticmethod
    def error_frame(error: APIStatusError) -> bytes:
        """An error the stream met part-way, as the event openai raises it from (the body redacted)."""
        return b"data: " + json.dumps({"error": error.body}).encode() + b"\n\n"

    def failure(self, error: BaseException) -> tuple[int, list[tuple[str, str]], bytes] | None:
        """The response (status, headers, body) a call's error is handed on as, or None when it is not an
        answer (see :meth:`raised`)."""
        if isinstance(error, BudgetExceededError):
            refusal = {
                "error": {
                    "message": f"holyclient budget_usd: {error}",
                    "type": "budget_exceeded",
                    "code": "budget_exceeded",
                    "param": None,
                }
            }
            headers = [("content-type", "application/json"), ("x-should-retry", "false")]
            return BUDGET_STATUS, headers, json.dumps(refusal).encode()
        if isinstance(error, APIStatusError) and error.status_code is not None:
            body = error.body
            content = json.dumps({"error": body}).encode() if isinstance(body, dict) else _text(body)
            headers = self.headers(error.response.headers, final_error=True)
            headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
            kind = "application/json" if isinstance(body, dict) else "text/plain"
            return error.status_code, [*headers, ("content-type", kind)], content
        return None

    def raised(self, error: BaseException, flavor: Any, request: Any) -> BaseException | None:
        """What a call's error that is not an answer (see :meth:`failure`) is raised as, or None to raise
        it as it is (not one of holyclient's errors).

        A connection error or timeout: openai's own in ``"holyclient"`` mode (openai hands it on without
        retrying), else the HTTP library's (the sender may retry it). In ``"holyclient"`` mode every other
        holyclient error becomes openai's too -- an answer that is not what the API promises its
        ``APIResponseValidationError``, another API error its ``APIError``, anything else (a key provider
        that returned no key) its ``OpenAIError`` -- so that ``except openai.OpenAIError`` /
        ``openai.APIError`` around an ``as_openai()`` call catches what it would from openai itself."""
        openai = _openai() if self.owns_retries else None
        if isinstance(error, APIConnectionError):
            message = str(error)
            if openai is not None:
                if isinstance(error, APITimeoutError):
                    return openai.APITimeoutError(request=request)  # type: ignore[no-any-return]
                return openai.APIConnectionError(message=message, request=request)  # type: ignore[no-any-return]
            kind = flavor.ReadTimeout if isinstance(error, APITimeoutError) else flavor.ConnectError
            return kind(message, request=request)  # type: ignore[no-any-return]
        if openai is None or not isinstance(error, HolyClientError):
            return None
        message = str(error)
        if isinstance(error, APIResponseValidationError):
            answer = error.response
            status = answer.status_code if answer is not None else 200
            headers = self.headers(answer.headers) if answer is not None else []
            content = bytes(answer.content) if answer is not None else b""
            response = flavor.Response(status, headers=headers, content=content, request=request)
            return openai.APIResponseValidationError(response, error.body, message=message)  # type: ignore[no-any-return]
        if isinstance(error, APIError):
            return openai.APIError(message, request, body=error.body)  # type: ignore[no-any-return]
        return openai.OpenAIError(message)  # type: ignore[no-any-return]

    def refused(self, flavor: Any, request: Any) -> BaseException:
        """A request for another host: refused, nothing sent (the client's key stays on its own host)."""
        message = (
            f"holyclient sends only to its client's base URL ({self.client.base_url}); a request for "
            f"{request.url.scheme}://{request.url.host} was refused and nothing was sent"
        )
        if self.owns_retries:
            openai = _openai()
            if openai is not None:
                return openai.APIConnectionError(message=message, request=request)  # type: ignore[no-any-return]
        return flavor.UnsupportedProtocol(message, request=request)  # type: ignore[no-any-return]


def _default_port(scheme: str) -> int | None:
    return {"http": 80, "https": 443}.get(scheme)


def _query(items: Iterable[tuple[str, str]]) -> dict[str, Any] | None:
    query: dict[str, Any] = {}
    for key, value in items:
        if key in query:
            known = query[key]
            query[key] = [*known, value] if isinstance(known, list) else [known, value]
        else:
            query[key] = value
    return query or None


def _timeout(extension: Any) -> Any:
    """The request's own timeout (httpx's ``timeout`` extension) for the call, or the client's: as the
    ``(connect, read, write, pool)`` tuple both HTTP libraries take (no ``Timeout`` made per call)."""
    if not isinstance(extension, dict):
        return NOT_GIVEN
    return (extension.get("connect"), extension.get("read"), extension.get("write"), extension.get("pool"))


def _text(body: object) -> bytes:
    return b"" if body is None else str(body).encode()


def _openai() -> Any:
    try:
        import openai
    except ImportError:
        return None
    return openai
