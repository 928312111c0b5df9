"""A server that echoes the request in a successful answer (a debugging relay, a proxy answering 200 with
what it was sent) never gets the key into anything we hand on, keep or write: a parsed result, a raw
response, a batch OUTPUT line."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from holyclient import AsyncClient, Client
from holyclient._core import RequestOptions
from holyclient._send import Exchange, Prepared
from holyclient._send._direct import Answer
from holyclient.batch import BatchRequest, BatchResult, BatchRunner

KEY = "sk-echoed-secret-0123456789"


def _echo(request: httpx2.Request) -> httpx2.Response:
    body: dict[str, Any] = {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}],
        "model": "text-embedding-3-small",
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
        "echo": {"authorization": request.headers["authorization"]},
    }
    return httpx2.Response(200, json=body)


def test_a_parsed_result_and_a_raw_response_never_hold_an_echoed_key() -> None:
    with Client(api_key=KEY, http_client=httpx2.Client(transport=httpx2.MockTransport(_echo))) as client:
        result = client.embeddings.create(model="text-embedding-3-small", input="x")
        raw = client.embeddings.with_raw_response.create(model="text-embedding-3-small", input="x")
    assert KEY not in result.model_dump_json()
    assert KEY not in raw.text
    assert result.data[0].embedding == [0.5]  # the rest of the answer is untouched


async def test_a_batch_output_line_never_holds_an_echoed_key() -> None:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(_echo))
    client = AsyncClient(api_key=KEY, http_client=http)
    results: list[BatchResult] = []
    request = BatchRequest("r1", {"model": "text-embedding-3-small", "input": "x"}, "/v1/embeddings")
    await BatchRunner(client).run([request], results.append)
    line = json.dumps(results[0].output_line())
    assert results[0].ok and KEY not in line
    assert json.loads(line)["response"]["body"]["echo"]["authorization"] == "Bearer <redacted>"


def test_the_fast_path_s_own_answer_is_cleaned_in_place() -> None:
    prepared = Prepared(None, RequestOptions("POST", "/embeddings"), KEY)  # type: ignore[arg-type]
    exchange = Exchange(prepared, Answer(200, {}, b'{"echo": "Bearer ' + KEY.encode() + b'"}'))
    exchange.unechoed()
    assert exchange.response.content == b'{"echo": "Bearer <redacted>"}'


def test_a_short_key_is_never_blanked_out_of_an_answer() -> None:
    prepared = Prepared(None, RequestOptions("POST", "/embeddings"), "sk")  # type: ignore[arg-type]
    exchange = Exchange(prepared, Answer(200, {}, b'{"text": "ask"}'))
    exchange.unechoed()
    assert exchange.response.content == b'{"text": "ask"}'
