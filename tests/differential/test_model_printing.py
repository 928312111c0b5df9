"""Responses print, repr and dump as openai's do: logs, snapshot tests and caches see the same bytes."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable
from typing import Any

import pydantic

from differential.conftest import Differential

USER = [{"role": "user", "content": "ping pong"}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
_CREATED = re.compile(r"((?:created|expires)(?:_at)?['\"]?[=:] ?)\d+")
#: openai's repeated slash-named moderation categories (``, self-harm/intent=False``); see the test.
_OPENAI_DUPLICATES = re.compile(r", [a-z]+[-/][a-z/_-]*=(?:\[[^\]]*\]|[^,)]*)")
_SERVER_IDS = re.compile(r"\b(?:cmpl|modr|resp|msg|rs|fc)[-_][0-9a-f]{8,}\b")


class Weather(pydantic.BaseModel):
    city: str
    degrees: int


def shown(value: Any) -> dict[str, Any]:
    """Everything a log line, a snapshot or a cache would hold of ``value``, timestamps masked.

    openai's ``ParsedChatCompletion`` dumps emit a pydantic serializer warning (its ``parsed`` field is
    typed by an unsolved type variable); holyclient's do not, and the warning is not part of the output.
    """

    def mask(text: str) -> str:
        return _SERVER_IDS.sub("<id>", _CREATED.sub(r"\g<1>0", text))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {
            "class": type(value).__name__,
            "str": mask(str(value)),
            "repr": mask(repr(value)),
            "model_dump_json": mask(value.model_dump_json()),
            "to_json": mask(value.to_json()),
            "to_dict": mask(repr(value.to_dict())),
            "model_dump": mask(repr(value.model_dump())),
        }
    return out


CALLS: dict[str, Callable[[Any], Any]] = {
    "chat": lambda c: c.chat.completions.create(model="gpt-4.1", messages=USER),
    "chat_tools": lambda c: c.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "call get_weather for Paris"}], tools=[WEATHER]
    ),
    "completion": lambda c: c.completions.create(
        model="gpt-3.5-turbo-instruct", prompt="Say hi", max_tokens=3
    ),
    "embeddings": lambda c: c.embeddings.create(model="text-embedding-3-small", input="hi", dimensions=4),
    "model": lambda c: c.models.retrieve("gpt-4.1"),
    "models": lambda c: c.models.list(),
    "images": lambda c: c.images.generate(prompt="a red square", model="gpt-image-1", size="1024x1024"),
    "responses": lambda c: c.responses.create(model="gpt-4.1", input="say hi"),
    "parsed": lambda c: c.chat.completions.parse(model="gpt-4.1", messages=USER, response_format=Weather),
    "transcription": lambda c: c.audio.transcriptions.create(
        model="gpt-4o-transcribe", file=("a.wav", b"hello")
    ),
    "verbose": lambda c: c.audio.transcriptions.create(
        model="whisper-1", file=("a.wav", b"hello world"), response_format="verbose_json"
    ),
    "file": lambda c: c.files.create(file=("in.jsonl", b'{"a": 1}\n'), purpose="batch"),
    "logprobs": lambda c: c.chat.completions.create(
        model="gpt-4.1", messages=USER, logprobs=True, top_logprobs=1
    ),
}


def test_every_response_type_prints_reprs_and_dumps_like_openai(differential: Differential) -> None:
    differential.check(lambda c: {name: shown(call(c)) for name, call in CALLS.items()})


def test_a_moderation_dumps_like_openai_but_names_each_category_once(differential: Differential) -> None:
    """openai 3.57 repeats each slash-named category as an extra field (``harassment/threatening=False``
    after ``harassment_threatening=False``, twice in ``to_json()``); holyclient names it once (README)."""

    def app(c: Any) -> Any:
        result = c.moderations.create(input="hello", model="omni-moderation-latest")
        first = result.results[0]
        return {
            "to_json": json.loads(_SERVER_IDS.sub("<id>", result.to_json())),
            "classes": [type(v).__name__ for v in (result, first, first.categories, first.category_scores)],
            "applied": type(first.category_applied_input_types).__name__,
            "repr": _OPENAI_DUPLICATES.sub("", _SERVER_IDS.sub("<id>", repr(result))),
        }

    differential.check(app)


def test_stream_chunks_print_and_dump_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.create(model="gpt-4.1", messages=USER, stream=True) as stream:
            chunks = [shown(chunk) for chunk in stream]
        with c.chat.completions.stream(model="gpt-4.1", messages=USER, response_format=Weather) as helper:
            final = helper.get_final_completion()
        return {"chunks": chunks, "final": shown(final)}

    differential.check(app)


async def test_async_responses_print_and_dump_like_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        out = {
            "chat": shown(await c.chat.completions.create(model="gpt-4.1", messages=USER)),
            "models": shown(await c.models.list()),
            "parsed": shown(
                await c.chat.completions.parse(model="gpt-4.1", messages=USER, response_format=Weather)
            ),
        }
        stream = await c.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        out["chunks"] = [shown(chunk) async for chunk in stream]
        return out

    await differential.acheck(app)


def test_chat_stream_helper_events_print_and_dump_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.stream(model="gpt-4.1", messages=USER, response_format=Weather) as stream:
            return [shown(event) for event in stream]

    differential.check(app)


def test_response_stream_events_print_and_dump_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.create(model="gpt-4.1", input="stream this", stream=True) as stream:
            return [shown(event) for event in stream]

    differential.check(app)


def test_cursor_pages_files_and_batches_print_and_dump_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        upload = c.files.create(file=("in.jsonl", b'{"custom_id": "a"}\n'), purpose="batch")
        batch = c.batches.create(
            input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        return {
            "files": shown(c.files.list()),
            "batch": shown(batch),
            "batches": shown(c.batches.list()),
            "deleted": shown(c.files.delete(upload.id)),
        }

    differential.check(app)


def test_a_models_page_iterates_and_pages_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        page = c.models.list()
        return {
            "class": type(page).__name__,
            "iterated": [m.id for m in page],
            "data": [m.id for m in page.data],
            "has_next_page": page.has_next_page(),
            "object": page.object,
        }

    differential.check(app)


async def test_an_async_models_page_iterates_and_pages_like_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        page = await c.models.list()
        return {
            "class": type(page).__name__,
            "iterated": [m.id async for m in c.models.list()],
            "data": [m.id for m in page.data],
            "has_next_page": page.has_next_page(),
        }

    await differential.acheck(app)
