"""Every endpoint the client offers is charged as its one declaration says (``holyclient.pricing.ENDPOINTS``).

The declarations are enumerated twice over: every operation declared in ``holyclient.resources`` has a
declaration, and every declaration names an operation. Then each endpoint is called through the public
client against the local server three ways, and each result is compared with the declaration:

* **holds**: a client whose budget is spent refuses a billed endpoint before sending (the server sees
  nothing) and sends a free one;
* **settles**: the usage an answer reports is charged only where the endpoint settles (a stored chat
  completion retrieved repeats usage billed when it was made: not charged again);
* **maybe billed**: a connection dropped after sending leaves an uncertain request only where the
  endpoint declares that failure "maybe billed".
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import holyclient.resources
from holyclient import APIConnectionError, APIStatusError, BudgetExceededError, Client
from holyclient.pricing import ENDPOINTS, UNDECLARED, Charging, charging_for
from holyclient.resources._operation import Operation
from holyclient.testing import Fault, LocalServer

KEY = "sk-charging-0123456789"
MESSAGES = [{"role": "user", "content": "Say hello"}]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
WAV = b"RIFF" + bytes(40)

Ids = dict[str, str]
Call = Callable[[Client, Ids], Any]

#: One call per endpoint, through the public client (``ids`` holds objects made beforehand).
CALLS: dict[str, Call] = {
    "POST /chat/completions": lambda c, ids: c.chat.completions.create(model="gpt-4.1", messages=MESSAGES),
    "GET /chat/completions": lambda c, ids: c.chat.completions.list(),
    "GET /chat/completions/{completion_id}": lambda c, ids: c.chat.completions.retrieve(ids["completion"]),
    "POST /chat/completions/{completion_id}": lambda c, ids: c.chat.completions.update(
        ids["completion"], metadata={"k": "v"}
    ),
    "DELETE /chat/completions/{completion_id}": lambda c, ids: c.chat.completions.delete(ids["completion"]),
    "GET /chat/completions/{completion_id}/messages": lambda c, ids: c.chat.completions.messages.list(
        ids["completion"]
    ),
    "POST /completions": lambda c, ids: c.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say hi"),
    "POST /embeddings": lambda c, ids: c.embeddings.create(model="text-embedding-3-small", input="hello"),
    "POST /moderations": lambda c, ids: c.moderations.create(input="hello"),
    "POST /responses": lambda c, ids: c.responses.create(model="gpt-4.1", input="Say hello"),
    "GET /responses/{response_id}": lambda c, ids: c.responses.retrieve(ids["response"]),
    "DELETE /responses/{response_id}": lambda c, ids: c.responses.delete(ids["response"]),
    "POST /responses/{response_id}/cancel": lambda c, ids: c.responses.cancel(ids["response"]),
    "GET /responses/{response_id}/input_items": lambda c, ids: c.responses.input_items.list(ids["response"]),
    "POST /responses/input_tokens": lambda c, ids: c.responses.input_tokens.count(
        model="gpt-4.1", input="Say hello"
    ),
    "POST /images/generations": lambda c, ids: c.images.generate(prompt="a sheep", model="gpt-image-1"),
    "POST /images/edits": lambda c, ids: c.images.edit(image=("a.png", PNG), prompt="a hat"),
    "POST /images/variations": lambda c, ids: c.images.create_variation(image=("a.png", PNG)),
    "POST /audio/speech": lambda c, ids: c.audio.speech.create(model="tts-1", input="hi", voice="alloy"),
    "POST /audio/transcriptions": lambda c, ids: c.audio.transcriptions.create(
        model="whisper-1", file=("a.wav", WAV)
    ),
    "POST /audio/translations": lambda c, ids: c.audio.translations.create(
        model="whisper-1", file=("a.wav", WAV)
    ),
    "POST /batches": lambda c, ids: c.batches.create(
        input_file_id=ids["file"], endpoint="/v1/chat/completions", completion_window="24h"
    ),
    "GET /batches": lambda c, ids: c.batches.list(),
    "GET /batches/{batch_id}": lambda c, ids: c.batches.retrieve(ids["batch"]),
    "POST /batches/{batch_id}/cancel": lambda c, ids: c.batches.cancel(ids["batch"]),
    "POST /files": lambda c, ids: c.files.create(file=("in.jsonl", b'{"a": 1}\n'), purpose="batch"),
    "GET /files": lambda c, ids: c.files.list(),
    "GET /files/{file_id}": lambda c, ids: c.files.retrieve(ids["file"]),
    "DELETE /files/{file_id}": lambda c, ids: c.files.delete(ids["file"]),
    "GET /files/{file_id}/content": lambda c, ids: c.files.content(ids["file"]),
    "GET /models": lambda c, ids: c.models.list(),
    "GET /models/{model}": lambda c, ids: c.models.retrieve("gpt-4.1"),
}


def _operations() -> Iterator[Operation[Any]]:
    package = holyclient.resources
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Operation):
                yield value


def test_every_operation_has_a_declaration_and_every_declaration_an_operation() -> None:
    operations = {f"{op.method} {op.path}": op for op in _operations()}
    assert operations, "no operation found"
    undeclared = sorted(route for route, op in operations.items() if op.charging is UNDECLARED)
    assert not undeclared, f"operations without a charging declaration: {undeclared}"
    assert sorted(ENDPOINTS) == sorted(operations), "a declaration names no operation"
    for route, op in operations.items():
        assert op.charging is ENDPOINTS[route]
    assert sorted(CALLS) == sorted(ENDPOINTS), "the behaviour tests below must call every endpoint"


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("POST", "/chat/completions", "POST /chat/completions"),
        ("post", "/v1/chat/completions", "POST /chat/completions"),
        ("GET", "/responses/resp_1?stream=true", "GET /responses/{response_id}"),
        ("POST", "/responses/input_tokens", "POST /responses/input_tokens"),
        ("POST", "/responses/resp_1/cancel", "POST /responses/{response_id}/cancel"),
        ("GET", "/chat/completions/c1/messages", "GET /chat/completions/{completion_id}/messages"),
    ],
)
def test_a_raw_path_finds_its_endpoints_declaration(method: str, path: str, route: str) -> None:
    assert charging_for(method, path) is ENDPOINTS[route]


def test_a_path_nobody_declared_holds_nothing_but_charges_what_its_answer_reports() -> None:
    undeclared = charging_for("POST", "/relay/specific")
    assert undeclared is UNDECLARED
    assert not undeclared.billed and undeclared.settles and not undeclared.maybe_billed


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as running:
        yield running


def _ids(server: LocalServer) -> Ids:
    """Objects the endpoints with an id address, made through a client whose usage is not looked at."""
    with Client(api_key=KEY, base_url=server.base_url) as maker:
        completion = maker.chat.completions.create(model="gpt-4.1", messages=MESSAGES, store=True)
        response = maker.responses.create(model="gpt-4.1", input="Say hello", store=True, background=True)
        file = maker.files.create(file=("in.jsonl", b'{"a": 1}\n'), purpose="batch")
        batch = maker.batches.create(
            input_file_id=file.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
    return {"completion": completion.id, "response": response.id, "file": file.id, "batch": batch.id}


def _declared(route: str) -> Charging:
    return ENDPOINTS[route]


def _seen(server: LocalServer, before: int) -> int:
    return len(server.requests) - before


@pytest.mark.parametrize("route", sorted(ENDPOINTS))
def test_a_spent_budget_refuses_billed_endpoints_before_sending_and_lets_free_ones_through(
    server: LocalServer, route: str
) -> None:
    server.reset()
    ids = _ids(server)
    before = len(server.requests)
    with Client(api_key=KEY, base_url=server.base_url, budget_usd=0.0, max_retries=0) as client:
        if _declared(route).billed:
            with pytest.raises(BudgetExceededError):
                CALLS[route](client, ids)
            assert _seen(server, before) == 0, "a refused request reached the server"
        else:
            CALLS[route](client, ids)
            assert _seen(server, before) == 1


@pytest.mark.parametrize("route", sorted(ENDPOINTS))
def test_an_answers_usage_is_charged_only_where_the_endpoint_settles(server: LocalServer, route: str) -> None:
    server.reset()
    ids = _ids(server)
    with Client(api_key=KEY, base_url=server.base_url, max_retries=0) as client:
        answer = CALLS[route](client, ids)
        reports = getattr(answer, "usage", None) is not None and hasattr(answer.usage, "model_dump")
        charged = client.usage.snapshot()
    requests = sum(m.requests for m in charged.models.values())
    declared = _declared(route)
    if declared.settles and reports and declared.holds == "unpriced":  # counted, its price unknown
        assert requests == 1 and charged.unpriced_models
    elif declared.settles and reports:
        assert requests == 1 and charged.total_cost_usd > 0
    else:
        assert requests == 0 and charged.total_cost_usd == 0.0, f"{route} charged {charged}"


@pytest.mark.parametrize("route", sorted(ENDPOINTS))
def test_a_connection_dropped_after_sending_is_uncertain_only_where_declared_maybe_billed(
    server: LocalServer, route: str
) -> None:
    server.reset()
    ids = _ids(server)
    server.enqueue(Fault.drop())
    with Client(api_key=KEY, base_url=server.base_url, max_retries=0) as client:
        with pytest.raises((APIConnectionError, APIStatusError)):
            CALLS[route](client, ids)
        snapshot = client.usage.snapshot()
    expected = 1 if "dropped" in _declared(route).maybe_billed else 0
    assert snapshot.uncertain_requests == expected
    assert (snapshot.uncertain_usd > 0) == (expected == 1 and _declared(route).holds != "unpriced")
