"""Sending a comparison: each side's requests through the batch runner, timed.

The one place in ``compare`` that does I/O. Requests go through :class:`~holyclient.batch.BatchRunner`
(bounded concurrency, rate limits, retries that do not hold a slot, the client's budget); the
:class:`Timer` send step only adds a stopwatch around each attempt and replays ``"stream": true``
requests as streams, folding the chunks back into one completion so the runner sees an ordinary answer.

A request's latency is the whole call, as its caller waits for it: from the start of its first attempt
to its final answer, the failed attempts and the waits between them included (an endpoint that needs
retries is slower, not as fast as its last attempt). Its attempts are the runner's count.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._client import AsyncClient
from .._core import RequestOptions, SSEDecoder
from .._send import AsyncSend, Exchange, Prepared, asent, sender_of
from ..batch import BatchRequest, BatchResult, BatchRunner
from ._streams import assemble, chunk_has_output


def fingerprint(body: Mapping[str, Any]) -> str:
    """The key of a request body (the runner copies bodies, so identity cannot link an attempt to it)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@dataclass
class Timing:
    """A request's timing: ``latency`` from its first attempt's start to its final answer, ``ttft``
    from the same start to the final attempt's first token (streams)."""

    latency: float
    ttft: float | None = None


class _Assembled:
    """The response the runner sees for a stream: the assembled completion as one JSON body."""

    def __init__(self, status_code: int, headers: Any, body: Any) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = json.dumps(body).encode()


class Timer:
    """A :class:`~holyclient._steps.SendStep` that times each request, and sends the bodies in
    ``stream_keys`` as streams, folded back into one completion so the runner sees an ordinary answer.

    Timings are keyed by :func:`fingerprint` of the body; the last attempt of a request wins (the one
    whose answer the runner keeps), timed from the request's first attempt: the runner sends every
    attempt of a request with the same options object, which is how an attempt is known to be a retry.
    Two identical requests in one sample share their timing.
    """

    def __init__(self, stream_keys: frozenset[str] = frozenset()) -> None:
        self.timings: dict[str, Timing] = {}
        self.stream_keys = stream_keys
        # id(options) -> (a weak reference to them, when their first attempt started)
        self._firsts: dict[int, tuple[weakref.ref[RequestOptions], float]] = {}

    def _first_start(self, options: RequestOptions, now: float) -> float:
        """When the request of this attempt started: its first attempt's start (``now`` for a first)."""
        key = id(options)
        known = self._firsts.get(key)
        if known is not None and known[0]() is options:
            return known[1]

        def forget(ref: weakref.ref[RequestOptions]) -> None:  # the request is over: its options are gone
            if self._firsts.get(key, (None, 0.0))[0] is ref:
                del self._firsts[key]

        self._firsts[key] = (weakref.ref(options, forget), now)
        return now

    async def __call__(self, prepared: Prepared, send: AsyncSend) -> Exchange:
        options = prepared.options
        body = dict(options.body or {})
        key = fingerprint(body)
        first = self._first_start(options, time.perf_counter())
        if key not in self.stream_keys:
            exchange = await send(prepared)
            self.timings[key] = Timing(time.perf_counter() - first)
            return exchange
        body["stream"] = True
        body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
        streamed = Prepared(
            prepared.pipeline, dataclasses.replace(options, body=body, stream=True), prepared.key
        )
        exchange = await send(streamed)
        response = exchange.response
        if response.status_code >= 400:
            await response.aread()
            self.timings[key] = Timing(time.perf_counter() - first)
            return exchange
        events, ttft = await asent(lambda: _read_events(response, first), lambda: exchange.request)
        self.timings[key] = Timing(time.perf_counter() - first, ttft)
        completion, error = assemble(events)
        if error is not None:
            return Exchange(streamed, _Assembled(502, response.headers, error))
        return Exchange(streamed, _Assembled(response.status_code, response.headers, completion))


async def _read_events(response: Any, started: float) -> tuple[list[bytes], float | None]:
    """A stream's ``data`` payloads and its time to first token since ``started`` (a cut stream raises,
    to be translated)."""
    decoder, events, ttft = SSEDecoder(), [], None
    try:
        async for chunk in response.aiter_bytes():
            new = decoder.feed(chunk)
            if ttft is None and any(_has_output(data) for data in new):
                ttft = time.perf_counter() - started
            events.extend(new)
        events.extend(decoder.flush())
    finally:
        await response.aclose()
    return events, ttft


async def _warm_up(client: AsyncClient) -> None:
    """One free ``GET /models``, untimed: the first request of a run must not carry the connection set-up
    (and the HTTP library's first-use costs), or p95 of a small sample measures those instead."""
    try:
        exchange = await sender_of(client).asend(RequestOptions("GET", "/models", max_retries=0))
        await exchange.response.aclose()
    except Exception:  # an endpoint without /models, or down: the run itself will say so
        return


def _has_output(data: bytes) -> bool:
    try:
        return chunk_has_output(json.loads(data))
    except ValueError:
        return False


@dataclass
class SideRun:
    """One pass over the sample on one endpoint: results and timings by ``custom_id``."""

    results: dict[str, BatchResult] = field(default_factory=dict)
    timings: dict[str, Timing] = field(default_factory=dict)


Recorder = Callable[[BatchResult, "Timing | None", str], None]


async def run_side(
    client: AsyncClient,
    requests: Sequence[BatchRequest],
    streams: set[str],
    *,
    concurrency: int,
    rpm: float | None,
    max_retries: int,
    done: SideRun | None = None,
    record: Recorder | None = None,
) -> SideRun:
    """Send ``requests`` (``custom_id``\\s in ``streams`` as streams) and collect what came back.

    Args:
        done: results of an earlier, interrupted run of this pass: those requests are not sent again.
        record: called with each new result, its timing and its body's fingerprint, as it arrives
            (the resume state is written from here).
    """
    run = SideRun(dict(done.results), dict(done.timings)) if done else SideRun()
    todo = [request for request in requests if request.custom_id not in run.results]
    keys = {request.custom_id: fingerprint(request.body) for request in todo}
    timer = Timer(frozenset(keys[cid] for cid in streams if cid in keys))

    def keep(result: BatchResult) -> None:
        run.results[result.custom_id] = result
        timing = timer.timings.get(keys[result.custom_id])
        if timing is not None:
            run.timings[result.custom_id] = timing
        if record is not None:
            record(result, timing, keys[result.custom_id])

    if todo:
        await _warm_up(client)
        runner = BatchRunner(
            client, concurrency=concurrency, rpm=rpm, max_retries=max_retries, send_steps=[timer]
        )
        await runner.run(todo, keep)
    return run
