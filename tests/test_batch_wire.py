"""The batch runner's direct path (its requests sent on the client's aiohttp session, without httpx2)
keeps every guarantee of the client's own path: retries, Retry-After, timeouts, error translation,
no key anywhere in a result -- and sends the same requests."""

from __future__ import annotations

import json
import socket
from typing import Any

import anyio
import pytest

from holyclient import AsyncClient
from holyclient._send._direct import DirectWire
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.testing import Fault, LocalServer
from raw_http import canned_server

KEY = "sk-holy-direct-path-secret-key"


class _ThroughHttpx2(DirectWire):
    """A pipeline wire that sends nothing by itself: every attempt goes through httpx2."""

    def takes(self, prepared: Any) -> Any:
        return None


def _requests(n: int) -> list[BatchRequest]:
    return [
        BatchRequest(f"r{i}", {"model": "text-embedding-3-small", "input": f"text {i}"}, "/v1/embeddings")
        for i in range(n)
    ]


def _run(
    base_url: str, requests: list[BatchRequest], direct: bool = True, **options: Any
) -> tuple[BatchRunner, list[BatchResult], list[float]]:
    results: list[BatchResult] = []
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)
        await anyio.lowlevel.checkpoint()

    async def go() -> BatchRunner:
        async with AsyncClient(api_key=KEY, base_url=base_url) as client:
            runner = BatchRunner(client, sleep=sleep, **options)
            pipeline = client._sender
            assert pipeline._direct.transport(client._http) is not None
            if not direct:
                pipeline._direct = _ThroughHttpx2()
            await runner.run(requests, results.append)
            return runner

    return anyio.run(go), results, delays


def test_the_direct_path_sends_what_the_httpx2_path_sends() -> None:
    with LocalServer() as server:
        _run(server.base_url, _requests(1))
        _run(server.base_url, _requests(1), direct=False)
        direct, through_httpx2 = server.requests
    assert direct.body == through_httpx2.body and direct.path == through_httpx2.path
    assert direct.headers.pop("host") and through_httpx2.headers.pop("host")
    through_httpx2.headers.pop("connection", None)  # httpx2 says keep-alive, aiohttp's default is the same
    assert direct.headers == through_httpx2.headers


def test_the_direct_path_sends_each_header_once_with_the_callers_defaults_over_its_own() -> None:
    """A caller's default ``Accept-Encoding`` / ``Content-Type`` replace the direct path's own, as they
    do on the client's path: each header goes out once (read from the raw request head)."""
    body = json.dumps(
        {
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}],
            "model": "text-embedding-3-small",
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    ).encode()
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    heads: list[bytes] = []
    defaults = {"Accept-Encoding": "identity", "Content-Type": "application/json"}

    async def go(base_url: str) -> list[BatchResult]:
        results: list[BatchResult] = []
        async with AsyncClient(api_key=KEY, base_url=base_url, default_headers=defaults) as client:
            await BatchRunner(client).run(_requests(1), results.append)
        return results

    with canned_server(answer, heads) as base_url:
        [result] = anyio.run(go, base_url)
    assert result.ok
    lines = [line.lower() for line in heads[0].split(b"\r\n")[1:] if line]
    names = [line.split(b":", 1)[0] for line in lines]
    assert names.count(b"accept-encoding") == 1 and names.count(b"content-type") == 1
    assert b"accept-encoding: identity" in lines


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "httpx2"])
def test_retry_after_is_honoured_and_faults_are_retried(direct: bool) -> None:
    with LocalServer() as server:
        server.enqueue(Fault.status(429, retry_after=2.5), Fault.drop(), Fault.malformed(), Fault.status(503))
        runner, results, delays = _run(server.base_url, _requests(1), direct, concurrency=1)
    (result,) = results
    assert result.ok and result.attempts == 5
    assert 2.5 in delays  # Retry-After, not the backoff
    assert runner.stats.rate_limited == 1


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "httpx2"])
def test_a_hang_is_a_timeout_and_errors_carry_no_key(direct: bool) -> None:
    with LocalServer() as server:
        server.enqueue(Fault.hang(5.0), Fault.malformed(), Fault.status(400))
        _, results, _ = _run(server.base_url, _requests(3), direct, concurrency=1, max_retries=0, timeout=0.3)
    lines = {r.custom_id: r.output_line() for r in results}
    assert lines["r0"]["error"]["code"] == "timeout"
    assert lines["r1"]["error"]["code"] == "invalid_response"
    assert lines["r1"]["response"]["status_code"] == 200
    assert lines["r2"]["response"]["status_code"] == 400 and lines["r2"]["error"] is None
    assert KEY not in json.dumps(lines)


