"""An answer under a model name the price table does not know is priced by the model that was asked.

A relay may answer under its upstream's id (``anthropic.claude-sonnet-4-5-20250929-v1:0`` for
``claude-sonnet-4.5``). Usage is kept under the model that answered, so before, such a request cost $0
and a budget never refused. Now it is priced as the model asked, flagged in the snapshot
(``ModelUsage.priced_as``, ``warnings``) and the log, with or without a budget, streamed or not.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from holyclient import BudgetExceededError, Client
from holyclient.pricing import cost_from_usage
from holyclient.testing import LocalServer

KEY = "sk-answered-model-0123456789"
ASKED = "claude-sonnet-4.5"
UPSTREAM = "anthropic.claude-sonnet-4-5-20250929-v1:0"
MESSAGES = [{"role": "user", "content": "Name three rivers of Europe."}]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY, answer_as={ASKED: UPSTREAM, "gpt-4.1": "gpt-4.1-upstream-x"}) as running:
        yield running


def _client(server: LocalServer, **options: object) -> Client:
    return Client(api_key=KEY, base_url=server.base_url, max_retries=0, **options)  # type: ignore[arg-type]


def test_the_local_server_answers_under_another_model_name(server: LocalServer) -> None:
    with _client(server) as client:
        chat = client.chat.completions.create(model=ASKED, messages=MESSAGES, max_tokens=20)
        chunks = list(client.chat.completions.create(model=ASKED, messages=MESSAGES, stream=True))
        response = client.responses.create(model="gpt-4.1", input="hi")
        other = client.chat.completions.create(model="gpt-4.1-mini", messages=MESSAGES)
    assert chat.model == UPSTREAM and {c.model for c in chunks} == {UPSTREAM}
    assert response.model == "gpt-4.1-upstream-x"
    assert other.model == "gpt-4.1-mini"  # a model not mapped answers as itself


@pytest.mark.parametrize("budget", [None, 5.0], ids=["no budget", "budget"])
def test_an_answer_under_an_unknown_name_is_priced_as_the_model_asked_and_flagged(
    server: LocalServer, budget: float | None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="holyclient"), _client(server, budget_usd=budget) as client:
        answer = client.chat.completions.create(model=ASKED, messages=MESSAGES, max_tokens=50)
        client.chat.completions.create(model=ASKED, messages=MESSAGES, max_tokens=50)
        snapshot = client.usage.snapshot()
    assert answer.model == UPSTREAM and answer.usage is not None
    cost = cost_from_usage(ASKED, answer.usage).cost_usd
    assert cost > 0
    kept = snapshot.models[UPSTREAM]
    assert kept.requests == 2 and kept.cost_usd == pytest.approx(2 * cost)
    assert snapshot.total_cost_usd == pytest.approx(2 * cost)
    assert kept.priced_as == ASKED and snapshot.as_dict()["models"][UPSTREAM]["priced_as"] == ASKED
    assert UPSTREAM not in snapshot.unpriced_models
    flagged = [w for w in snapshot.warnings if UPSTREAM in w]
    assert len(flagged) == 1 and ASKED in flagged[0]  # once, not per answer
    logged = [r.getMessage() for r in caplog.records if UPSTREAM in r.getMessage()]
    assert len(logged) == 1 and ASKED in logged[0]


@pytest.mark.parametrize("budget", [None, 5.0], ids=["no budget", "budget"])
def test_streams_and_responses_under_an_unknown_name_are_priced_too(
    server: LocalServer, budget: float | None
) -> None:
    with _client(server, budget_usd=budget) as client:
        with client.chat.completions.create(model=ASKED, messages=MESSAGES, stream=True) as stream:
            list(stream)
        response = client.responses.create(model="gpt-4.1", input="Say hello")
        snapshot = client.usage.snapshot()
    assert snapshot.models[UPSTREAM].cost_usd and snapshot.models[UPSTREAM].priced_as == ASKED
    assert response.usage is not None
    assert snapshot.models["gpt-4.1-upstream-x"].cost_usd == pytest.approx(
        cost_from_usage("gpt-4.1", response.usage).cost_usd
    )


def test_a_budget_stops_an_app_whose_answers_come_under_an_unknown_name(server: LocalServer) -> None:
    """Before, every answer cost $0, so the budget never refused: 50 calls went through a $0.01 budget."""
    budget = 0.01
    served = 0
    with _client(server, budget_usd=budget) as client:
        with pytest.raises(BudgetExceededError):
            for _ in range(50):
                client.chat.completions.create(model=ASKED, messages=MESSAGES, max_tokens=200)
                served += 1
        snapshot = client.usage.snapshot()
    assert 0 < served < 50
    assert 0 < snapshot.total_cost_usd <= budget
