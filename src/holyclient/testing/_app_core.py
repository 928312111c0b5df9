"""The local server's shared machinery: state, stats, the request log, auth, faults and writing answers.

Everything here runs on the server's event loop thread. A request that needs no waiting is answered
synchronously (the fast path that keeps the server out of benchmark results); one that must wait
(latency, a delayed fault, a hang, a paced stream) returns a coroutine that the connection runs as a
task.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import deque
from collections.abc import Coroutine, Iterable
from email.utils import formatdate
from typing import Any

from ._config import SECRET_HEADERS, RecordedRequest, ServerConfig
from ._exchange import Exchange, error_body
from ._fault_streams import EVENT_FAULTS, TIMED, faulted_events, play_timed
from ._faults import MAX_HANG_SECONDS, Fault
from ._http import HTTPConnection
from ._json_body import dumps
from ._limits import SlidingWindowLimiter
from ._relay import Relay
from ._scripted_turns import Turn
from ._store import Store
from ._stored_chat import StoredChats

_STREAM_FAULTS = ("malformed", "stream_cut", "stream_error", "delay", *EVENT_FAULTS)
#: Faults whose request gets no answer at all, so a scripted turn it took is given back.
_NO_ANSWER_FAULTS = ("status", "drop", "hang", "stream_error", "malformed", "stream_cut")


class AppCore:
    """The server state and the steps every endpoint shares: stats, log, auth, faults, writing answers.

    :class:`~._app.App` adds the routing on top; :mod:`._endpoints` uses only this class, so neither
    imports the other.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.queue: deque[Fault] = deque()
        #: scripted answers (:mod:`._scripted_turns`), one per chat or Responses request
        self.turns: deque[Turn] = deque(config.script)
        #: one-shot faults by the number of the request they land on (``holyclient serve --fault-at``)
        self._faults_at = dict(config.faults_at)
        self._numbered = 0
        self._rng = random.Random(config.seed)
        self._noise_rng = random.Random(config.seed)
        self._limiter = SlidingWindowLimiter(config.rate_limits) if config.rate_limits else None
        #: the relay profile's catalogue and model families (``None``: any model, answered as OpenAI's)
        self.relay = Relay(config.models) if config.profile == "holysheep" else None
        self._log: deque[RecordedRequest] = deque(maxlen=config.log_limit or None)
        self._prefix = os.urandom(4).hex()
        self._counter = 0
        self._date = ""
        self._date_second = -1
        self.connections: set[HTTPConnection] = set()
        self.more_store = Store()
        self.stored_chats = StoredChats()
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
        self.more_store = Store()
        self.stored_chats = StoredChats()
        self._log.clear()
        self.queue.clear()
        self.turns = deque(self.config.script)
        self._faults_at = dict(self.config.faults_at)
        self._numbered = 0
        if self.relay is not None:
            self.relay = Relay(self.config.models)
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
    def _base_headers(self, ex: Exchange, content_type: str) -> list[tuple[str, str]]:
        now = int(time.time())
        if now != self._date_second:
            self._date_second = now
            self._date = formatdate(now, usegmt=True)
        return [("Content-Type", content_type), ("Date", self._date), ("x-request-id", ex.rid), *ex.extra]

    def _count(self, ex: Exchange, status: int) -> None:
        key = str(status)
        self.by_status[key] = self.by_status.get(key, 0) + 1
        if ex.record is not None:
            ex.record.status = status

    def _send_json(
        self, ex: Exchange, status: int, obj: Any, headers: Iterable[tuple[str, str]] = ()
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
        ex: Exchange,
        status: int,
        message: str,
        type_: str,
        param: str | None = None,
        code: str | None = None,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        self._send_json(ex, status, error_body(message, type_, param, code), headers)

    # -- the request path -------------------------------------------------------------------------

    # -- steps every endpoint takes --------------------------------------------------------------
    def _authorized(self, ex: Exchange) -> bool:
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

    def _record(self, ex: Exchange, body: Any) -> None:
        """Keep ``ex`` in the request log (and for the fault hook), with its secret headers left out."""
        config = self.config
        if config.log_requests or config.hook is not None:
            req = ex.req
            ex.record = RecordedRequest(
                id=ex.rid,
                time=time.time(),
                method=req.method,
                path=req.path,
                query=req.query,
                body=body,
                headers={k: v for k, v in req.headers.items() if k not in SECRET_HEADERS},
            )
            if config.log_requests and config.log_limit:
                self._log.append(ex.record)

    def next_turn(self, ex: Exchange) -> Turn | None:
        """The next scripted answer for ``ex``, or ``None`` when the script is used up."""
        ex.turn = self.turns.popleft() if self.turns else None
        return ex.turn  # type: ignore[no-any-return]

    def _next_fault(self, ex: Exchange) -> Fault | None:
        fault: Fault | None = None
        self._numbered += 1
        if self._faults_at:
            fault = self._faults_at.pop(self._numbered, None)
        if fault is None and self.queue:
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

    def _dispatch(self, ex: Exchange) -> Coroutine[Any, Any, None] | None:
        fault = self._next_fault(ex)
        if fault is not None and ex.turn is not None and fault.kind in _NO_ANSWER_FAULTS:
            self.turns.appendleft(ex.turn)  # the answer was not given: the next request gets it
        if fault is not None and fault.kind == "hang":
            return self._hang(ex, min(fault.seconds, self.config.max_hang, MAX_HANG_SECONDS))
        if fault is not None and fault.kind in TIMED:
            return play_timed(self, ex, fault)
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

    async def _hang(self, ex: Exchange, seconds: float) -> None:
        self.in_flight += 1
        try:
            await asyncio.sleep(seconds)
        finally:
            self.in_flight -= 1
        ex.conn.close()

    async def _act_later(self, ex: Exchange, fault: Fault | None, wait: float, paced: bool) -> None:
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
    def _act(self, ex: Exchange, fault: Fault | None) -> None:
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
            body, headers = self._json_answer(ex)
            self._count(ex, 200)
            if kind in ("malformed", "malformed_event"):
                ex.conn.send(200, headers, body[: len(body) // 2], keep_alive=ex.req.keep_alive)
            elif kind == "stream_cut":
                ex.conn.send_partial(200, headers, body, len(body) // 2)
            else:
                ex.conn.send(200, headers, body, keep_alive=ex.req.keep_alive)

    def _json_answer(self, ex: Exchange) -> tuple[bytes, list[tuple[str, str]]]:
        """A JSON (or raw) answer's body and headers."""
        content_type, body = ex.raw or ("application/json", dumps(self._payload(ex)).encode())
        return body, self._base_headers(ex, content_type)

    def _payload(self, ex: Exchange) -> dict[str, Any]:
        if ex.plan is not None:
            self.prompt_tokens += ex.plan.prompt_tokens
            self.completion_tokens += ex.plan.completion_tokens
            completion = ex.plan.completion("chatcmpl-" + ex.rid[4:], int(time.time()))
            self.stored_chats.keep(ex.body, completion)
            return completion
        assert ex.payload is not None
        usage = ex.payload.get("usage")
        if isinstance(usage, dict):
            self.prompt_tokens += usage.get("prompt_tokens", 0)
        return ex.payload

    def _events(self, ex: Exchange) -> list[bytes]:
        """The stream's events, the last included (``[DONE]`` for chat)."""
        if ex.events is not None:  # another endpoint's stream, complete as it is
            return list(ex.events)
        assert ex.plan is not None
        self.prompt_tokens += ex.plan.prompt_tokens
        self.completion_tokens += ex.plan.completion_tokens
        completion_id, now = "chatcmpl-" + ex.rid[4:], int(time.time())
        if ex.body.get("store") is True:
            self.stored_chats.keep(ex.body, ex.plan.completion(completion_id, now))
        return [*ex.plan.events(completion_id, now, ex.include_usage), b"data: [DONE]\n\n"]

    def _stream_head(self, ex: Exchange) -> list[tuple[str, str]]:
        self.streams += 1
        self._count(ex, 200)
        headers = self._base_headers(ex, "text/event-stream; charset=utf-8")
        headers.append(("Cache-Control", "no-cache"))
        return headers

    def _stream(self, ex: Exchange, fault: Fault | None) -> None:
        events = self._events(ex)
        kind = fault.kind if fault is not None else "ok"
        # a cut or failed stream never reaches its last event ([DONE], response.completed)
        before = min(fault.after_chunks, len(events) - 1) if fault is not None else 0
        if kind == "stream_cut":
            events = events[:before]
        elif kind == "stream_error":
            assert fault is not None
            error = error_body(fault.message, fault.error_type, None, fault.error_code)
            events = [*events[:before], b"data: " + dumps(error).encode() + b"\n\n"]
        elif kind in EVENT_FAULTS:
            assert fault is not None
            events = faulted_events(events, fault)
        elif kind == "malformed":
            events = [
                b'data: {"id": "chatcmpl-' + ex.rid.encode() + b'", "choices": [\n\n',
                b"data: [DONE]\n\n",
            ]
        ex.conn.send_stream(
            200,
            self._stream_head(ex),
            events,
            chunked=ex.req.version == "HTTP/1.1",
            complete=kind != "stream_cut",
            keep_alive=ex.req.keep_alive,
        )

    async def _paced_stream(self, ex: Exchange) -> None:
        events = self._events(ex)
        ex.conn.start_stream(200, self._stream_head(ex), chunked=ex.req.version == "HTTP/1.1")
        for i, event in enumerate(events):
            if i:
                await asyncio.sleep(self.config.chunk_delay)
            ex.conn.send_data(event)
            await ex.conn.drain()
        ex.conn.end_stream(keep_alive=ex.req.keep_alive)
