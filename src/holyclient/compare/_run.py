"""Sending a comparison: each side's requests through the batch runner, timed.

The one place in ``compare`` that does I/O. Requests go through :class:`~holyclient.batch.BatchRunner`
(bounded concurrency, rate limits, retries that do not hold a slot, the client's budget); the
client below only adds a stopwatch around each attempt and replays ``"stream": true`` requests as
streams, folding the chunks back into one completion so the runner sees an ordinary answer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._client._client import AsyncClient
from .._core._request import RequestOptions
from .._core._sse import SSEDecoder
from .._http._transport import translate_error
from ..batch import BatchRequest, BatchResult, BatchRunner
from ._streams import assemble, chunk_has_output


def fingerprint(body: Mapping[str, Any]) -> str:
    """The key of a request body (the runner copies bodies, so identity cannot link an attempt to it)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@dataclass
class Timing:
    latency: float
    ttft: float | None = None


class _Assembled:
    """The response the runner sees for a stream: the assembled completion as one JSON body."""

    def __init__(self, status_code: int, headers: Any, body: Any) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = json.dumps(body).encode()
        self.request: Any = None


class TimedClient(AsyncClient):
    """An ``AsyncClient`` that times each attempt, and sends the bodies in ``stream_keys`` as streams.

    Attempts are keyed by :func:`fingerprint` of the body; the last attempt of a request wins (the one
    whose answer the runner keeps). Two identical requests in one sample share their timing.
    """

    timings: dict[str, Timing]
    stream_keys: frozenset[str]

    async def _send_raw(self, options: RequestOptions) -> tuple[Any, Any]:
        body = dict(options.body or {})
        key = fingerprint(body)
        if key not in self.stream_keys:
            started = time.perf_counter()
            request, response = await super()._send_raw(options)
            self.timings[key] = Timing(time.perf_counter() - started)
            return request, response
        body["stream"] = True
        body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
        streamed = dataclasses.replace(options, body=body, stream=True)
        started = time.perf_counter()
        request, response = await super()._send_raw(streamed)
        if response.status_code >= 400:
            await response.aread()
            self.timings[key] = Timing(time.perf_counter() - started)
            return request, response
        decoder, events, ttft = SSEDecoder(), [], None
        failure: BaseException | None = None
        try:
            async for chunk in response.aiter_bytes():
                new = decoder.feed(chunk)
                if ttft is None and any(_has_output(data) for data in new):
                    ttft = time.perf_counter() - started
                events.extend(new)
            events.extend(decoder.flush())
        except BaseException as exc:  # a stream cut part-way: a connection error the runner retries
            failure = translate_error(exc, request)
            if failure is exc:
                raise
        finally:
            await response.aclose()
        if (
            failure is not None
        ):  # raised outside ``except``: the HTTP library's error (and key) is not chained
            raise failure
        self.timings[key] = Timing(time.perf_counter() - started, ttft)
        completion, error = assemble(events)
        if error is not None:
            return request, _Assembled(502, response.headers, error)
        return request, _Assembled(response.status_code, response.headers, completion)


async def _warm_up(client: AsyncClient) -> None:
    """One free ``GET /models``, untimed: the first request of a run must not carry the connection set-up
    (and the HTTP library's first-use costs), or p95 of a small sample measures those instead."""
    try:
        _, response = await AsyncClient._send_raw(client, RequestOptions("GET", "/models", max_retries=0))
        await response.aclose()
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
    client: TimedClient,
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
    client.timings = {}
    client.stream_keys = frozenset(keys[cid] for cid in streams if cid in keys)

    def keep(result: BatchResult) -> None:
        run.results[result.custom_id] = result
        timing = client.timings.get(keys[result.custom_id])
        if timing is not None:
            run.timings[result.custom_id] = timing
        if record is not None:
            record(result, timing, keys[result.custom_id])

    if todo:
        await _warm_up(client)
        runner = BatchRunner(client, concurrency=concurrency, rpm=rpm, max_retries=max_retries)
        await runner.run(todo, keep)
    return run
