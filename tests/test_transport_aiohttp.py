"""The default async transport (aiohttp under httpx2): the same behaviour as httpx2's own, for real."""

from __future__ import annotations

import asyncio
import gc
import gzip
import json
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
import trustme

from holyclient import APIConnectionError, APITimeoutError, AsyncClient, InternalServerError
from holyclient._exceptions import error_text
from holyclient._http._aiohttp import AiohttpTransport
from holyclient._http._clients import new_async_client
from holyclient._http._pool import ShardedAsyncTransport
from holyclient.testing import Fault, LocalServer

KEY = "sk-aiohttp-test-key"
USER = [{"role": "user", "content": "hello"}]


def test_the_default_async_client_sends_through_aiohttp() -> None:
    assert isinstance(new_async_client(None)._transport, AiohttpTransport)


@pytest.mark.slow
def test_aiohttp_is_imported_by_the_first_request_not_by_the_client() -> None:
    code = "import sys, holyclient; holyclient.AsyncClient(api_key='sk-x'); print('aiohttp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


async def test_chat_embeddings_and_models_round_trip(local_server: LocalServer) -> None:
    async with AsyncClient(api_key=KEY, base_url=local_server.base_url) as client:
        completion = await client.chat.completions.create(
            model="gpt-4.1", messages=USER, extra_headers={"X-Trace": "t-1"}
        )
        embedding = await client.embeddings.create(model="text-embedding-3-small", input="x", dimensions=3)
        models = await client.models.list()

    assert completion.choices[0].message.content == "Echo: hello"
    assert len(embedding.data[0].embedding) == 3
    assert "gpt-4.1" in [m.id for m in models]
    seen = local_server.requests[0]
    assert seen.headers["x-trace"] == "t-1"
    assert seen.headers["content-type"] == "application/json"
    assert seen.body["messages"] == USER


async def test_status_errors_are_retried_and_then_raised(local_server: LocalServer) -> None:
    local_server.enqueue(Fault.status(500), Fault.status(500))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async with AsyncClient(api_key=KEY, base_url=local_server.base_url, max_retries=1, sleep=sleep) as client:
        with pytest.raises(InternalServerError) as caught:
            await client.chat.completions.create(model="gpt-4.1", messages=USER)

    assert caught.value.attempts == 2 and len(sleeps) == 1
    assert KEY not in repr(caught.value.request.headers)


async def test_a_dropped_connection_is_a_connection_error_not_a_timeout(local_server: LocalServer) -> None:
    local_server.enqueue(Fault.drop())
    async with AsyncClient(api_key=KEY, base_url=local_server.base_url, max_retries=0) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.chat.completions.create(model="gpt-4.1", messages=USER)

    assert not isinstance(caught.value, APITimeoutError)
    assert KEY not in str(caught.value) and caught.value.__cause__ is None


async def test_a_hang_longer_than_the_read_timeout_times_out(local_server: LocalServer) -> None:
    local_server.enqueue(Fault.hang(5))
    async with AsyncClient(api_key=KEY, base_url=local_server.base_url, max_retries=0, timeout=0.3) as client:
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            await client.chat.completions.create(model="gpt-4.1", messages=USER)

    assert time.monotonic() - started < 3


async def test_a_refused_connection_is_a_connection_error() -> None:
    async with AsyncClient(api_key=KEY, base_url="http://127.0.0.1:1/v1", max_retries=0) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.models.list()

    assert not isinstance(caught.value, APITimeoutError)
    assert str(caught.value) == "Connection error."  # openai's text; the library's words: a note
    assert "ConnectError" in error_text(caught.value)


async def test_stream_chunks_arrive_as_the_server_sends_them() -> None:
    with LocalServer(chunk_delay=0.15) as local_server:
        async with AsyncClient(api_key=KEY, base_url=local_server.base_url) as client:
            started = time.monotonic()
            stream = await client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "one two three four"}], stream=True
            )
            arrivals = [time.monotonic() - started async for _ in stream]

    assert len(arrivals) >= 4
    assert arrivals[0] < arrivals[-1] - 0.3  # not buffered until the end of the body


async def test_leaving_a_stream_early_does_not_poison_the_next_request() -> None:
    with LocalServer(chunk_delay=0.05) as local_server:
        async with AsyncClient(api_key=KEY, base_url=local_server.base_url) as client:
            async with await client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "a b c d e f g h"}], stream=True
            ) as stream:
                async for _ in stream:
                    break
            again = await client.chat.completions.create(model="gpt-4.1", messages=USER)

    assert again.choices[0].message.content == "Echo: hello"


