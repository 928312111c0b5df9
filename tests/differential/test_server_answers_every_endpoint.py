"""The guard under the differential suite: every endpoint it uses answers successfully on the local server.

``check()`` requires success, but only for what a test calls; this guard drives every route the local
server offers (a superset of what the differential tests use, streams included) through ``openai`` and
asserts that each answered 2xx with a body that is not an error. If the server breaks an endpoint, this
test names it, instead of the differential tests failing one by one with a less direct message.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import openai

from differential.conftest import KEY
from holyclient.testing import LocalServer
from holyclient.testing._routes import ROUTES

USER = [{"role": "user", "content": "hi"}]
JSONL = b'{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m"}}\n'


def every_route() -> set[tuple[str, str]]:
    """``(method, path pattern)`` for each endpoint the local server offers."""
    routes: set[tuple[str, str]] = set()
    for pattern, methods in ROUTES:
        routes.update((method, pattern.pattern) for method in methods)
    return routes


def route_of(method: str, path: str) -> tuple[str, str]:
    matches = [(m, p) for m, p in every_route() if m == method and re.fullmatch(p, path)]
    assert len(matches) == 1, (method, path, matches)
    return matches[0]


def call_every_endpoint(c: openai.OpenAI) -> None:
    c.chat.completions.create(model="gpt-4.1", messages=USER)
    stored = c.chat.completions.create(model="gpt-4.1", messages=USER, store=True)
    list(c.chat.completions.list())
    c.chat.completions.retrieve(stored.id)
    list(c.chat.completions.messages.list(stored.id))
    c.chat.completions.update(stored.id, metadata={"run": "a"})
    c.chat.completions.delete(stored.id)
    c.responses.input_tokens.count(model="gpt-4o-mini", input="hi")
    list(c.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))
    c.embeddings.create(model="text-embedding-3-small", input="hi")
    list(c.models.list())
    c.models.retrieve("gpt-4.1")
    response = c.responses.create(model="gpt-4o-mini", input="hi", background=True)
    list(c.responses.create(model="gpt-4o-mini", input="stream", stream=True))
    c.responses.retrieve(response.id)
    list(c.responses.input_items.list(response.id))
    c.responses.cancel(response.id)
    c.responses.delete(response.id)
    c.completions.create(model="gpt-3.5-turbo-instruct", prompt="hi", max_tokens=3)
    list(c.completions.create(model="gpt-3.5-turbo-instruct", prompt="hi", stream=True))
    c.moderations.create(input="hello")
    c.images.generate(prompt="a red square", model="gpt-image-1")
    c.images.edit(image=("a.png", b"\x89PNG"), prompt="bluer", model="gpt-image-1")
    c.audio.speech.create(model="tts-1", voice="alloy", input="Hi!").read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # openai deprecates variations, translations
        c.images.create_variation(image=("a.png", b"\x89PNG"), model="dall-e-2")
        c.audio.transcriptions.create(model="whisper-1", file=("a.wav", b"hello"))
        c.audio.translations.create(model="whisper-1", file=("a.mp3", b"bonjour"))
    uploaded = c.files.create(file=("in.jsonl", JSONL), purpose="batch")
    list(c.files.list())
    c.files.retrieve(uploaded.id)
    c.files.content(uploaded.id).read()
    batch = c.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    list(c.batches.list())
    c.batches.retrieve(batch.id)
    c.batches.cancel(batch.id)
    c.files.delete(uploaded.id)


def test_every_endpoint_the_differential_suite_uses_answers_successfully() -> None:
    with LocalServer() as server, openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0) as c:
        call_every_endpoint(c)
        answered: dict[tuple[str, str], list[Any]] = {}
        for request in server.requests:
            answered.setdefault(route_of(request.method, request.path), []).append(request.status)
    failed = {route: statuses for route, statuses in answered.items() if any(s != 200 for s in statuses)}
    assert failed == {}
    assert set(answered) == every_route(), "an endpoint the local server offers is not exercised here"
