"""``with_raw_response`` and ``with_streaming_response`` behave as openai's, sync and async."""

from __future__ import annotations

import json
from typing import Any

from differential.conftest import Differential
from holyclient.testing import Fault

USER = [{"role": "user", "content": "ping pong"}]
#: Raw lines show what the server sent; these tests ask for the usage chunk on both sides, the tests at
#: the end prove that holyclient adds nothing to a raw stream when the caller does not.
USAGE = {"include_usage": True}


def raw_chat(c: Any) -> Any:
    raw = c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER)
    completion = raw.parse()
    return {
        "status": raw.status_code,
        "content_type": raw.headers["content-type"],
        "request_id_matches": raw.headers["x-request-id"] == completion._request_id,
        "has_http_response": raw.http_response.status_code == 200,
        "completion": completion,
    }


def test_with_raw_response_gives_headers_status_and_the_parsed_object(differential: Differential) -> None:
    differential.check(raw_chat)


def test_with_raw_response_on_a_stream_parses_to_the_stream(differential: Differential) -> None:
    def app(c: Any) -> Any:
        raw = c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        return {"status": raw.status_code, "chunks": list(raw.parse())}

    differential.check(app)


def test_with_raw_response_on_models_list_parses_to_an_iterable_page(differential: Differential) -> None:
    def app(c: Any) -> Any:
        raw = c.with_raw_response.models.list()
        return {"status": raw.status_code, "ids": [m.id for m in raw.parse()]}

    differential.check(app)


def test_with_streaming_response_reads_lines_and_parses(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.with_streaming_response.chat.completions.create(
            model="gpt-4.1", messages=USER, stream=True, stream_options=USAGE
        ) as response:
            lines = [line for line in response.iter_lines() if line]
        with c.with_streaming_response.models.retrieve("gpt-4.1") as response:
            model = response.parse()
            status = response.status_code
        return {
            "events": [json.loads(x[6:]) if x != "data: [DONE]" else x for x in lines],
            "model": model,
            "status": status,
        }

    differential.check(app)


async def test_async_raw_and_streaming_responses_match_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        raw = await c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER)
        async with c.with_streaming_response.chat.completions.create(model="gpt-4.1", messages=USER) as resp:
            parsed = await resp.parse()
        async with c.with_streaming_response.chat.completions.create(
            model="gpt-4.1", messages=USER, stream=True, stream_options=USAGE
        ) as resp:
            lines = [line async for line in resp.iter_lines() if line]
        return {"raw": raw.parse(), "status": raw.status_code, "parsed": parsed, "lines": len(lines)}

    await differential.acheck(app)


def test_resource_level_raw_and_streaming_responses_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        raw = c.chat.completions.with_raw_response.create(model="gpt-4.1", messages=USER)
        with c.models.with_streaming_response.retrieve("gpt-4.1") as response:
            model = response.parse()
        chat_raw = c.chat.with_raw_response.completions.create(model="gpt-4.1", messages=USER)
        return {"raw": raw.parse(), "status": raw.status_code, "model": model, "chat": chat_raw.parse()}

    differential.check(app)


async def test_async_resource_level_raw_and_streaming_responses_match_openai(
    differential: Differential,
) -> None:
    async def app(c: Any) -> Any:
        raw = await c.chat.completions.with_raw_response.create(model="gpt-4.1", messages=USER)
        async with c.chat.completions.with_streaming_response.create(
            model="gpt-4.1", messages=USER, stream=True, stream_options=USAGE
        ) as response:
            lines = [line async for line in response.iter_lines() if line]
        async with c.models.with_streaming_response.retrieve("gpt-4.1") as response:
            model = await response.parse()
        return {"raw": raw.parse(), "lines": len(lines), "model": model}

    await differential.acheck(app)


def _events(lines: list[str]) -> list[Any]:
    """The raw lines as data (``created`` timestamps are then left out of the comparison)."""
    return [json.loads(x[6:]) if x != "data: [DONE]" else x for x in lines]


def _first_choices(lines: list[str]) -> list[Any]:
    """What common app code does with each raw line: ``chunk["choices"][0]`` (IndexError on an empty list)."""
    return [json.loads(x[6:])["choices"][0]["delta"] for x in lines if x.startswith("data: {")]


def test_raw_stream_lines_carry_no_usage_chunk_the_caller_did_not_ask_for(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.with_streaming_response.create(
            model="gpt-4.1", messages=USER, stream=True
        ) as response:
            lines = [line for line in response.iter_lines() if line]
        return {"deltas": _first_choices(lines), "events": _events(lines)}

    _theirs, ours = differential.check(app)
    assert "stream_options" not in ours.requests[0]["body"]  # the bytes are the caller's: nothing added


async def test_async_raw_stream_lines_carry_no_usage_chunk(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        async with c.with_streaming_response.chat.completions.create(
            model="gpt-4.1", messages=USER, stream=True
        ) as response:
            lines = [line async for line in response.iter_lines() if line]
        return {"deltas": _first_choices(lines), "events": _events(lines)}

    _theirs, ours = await differential.acheck(app)
    assert "stream_options" not in ours.requests[0]["body"]


def test_raw_legacy_completion_stream_carries_no_usage_chunk(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.completions.with_streaming_response.create(
            model="gpt-3.5-turbo-instruct", prompt="count", stream=True
        ) as response:
            lines = [line for line in response.iter_lines() if line]
        return {"texts": [json.loads(x[6:])["choices"][0]["text"] for x in lines if x.startswith("data: {")]}

    _theirs, ours = differential.check(app)
    assert "stream_options" not in ours.requests[0]["body"]


def test_raw_responses_say_how_many_retries_were_taken_like_openai(differential: Differential) -> None:
    server = differential.server

    def script(c: Any) -> None:
        print(c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER).retries_taken)
        server.enqueue(Fault.status(503, retry_after=0), Fault.status(429, retry_after=0))
        raw = c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER)
        print(raw.retries_taken, raw.status_code)
        server.enqueue(Fault.status(500, retry_after=0))
        with c.with_streaming_response.chat.completions.create(
            model="gpt-4.1", messages=USER, stream=True, stream_options=USAGE
        ) as response:
            print(response.retries_taken)

    theirs, _ours = differential.check_script(script, max_retries=2)
    assert theirs.result == "0\n2 200\n1\n"


async def test_async_raw_responses_say_how_many_retries_were_taken_like_openai(
    differential: Differential,
) -> None:
    server = differential.server

    async def script(c: Any) -> None:
        server.enqueue(Fault.status(502, retry_after=0))
        raw = await c.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER)
        print(raw.retries_taken)
        async with c.with_streaming_response.models.retrieve("gpt-4.1") as response:
            print(response.retries_taken)

    theirs, _ours = await differential.acheck_script(script, max_retries=1)
    assert theirs.result == "1\n0\n"