async def _raw_server(response: bytes) -> tuple[asyncio.Server, str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(response)
        await writer.drain()
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    return listener, f"http://127.0.0.1:{port}"


async def test_compressed_bodies_are_decoded_once_and_cookies_are_left_to_httpx2() -> None:
    body = gzip.compress(json.dumps({"object": "list", "data": []}).encode())
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        f"Set-Cookie: session=abc; Path=/\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    listener, url = await _raw_server(head.encode() + body)
    try:
        async with new_async_client(5.0) as http:
            response = await http.get(url + "/v1/models")
            transport = http._transport
            assert isinstance(transport, AiohttpTransport)
            session = transport._sessions.current()
            assert session is not None
            jar = session.cookie_jar
    finally:
        listener.close()
        await listener.wait_closed()

    assert response.json() == {"object": "list", "data": []}
    assert response.cookies["session"] == "abc"  # httpx2 parsed it...
    assert len(jar) == 0  # ...and aiohttp kept none of its own


async def test_an_invalid_http_answer_is_a_connection_error() -> None:
    listener, url = await _raw_server(b"this is not HTTP\r\n\r\n")
    try:
        async with AsyncClient(api_key=KEY, base_url=url + "/v1", max_retries=0) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.models.list()
    finally:
        listener.close()
        await listener.wait_closed()

    assert "RemoteProtocolError" in error_text(caught.value)


def test_one_client_serves_two_event_loops_in_turn(local_server: LocalServer) -> None:
    client = AsyncClient(api_key=KEY, base_url=local_server.base_url)

    async def ask() -> str | None:
        completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
        return completion.choices[0].message.content

    assert asyncio.run(ask()) == "Echo: hello"
    assert asyncio.run(ask()) == "Echo: hello"  # httpx2 raised 'Event loop is closed' here
    asyncio.run(client.close())
    gc.collect()  # each loop closed its session as it ended: no unclosed socket warns here


def test_under_trio_requests_go_through_the_fallback(local_server: LocalServer) -> None:
    trio = pytest.importorskip("trio")  # in the dev extra; skipped only where it cannot be installed
    made: list[ShardedAsyncTransport] = []

    def fallback() -> ShardedAsyncTransport:
        made.append(ShardedAsyncTransport(max_connections=4, max_keepalive_connections=4))
        return made[-1]

    transport = AiohttpTransport(max_connections=4, fallback=fallback)

    async def main() -> tuple[int, str | None]:
        async with httpx2.AsyncClient(transport=transport) as http:
            response = await http.get(
                local_server.base_url + "/models", headers={"Authorization": f"Bearer {KEY}"}
            )
        local_server.enqueue(Fault.status(503))  # and a retry: its backoff sleeps on trio, not asyncio
        async with AsyncClient(
            api_key=KEY, base_url=local_server.base_url
        ) as client:  # the default transport
            completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
        return response.status_code, completion.choices[0].message.content

    assert trio.run(main) == (200, "Echo: hello")
    assert len(made) == 1 and len(transport._sessions) == 0  # aiohttp was never asked


async def _tls_server(certificate: trustme.LeafCert) -> tuple[asyncio.Server, str]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(context)
    body = b'{"object": "list", "data": []}'

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    return listener, f"https://localhost:{listener.sockets[0].getsockname()[1]}/v1"


async def test_certificates_are_verified_and_ssl_cert_file_is_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = trustme.CA()
    listener, url = await _tls_server(authority.issue_cert("localhost"))
    try:
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
            with pytest.raises(APIConnectionError) as caught:  # a CA nobody trusts
                await client.models.list()
        assert "CERTIFICATE_VERIFY_FAILED" in error_text(caught.value)

        bundle = tmp_path / "ca.pem"
        authority.cert_pem.write_to_path(str(bundle))
        monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
            models = await client.models.list()
    finally:
        listener.close()
        await listener.wait_closed()

    assert models.data == []


async def test_certificates_are_loaded_by_the_first_https_request_only(
    local_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the CAs costs as much CPU as forty loopback requests: a client of a plain-http server
    (``holyclient serve``, a local relay) never loads them; an https request loads them once."""
    made: list[Any] = []
    create = httpx2.create_ssl_context

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return create(*args, **kwargs)

    monkeypatch.setattr(httpx2, "create_ssl_context", counted)
    async with AsyncClient(api_key=KEY, base_url=local_server.base_url) as client:
        await client.models.list()
        await client.chat.completions.create(model="gpt-4.1", messages=USER)
        assert made == []
        transport = client._http._transport
        context = transport.tls("https://example.invalid/v1/models")
        assert transport.tls("https://example.invalid/v1/chat/completions") is context and made == [1]
        assert transport.tls(local_server.base_url + "/models") is True  # aiohttp's default: not TLS


async def test_a_stream_is_retried_before_its_first_byte_only(local_server: LocalServer) -> None:
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    # a 503, then a connection dropped before any byte, then a stream cut after its first chunk
    local_server.enqueue(Fault.status(503), Fault.drop(), Fault.stream_cut(after_chunks=1))
    async with AsyncClient(
        api_key=KEY, base_url=local_server.base_url, max_retries=5, sleep=record
    ) as client:
        assert isinstance(client._http._transport, AiohttpTransport)
        stream = await client.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        received = []
        with pytest.raises(APIConnectionError):
            async for chunk in stream:
                received.append(chunk)
    assert len(received) == 1  # the first chunk reached the caller ...
    assert local_server.stats["requests"] == 3 and len(slept) == 2  # ... so the cut was not retried
    assert local_server.stats["by_fault"] == {"503": 1, "drop": 1, "stream_cut": 1}
