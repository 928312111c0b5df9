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
import logging
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

import holyclient.resources
from holyclient import APIConnectionError, APIStatusError, BudgetExceededError, Client
from holyclient.pricing import ENDPOINTS, UNDECLARED, Charging, charging_for
from holyclient.pricing._charging import AFTER_SENDING
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
    undeclared = sorted(route for route, op in operations.items() if not op.charging.declared)
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


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "GET", "HEAD"])
def test_a_route_nobody_declared_is_unpriced_and_named_after_the_request(method: str) -> None:
    undeclared = charging_for(method, "/v1/relay/specific?x=1")
    assert not undeclared.declared and undeclared.name == f"{method} /relay/specific"
    assert undeclared == replace(UNDECLARED, name=undeclared.name)
    assert undeclared.holds == "unpriced" and undeclared.billed and undeclared.settles
    assert undeclared.maybe_billed == AFTER_SENDING  # a failure after sending may have been billed


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
    if declared.settles and declared.holds == "unpriced":  # counted, its price unknown, usage or not
        assert requests == 1 and charged.unpriced_models and charged.total_cost_usd == 0.0
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


# --- routes nobody declared, sent through the public client and the local server ---------------------

FINE_TUNE = {"model": "gpt-4.1-mini", "training_file": "file-abc"}
#: Answers the local server gives the undeclared routes (it implements none of them).
CANNED = {
    "POST /v1/fine_tuning/jobs": {"id": "ftjob-1", "object": "fine_tuning.job", "status": "queued"},
    "POST /v1/containers": {"id": "cntr_1", "object": "container", "name": "box"},
    "POST /v1/relay/jobs/job-7/run": {"id": "job-7", "status": "running"},
    "DELETE /v1/vector_stores/vs_1": {"id": "vs_1", "object": "vector_store.deleted", "deleted": True},
    "GET /v1/fine_tuning/jobs": {"object": "list", "data": [], "has_more": False},
}

#: ``(route, call)``: each undeclared route as an application sends it, through holyclient's own escape
#: hatch or an openai client that holyclient hands out.
UNDECLARED_CALLS: dict[str, tuple[str, Call]] = {
    "client.post fine_tuning/jobs": (
        "POST /fine_tuning/jobs",
        lambda c, ids: c.post("/fine_tuning/jobs", body=FINE_TUNE, cast_to=object),
    ),
    "client.post a relay's own route": (
        "POST /relay/jobs/job-7/run",
        lambda c, ids: c.post("/relay/jobs/job-7/run", body={}, cast_to=object),
    ),
    "client.delete": (
        "DELETE /vector_stores/vs_1",
        lambda c, ids: c.delete("/vector_stores/vs_1", cast_to=object),
    ),
    "as_openai() fine_tuning.jobs.create": (
        "POST /fine_tuning/jobs",
        lambda c, ids: c.as_openai().fine_tuning.jobs.create(**FINE_TUNE),
    ),
    "as_openai() containers.create": (
        "POST /containers",
        lambda c, ids: c.as_openai().containers.create(name="box"),
    ),
    "as_http_client() fine_tuning.jobs.create": (
        "POST /fine_tuning/jobs",
        lambda c, ids: _openai_on(c).fine_tuning.jobs.create(**FINE_TUNE),
    ),
}


def _openai_on(client: Client) -> Any:
    import openai

    return openai.OpenAI(
        api_key="unused", base_url=client.base_url, http_client=client.as_http_client(), max_retries=0
    )


@pytest.fixture(scope="module")
def canned_server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY, canned=CANNED) as running:
        yield running


@pytest.mark.parametrize("name", sorted(UNDECLARED_CALLS))
def test_under_a_budget_an_undeclared_route_is_refused_before_sending_with_an_error_naming_it(
    canned_server: LocalServer, name: str
) -> None:
    """Before, these went through any budget unchecked (``fine_tuning.jobs.create`` on a spent one)."""
    pytest.importorskip("openai")
    import openai

    route, call = UNDECLARED_CALLS[name]
    canned_server.reset()
    with Client(api_key=KEY, base_url=canned_server.base_url, budget_usd=100.0, max_retries=0) as client:
        with pytest.raises((BudgetExceededError, openai.APIStatusError)) as refused:
            call(client, {})
        snapshot = client.usage.snapshot()
    assert canned_server.stats["requests"] == 0, "a refused request reached the server"
    assert route in str(refused.value) and "no charging declaration" in str(refused.value)
    if isinstance(refused.value, openai.APIStatusError):  # what an openai client raises: 402, not retried
        assert refused.value.status_code == 402 and refused.value.code == "budget_exceeded"
    assert snapshot.total_cost_usd == 0.0 and snapshot.reserved_usd == 0.0


@pytest.mark.parametrize("name", sorted(UNDECLARED_CALLS))
def test_without_a_budget_an_undeclared_route_is_sent_and_counted_as_unpriced(
    canned_server: LocalServer, name: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("openai")
    route, call = UNDECLARED_CALLS[name]
    canned_server.reset()
    monkeypatch.setattr("holyclient.pricing._ledger._LOGGED", set())  # logged once per route and process
    client = Client(api_key=KEY, base_url=canned_server.base_url, max_retries=0)
    with caplog.at_level(logging.WARNING, logger="holyclient"), client:
        call(client, {})
        snapshot = client.usage.snapshot()
    assert [r.path for r in canned_server.requests] == ["/v1" + route.split(" ", 1)[1]]
    assert list(snapshot.models) == ["<undeclared endpoint>"]  # not under the job's gpt-4.1-mini
    assert snapshot.models["<undeclared endpoint>"].requests == 1
    assert snapshot.unpriced_models == ("<undeclared endpoint>",) and snapshot.total_cost_usd == 0.0
    logged = [r.getMessage() for r in caplog.records if route in r.getMessage()]
    assert len(logged) == 1 and "no charging declaration" in logged[0]


def test_an_undeclared_route_that_drops_after_sending_is_uncertain_and_unpriced(
    canned_server: LocalServer,
) -> None:
    canned_server.reset()
    canned_server.enqueue(Fault.drop())
    with Client(api_key=KEY, base_url=canned_server.base_url, max_retries=0) as client:
        with pytest.raises(APIConnectionError):
            client.post("/fine_tuning/jobs", body=FINE_TUNE, cast_to=object)
        snapshot = client.usage.snapshot()
    assert snapshot.uncertain_requests == 1 and snapshot.unpriced_models == ("<undeclared endpoint>",)


def test_an_undeclared_read_is_refused_under_a_budget_and_counted_as_unpriced_without_one(
    canned_server: LocalServer,
) -> None:
    """A ``GET`` is no exception to the rule: a relay's route may do billed work whatever its method."""
    canned_server.reset()
    with (
        Client(api_key=KEY, base_url=canned_server.base_url, budget_usd=1.0, max_retries=0) as client,
        pytest.raises(BudgetExceededError, match="GET /fine_tuning/jobs"),
    ):
        client.get("/fine_tuning/jobs", cast_to=object)
    assert canned_server.stats["requests"] == 0
    with Client(api_key=KEY, base_url=canned_server.base_url, max_retries=0) as client:
        listed = client.get("/fine_tuning/jobs", cast_to=object)
        snapshot = client.usage.snapshot()
    assert listed["object"] == "list" and snapshot.unpriced_models == ("<undeclared endpoint>",)
