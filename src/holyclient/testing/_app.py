"""The local server's application: routing, auth, rate limits, faults, stats and the request log.

Everything here runs on the server's event loop thread. A request that needs no waiting is answered
synchronously from ``handle`` (the fast path that keeps the server out of benchmark results); one
that must wait (latency, a delayed fault, a hang, a paced stream) returns a coroutine that the
connection runs as a task.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import time
from collections import deque
from collections.abc import Coroutine, Iterable
from email.utils import formatdate
from typing import Any

from . import _handlers as h
from . import _vectors_fake
from ._admin import handle_admin
from ._chat_plan import ChatPlan
from ._config import SECRET_HEADERS, RecordedRequest, ServerConfig
from ._faults import MAX_HANG_SECONDS, Fault
from ._http import HTTPConnection
from ._http_parse import Request
from ._json_body import dumps
from ._limits import SlidingWindowLimiter
from ._routes_more import handle_more, reset_more, stored_chats

_ROUTES: dict[str, tuple[str, str]] = {
    "/v1/chat/completions": ("chat", "POST"),
    "/v1/embeddings": ("embeddings", "POST"),
    "/v1/models": ("models", "GET"),
}
_STREAM_FAULTS = ("malformed", "stream_cut", "stream_error", "delay")


class _Exchange:
    """Per-request state passed between the steps of ``App.handle``."""

    __slots__ = (
        "body",
        "conn",
        "cost",
        "endpoint",
        "extra",
        "include_usage",
        "payload",
        "plan",
        "record",
        "req",
        "rid",
        "stream",
    )

    def __init__(self, req: Request, conn: HTTPConnection, rid: str, endpoint: str) -> None:
        self.req = req
        self.conn = conn
        self.rid = rid
        self.endpoint = endpoint
        self.body: dict[str, Any] = {}
        self.extra: list[tuple[str, str]] = []
        self.record: RecordedRequest | None = None
        self.payload: dict[str, Any] | None = None
        self.plan: ChatPlan | None = None
        self.stream = False
        self.include_usage = False
        self.cost = 0


def _error(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class App:
    """Request handling shared by :class:`LocalServer` and ``holyclient serve``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.queue: deque[Fault] = deque()
        self._rng = random.Random(config.seed)
        self._noise_rng = random.Random(config.seed)
        self._limiter = SlidingWindowLimiter(config.rate_limits) if config.rate_limits else None
        self._log: deque[RecordedRequest] = deque(maxlen=config.log_limit or None)
        self._prefix = os.urandom(4).hex()
        self._counter = 0
        self._date = ""
        self._date_second = -1
        self.connections: set[HTTPConnection] = set()
        self._reset_stats()

    # -- stats and log ----------------------------------------------------------------------------
    def _reset_stats(self) -> None:
        self.requests = 0
        self.by_status: dict[str, int] = {}
        self.by_fault: dict[str, int] = {}
        self.by_endpoint: dict[str, int] = {}
        self.rate_limited = 0
        self.streams = 0
        self.connections_opened = 0
        self.in_flight = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def reset(self) -> None:
        """Forget stats, the request log, queued faults and rate-limit windows."""
        self._reset_stats()
        reset_more(self)
        self._log.clear()
        self.queue.clear()
        if self._limiter is not None:
            self._limiter.reset()

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "by_status": dict(self.by_status),
            "by_fault": dict(self.by_fault),
            "by_endpoint": dict(self.by_endpoint),
            "rate_limited": self.rate_limited,
            "streams": self.streams,
            "connections": self.connections_opened,
            "open_connections": len(self.connections),
            "in_flight": self.in_flight,
            "queued_faults": len(self.queue),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    def request_log(self) -> list[RecordedRequest]:
        return list(self._log)

    def on_open(self, conn: HTTPConnection) -> None:
        self.connections.add(conn)
        self.connections_opened += 1

    def on_close(self, conn: HTTPConnection) -> None:
        self.connections.discard(conn)

    def new_request_id(self) -> str:
        self._counter += 1
        return f"req_{self._prefix}{self._counter:08x}"

    # -- writing ----------------------------------------------------------------------------------
    def _base_headers(self, ex: _Exchange, content_type: str) -> list[tuple[str, str]]:
        now = int(time.time())
        if now != self._date_second:
            self._date_second = now
            self._date = formatdate(now, usegmt=True)
        return [("Content-Type", content_type), ("Date", self._date), ("x-request-id", ex.rid), *ex.extra]

    def _count(self, ex: _Exchange, status: int) -> None:
        key = str(status)
        self.by_status[key] = self.by_status.get(key, 0) + 1
        if ex.record is not None:
            ex.record.status = status

    def _send_json(
        self, ex: _Exchange, status: int, obj: Any, headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        self._count(ex, status)
        ex.conn.send(
            status,
            [*self._base_headers(ex, "application/json"), *headers],
            dumps(obj).encode(),
            keep_alive=ex.req.keep_alive,
        )

    def _send_error(
        self,
        ex: _Exchange,
        status: int,
        message: str,
        type_: str,
        param: str | None = None,
        code: str | None = None,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        self._send_json(ex, status, _error(message, type_, param, code), headers)

    # -- the request path -------------------------------------------------------------------------
    def handle(self, req: Request, conn: HTTPConnection) -> Coroutine[Any, Any, None] | None:
        path = req.path
        if path.startswith("/_holyclient/"):
            handle_admin(self, req, conn)
            return None
        self.requests += 1
        ex = _Exchange(req, conn, self.new_request_id(), "unknown")
        route = _ROUTES.get(path)
        if route is not None and route[0] in self.config.disabled_features:
            route = None  # a switched-off endpoint is one this server does not have
        if route is not None and req.method != route[1] and path == "/v1/chat/completions":
            route = None  # GET lists the stored completions (handle_more)
        model_id = ""
        if route is None and path.startswith("/v1/models/") and len(path) > len("/v1/models/"):
            route = ("model", "GET")
            model_id = path[len("/v1/models/") :]
        if route is None:
            answered = handle_more(self, ex)  # responses, audio, files, batches ...
            if answered is not False:
                return answered
            self._send_error(
                ex,
                404,
                f"Unknown request URL: {req.method} {path}. Please check the URL for typos.",
                "invalid_request_error",
                code="unknown_url",
            )
            return None
        ex.endpoint, method = route
        self.by_endpoint[ex.endpoint] = self.by_endpoint.get(ex.endpoint, 0) + 1
        if req.method != method:
            self._send_error(
                ex,
                405,
                f"Method {req.method} not allowed for {path}; use {method}.",
                "invalid_request_error",
                headers=[("Allow", method)],
            )
            return None
        parsed: Any = None
        invalid_json = False
        if method == "POST":
            try:
                parsed = json.loads(req.body)
            except ValueError:
                invalid_json = True
        config = self.config
        if config.log_requests or config.hook is not None:
            ex.record = RecordedRequest(
                id=ex.rid,
                time=time.time(),
                method=req.method,
                path=path,
                query=req.query,
                body=parsed,
                headers={k: v for k, v in req.headers.items() if k not in SECRET_HEADERS},
            )
            if config.log_requests and config.log_limit:
                self._log.append(ex.record)
        if config.require_key and not self._authorized(ex):
            return None
        if method == "POST":
            if invalid_json or not isinstance(parsed, dict):
                self._send_error(
                    ex,
                    400,
                    "We could not parse the JSON body of your request. The body must be a JSON object.",
                    "invalid_request_error",
                )
                return None
            ex.body = parsed
            try:
                self._prepare(ex)
            except h.InvalidRequest as exc:
                self._send_error(ex, 400, exc.message, "invalid_request_error", exc.param, exc.code)
                return None
            if self._limiter is not None and not self._admit(ex):
                return None
        elif ex.endpoint == "model":
            if model_id not in config.models:
                self._send_error(
                    ex,
                    404,
                    f"The model '{model_id}' does not exist",
                    "invalid_request_error",
                    "model",
                    "model_not_found",
                )
                return None
            ex.payload = h.model_object(model_id)
        else:
            ex.payload = h.models_list(config.models)
        return self._dispatch(ex)

    def _authorized(self, ex: _Exchange) -> bool:
        auth = ex.req.headers.get("authorization", "")
        scheme, _, key = auth.partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not key:
            self._send_error(
                ex,
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                "invalid_request_error",
            )
            return False
        if self.config.api_key is not None and key != self.config.api_key:
            self._send_error(
                ex, 401, "Incorrect API key provided.", "invalid_request_error", code="invalid_api_key"
            )
            return False
        return True

    def _prepare(self, ex: _Exchange) -> None:
        body = ex.body
        config = self.config
        if ex.endpoint == "chat":
            h.validate_chat(body, config.disabled_features)
            ex.plan = ChatPlan(
                body,
                ex.rid,
                persona=config.persona,
                rng=self._noise_rng,
                noise=config.noise,
                billing=config.billing,
            )
            ex.stream = body.get("stream") is True
            options = body.get("stream_options")
            ex.include_usage = (
                ex.stream
                and isinstance(options, dict)
                and options.get("include_usage") is True
                and "include_usage" not in config.disabled_features
            )
            ex.cost = h.chat_cost(body) if self._limiter is not None else 0
        else:
            ex.payload = _vectors_fake.embeddings(body)
            ex.cost = _vectors_fake.embeddings_cost(body) if self._limiter is not None else 0

    def _admit(self, ex: _Exchange) -> bool:
        assert self._limiter is not None
        verdict = self._limiter.check(asyncio.get_running_loop().time(), ex.cost, str(ex.body.get("model")))
        ex.extra = verdict.headers
        if verdict.allowed:
            return True
        self.rate_limited += 1
        if verdict.retry_after > 0:
            headers = [
                ("Retry-After", str(math.ceil(verdict.retry_after))),
                ("retry-after-ms", str(math.ceil(verdict.retry_after * 1000))),
            ]
        else:  # larger than the whole limit: waiting cannot help
            headers = [("x-should-retry", "false")]
        self._send_error(
            ex, 429, verdict.message, verdict.error_type, code="rate_limit_exceeded", headers=headers
        )
        return False

    def _next_fault(self, ex: _Exchange) -> Fault | None:
        fault: Fault | None = None
        if self.queue:
            try:
                fault = self.queue.popleft()
            except IndexError:  # pragma: no cover - emptied by another thread in between
                fault = None
        if fault is None and self.config.hook is not None and ex.record is not None:
            fault = self.config.hook(ex.record)
        if fault is None and self.config.faults is not None:
            fault = self.config.faults.next()
        if fault is not None:
            self.by_fault[fault.name] = self.by_fault.get(fault.name, 0) + 1
            if ex.record is not None:
                ex.record.fault = fault.name
        return fault

    def _latency(self) -> float:
        config = self.config
        if config.jitter > 0:
            return config.latency + self._rng.uniform(0.0, config.jitter)
        return config.latency

    def _dispatch(self, ex: _Exchange) -> Coroutine[Any, Any, None] | None:
        fault = self._next_fault(ex)
        if fault is not None and fault.kind == "hang":
            return self._hang(ex, min(fault.seconds, self.config.max_hang, MAX_HANG_SECONDS))
        wait = 0.0
        if fault is None or fault.kind in _STREAM_FAULTS:
            wait = self._latency()
        if fault is not None:
            wait += fault.delay + (fault.seconds if fault.kind == "delay" else 0.0)
        paced = ex.stream and self.config.chunk_delay > 0 and (fault is None or fault.kind == "delay")
        if wait <= 0 and not paced:
            self._act(ex, fault)
            return None
        return self._act_later(ex, fault, wait, paced)

    async def _hang(self, ex: _Exchange, seconds: float) -> None:
        self.in_flight += 1
        try:
            await asyncio.sleep(seconds)
        finally:
            self.in_flight -= 1
        ex.conn.close()

    async def _act_later(self, ex: _Exchange, fault: Fault | None, wait: float, paced: bool) -> None:
        self.in_flight += 1
        try:
            if wait > 0:
                await asyncio.sleep(wait)
            if paced:
                await self._paced_stream(ex)
            else:
                self._act(ex, fault)
        finally:
            self.in_flight -= 1

    # -- acting out answers and faults ------------------------------------------------------------
    def _act(self, ex: _Exchange, fault: Fault | None) -> None:
        kind = fault.kind if fault is not None else "ok"
        if fault is not None and (kind == "status" or (kind == "stream_error" and not ex.stream)):
            self._send_error(
                ex, fault.status_code, fault.message, fault.error_type, None, fault.error_code, fault.headers
            )
        elif kind == "drop":
            ex.conn.close()
        elif ex.stream:
            self._stream(ex, fault)
        else:
            body = dumps(self._payload(ex)).encode()
            if kind == "malformed":
                self._count(ex, 200)
                ex.conn.send(
                    200,
                    self._base_headers(ex, "application/json"),
                    body[: len(body) // 2],
                    keep_alive=ex.req.keep_alive,
                )
            elif kind == "stream_cut":
                self._count(ex, 200)
                ex.conn.send_partial(200, self._base_headers(ex, "application/json"), body, len(body) // 2)
            else:
                self._count(ex, 200)
                ex.conn.send(
                    200, self._base_headers(ex, "application/json"), body, keep_alive=ex.req.keep_alive
                )

    def _payload(self, ex: _Exchange) -> dict[str, Any]:
        if ex.plan is not None:
            self.prompt_tokens += ex.plan.prompt_tokens
            self.completion_tokens += ex.plan.completion_tokens
            completion = ex.plan.completion("chatcmpl-" + ex.rid[4:], int(time.time()))
            stored_chats(self).keep(ex.body, completion)
            return completion
        assert ex.payload is not None
        usage = ex.payload.get("usage")
        if isinstance(usage, dict):
            self.prompt_tokens += usage.get("prompt_tokens", 0)
        return ex.payload

    def _events(self, ex: _Exchange) -> list[bytes]:
        assert ex.plan is not None
        self.prompt_tokens += ex.plan.prompt_tokens
        self.completion_tokens += ex.plan.completion_tokens
        completion_id, now = "chatcmpl-" + ex.rid[4:], int(time.time())
        if ex.body.get("store") is True:
            stored_chats(self).keep(ex.body, ex.plan.completion(completion_id, now))
        return ex.plan.events(completion_id, now, ex.include_usage)

    def _stream_head(self, ex: _Exchange) -> list[tuple[str, str]]:
        self.streams += 1
        self._count(ex, 200)
        headers = self._base_headers(ex, "text/event-stream; charset=utf-8")
        headers.append(("Cache-Control", "no-cache"))
        return headers

    def _stream(self, ex: _Exchange, fault: Fault | None) -> None:
        events = self._events(ex)
        kind = fault.kind if fault is not None else "ok"
        if kind == "stream_cut":
            assert fault is not None
            events = events[: fault.after_chunks]
        elif kind == "stream_error":
            assert fault is not None
            error = _error(fault.message, fault.error_type, None, fault.error_code)
            events = [*events[: fault.after_chunks], b"data: " + dumps(error).encode() + b"\n\n"]
        elif kind == "malformed":
            events = [
                b'data: {"id": "chatcmpl-' + ex.rid.encode() + b'", "choices": [\n\n',
                b"data: [DONE]\n\n",
            ]
        else:
            events.append(b"data: [DONE]\n\n")
        ex.conn.send_stream(
            200,
            self._stream_head(ex),
            events,
            chunked=ex.req.version == "HTTP/1.1",
            complete=kind != "stream_cut",
            keep_alive=ex.req.keep_alive,
        )

    async def _paced_stream(self, ex: _Exchange) -> None:
        events = self._events(ex)
        events.append(b"data: [DONE]\n\n")
        ex.conn.start_stream(200, self._stream_head(ex), chunked=ex.req.version == "HTTP/1.1")
        for i, event in enumerate(events):
            if i:
                await asyncio.sleep(self.config.chunk_delay)
            ex.conn.send_data(event)
            await ex.conn.drain()
        ex.conn.end_stream(keep_alive=ex.req.keep_alive)
