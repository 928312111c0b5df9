"""The local server playing other endpoints: features switched off, seeded sampling noise, another model."""

from __future__ import annotations

import pytest

from holyclient import BadRequestError, Client, NotFoundError
from holyclient.testing import LocalServer

MESSAGES = [{"role": "user", "content": "tell me a few words about the weather in Paris today"}]


def _answers(server: LocalServer, count: int = 5) -> list[str]:
    with Client(api_key="sk-test", base_url=server.base_url) as client:
        return [
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES).choices[0].message.content
            or ""
            for _ in range(count)
        ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"disabled_features": {"teleport"}}, "unknown feature"),
        ({"persona": "pirate"}, "persona must be one of"),
        ({"noise": 1.5}, "noise must be between 0 and 1"),
    ],
)
def test_a_bad_variation_setting_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LocalServer(**kwargs)


def test_noise_varies_answers_from_call_to_call_and_the_seed_repeats_them():
    with LocalServer(noise=0.3, seed=7) as first, LocalServer(noise=0.3, seed=7) as again:
        answers, repeated = _answers(first), _answers(again)
    assert len(set(answers)) > 1
    assert answers == repeated
    assert all(a.startswith("Echo:") for a in answers)


def test_the_other_persona_words_answers_and_counts_tokens_differently():
    with (
        LocalServer() as default,
        LocalServer(persona="other") as other,
        Client(api_key="sk-test", base_url=default.base_url) as a,
        Client(api_key="sk-test", base_url=other.base_url) as b,
    ):
        mine = a.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        theirs = b.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    assert mine.choices[0].message.content != theirs.choices[0].message.content
    assert theirs.usage.prompt_tokens > mine.usage.prompt_tokens


def test_switched_off_features_answer_as_a_relay_without_them():
    with (
        LocalServer(disabled_features={"embeddings", "logprobs", "include_usage"}) as server,
        Client(api_key="sk-test", base_url=server.base_url) as client,
    ):
        with pytest.raises(NotFoundError):
            client.embeddings.create(model="text-embedding-3-small", input="hi")
        with pytest.raises(BadRequestError, match="logprobs"):
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, logprobs=True)
        chunks = list(
            client.chat.completions.create(
                model="gpt-4.1", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
            )
        )
    assert chunks and all(chunk.usage is None for chunk in chunks)


def test_logprobs_are_returned_when_asked():
    with LocalServer() as server, Client(api_key="sk-test", base_url=server.base_url) as client:
        reply = client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, logprobs=True)
        plain = client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    tokens = reply.choices[0].logprobs.content
    assert "".join(t.token for t in tokens) == reply.choices[0].message.content
    assert plain.choices[0].logprobs is None