def test_an_unreachable_server_is_a_connection_error_without_the_key() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _, results, _ = _run(f"http://127.0.0.1:{port}/v1", _requests(1), max_retries=1)
    (result,) = results
    line = result.output_line()
    assert line["error"]["code"] == "connection_error" and result.attempts == 2
    assert KEY not in json.dumps(line)


def test_a_gzipped_answer_is_decoded_on_the_direct_path() -> None:
    import gzip

    from raw_http import canned_server, http_answer

    body = {"object": "list", "data": [{"index": 0, "embedding": [0.5]}], "usage": {"prompt_tokens": 2}}
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    with canned_server(http_answer("200 OK", headers, gzip.compress(json.dumps(body).encode()))) as url:
        _, results, _ = _run(url, _requests(1))
    (result,) = results
    assert (
        result.ok
        and result.body == body
        and result.usage
        == {
            "prompt_tokens": 2,
            "completion_tokens": 0,
            "total_tokens": 2,
        }
    )


ECHOES = {
    "error-401": ("401 Unauthorized", {"error": {"message": f"Incorrect API key provided: {KEY}"}}),
    "wrong-shape-200": ("200 OK", {"data": "none", "note": f"you sent {KEY}"}),
}


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "httpx2"])
@pytest.mark.parametrize(("status", "answer"), ECHOES.values(), ids=ECHOES.keys())
def test_a_key_the_server_echoes_back_is_blanked_in_the_output_line(
    direct: bool, status: str, answer: dict[str, Any]
) -> None:
    from raw_http import canned_server, http_answer

    canned = http_answer(status, {"Content-Type": "application/json"}, json.dumps(answer).encode())
    with canned_server(canned) as url:
        _, results, _ = _run(url, _requests(1), direct, max_retries=0)
    text = json.dumps(results[0].output_line())
    assert "<redacted>" in text  # the answer is kept, the key in it blanked
    assert KEY not in text


def _embedding_answer() -> bytes:
    from raw_http import http_answer

    body = {"object": "list", "data": [{"index": 0, "embedding": [0.5]}], "usage": {"prompt_tokens": 2}}
    return http_answer("200 OK", {"Content-Type": "application/json"}, json.dumps(body).encode())


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "httpx2"])
@pytest.mark.parametrize("status", ["300 Multiple Choices", "304 Not Modified", "307 Temporary Redirect"])
def test_a_3xx_answer_that_is_not_a_redirect_httpx2_follows_is_sent_once_and_kept(
    direct: bool, status: str
) -> None:
    from raw_http import canned_server, http_answer

    heads: list[bytes] = []
    with canned_server(
        http_answer(status, {"Content-Type": "application/json"}), heads
    ) as url:  # no Location
        _, results, _ = _run(url, _requests(1), direct, max_retries=0)
    (result,) = results
    assert len(heads) == 1  # a POST sent again may be processed (and billed) again
    assert result.status_code == int(status[:3]) and not result.ok


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "httpx2"])
@pytest.mark.parametrize("status", ["307 Temporary Redirect", "308 Permanent Redirect"])
def test_a_redirect_is_followed_as_httpx2_follows_it(direct: bool, status: str) -> None:
    from raw_http import canned_server, http_answer

    moved: list[bytes] = []
    with canned_server(_embedding_answer(), moved) as target:
        answer = http_answer(status, {"Location": f"{target}/embeddings"})
        with canned_server(answer) as url:
            _, results, _ = _run(url, _requests(1), direct, max_retries=0)
    (result,) = results
    assert result.ok and result.body is not None and result.body["data"][0]["embedding"] == [0.5]
    assert len(moved) == 1 and moved[0].startswith(b"POST /v1/embeddings ")


# --- the direct path's caches follow the client's settings as they are now -----------------------


def test_default_headers_edited_in_place_reach_the_direct_path_of_a_later_run() -> None:
    """The direct path caches a request's header list; ``client.default_headers`` edited in place (not
    reassigned) between two runs must still be sent on the second."""
    with LocalServer() as server:

        async def go() -> None:
            async with AsyncClient(api_key=KEY, base_url=server.base_url) as client:
                runner = BatchRunner(client)
                await runner.run(_requests(1), lambda result: None)
                client.default_headers["X-Team"] = "billing"
                await runner.run(_requests(1), lambda result: None)

        anyio.run(go)
        first, second = server.requests
    assert "x-team" not in first.headers and second.headers.get("x-team") == "billing"


def test_default_query_edited_in_place_reaches_the_direct_path_of_a_later_run() -> None:
    """The direct path caches each path's URL; ``client.default_query`` edited in place between two runs
    must reach the second, as it reaches every request of the client's own path."""
    with LocalServer() as server:

        async def go() -> None:
            async with AsyncClient(
                api_key=KEY, base_url=server.base_url, default_query={"team": "a"}
            ) as client:
                runner = BatchRunner(client)
                await runner.run(_requests(1), lambda result: None)
                client.default_query["team"] = "b"
                await runner.run(_requests(1), lambda result: None)

        anyio.run(go)
        first, second = server.requests
    assert (first.query, second.query) == ("team=a", "team=b")


def test_a_base_url_reassigned_between_runs_reaches_the_direct_path() -> None:
    """The URL cache follows ``client.base_url`` too: a later run goes to the new server."""
    with LocalServer() as old, LocalServer() as new:

        async def go() -> None:
            async with AsyncClient(api_key=KEY, base_url=old.base_url) as client:
                runner = BatchRunner(client)
                await runner.run(_requests(1), lambda result: None)
                client.base_url = new.base_url
                await runner.run(_requests(1), lambda result: None)

        anyio.run(go)
        assert (len(old.requests), len(new.requests)) == (1, 1)


def test_a_client_timeout_reassigned_between_runs_reaches_the_direct_path() -> None:
    """The direct path caches the aiohttp timeouts of a setting: a ``client.timeout`` reassigned between
    two runs (a new setting) must be used by the second, not the cached first."""
    with LocalServer() as server:
        server.enqueue(Fault.slow(1.0))

        async def go() -> list[BatchResult]:
            results: list[BatchResult] = []
            async with AsyncClient(api_key=KEY, base_url=server.base_url) as client:
                runner = BatchRunner(client, max_retries=0)
                await runner.run(_requests(1), results.append)  # the default 600 s: waits out the slow answer
                client.timeout = 0.2
                server.enqueue(Fault.slow(1.0))
                await runner.run(_requests(1), results.append)
            return results

        waited, cut = anyio.run(go)
    assert waited.ok
    assert cut.error is not None and cut.error["code"] == "timeout"


def test_timeouts_are_cached_per_setting_and_a_setting_is_kept_while_cached() -> None:
    """The cache keeps each setting it keyed by identity, so that identity cannot be reused for another
    setting while the entry lives (a freed object's ``id`` is reused by the next one made)."""
    import httpx2

    wire = DirectWire()

    def _client(timeout: Any) -> Any:
        return type("C", (), {"timeout": timeout})()

    from holyclient._core import NOT_GIVEN

    for seconds in (1.0, 2.0, 3.0):
        timeouts = wire._timeout(_client(httpx2.Timeout(seconds)), NOT_GIVEN)  # type: ignore[arg-type]
        assert timeouts["read"] == seconds
    assert wire._timeout(_client(None), 7)["read"] == 7  # type: ignore[arg-type]
