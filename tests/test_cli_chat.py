"""``holyclient chat``: one prompt against a real server on 127.0.0.1, the answer on stdout, one-line errors."""

from __future__ import annotations

import io
import json
import sys

import pytest

from holyclient._cli import main
from holyclient.testing import Fault, LocalServer

pytest_plugins = ["holyclient.testing.pytest_plugin"]

KEY = "sk-chat-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    monkeypatch.delenv("HOLYSHEEP_BASE_URL", raising=False)


def _chat(capsys, server: LocalServer, *argv: str) -> tuple[int, str, str]:
    code = main(["chat", *argv, "--base-url", server.base_url, "--max-retries", "0"])
    out, err = capsys.readouterr()
    assert KEY not in out and KEY not in err
    return code, out, err


def test_the_answer_goes_to_stdout_and_nothing_to_stderr(capsys, holyclient_server):
    code, out, err = _chat(capsys, holyclient_server, "ping pong")
    assert (code, out, err) == (0, "Echo: ping pong\n", "")
    [request] = holyclient_server.requests
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["messages"] == [{"role": "user", "content": "ping pong"}]


def test_stream_prints_the_same_answer_as_it_arrives(capsys, holyclient_server):
    code, out, err = _chat(capsys, holyclient_server, "ping pong", "--stream", "--model", "gpt-4.1")
    assert (code, out, err) == (0, "Echo: ping pong\n", "")
    assert holyclient_server.requests[0].body["stream"] is True
    assert holyclient_server.requests[0].body["model"] == "gpt-4.1"


def test_json_prints_the_response_as_one_document(capsys, holyclient_server):
    code, out, _ = _chat(capsys, holyclient_server, "hi", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["choices"][0]["message"]["content"] == "Echo: hi"
    assert doc["usage"]["prompt_tokens"] > 0


def test_json_with_stream_prints_one_chunk_per_line(capsys, holyclient_server):
    code, out, _ = _chat(capsys, holyclient_server, "hi", "--json", "--stream")
    chunks = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(chunks) > 1
    assert (
        "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Echo: hi"
    )


def test_system_max_tokens_and_temperature_are_sent(capsys, holyclient_server):
    code, _, _ = _chat(
        capsys, holyclient_server, "hi", "--system", "be brief", "--max-tokens", "7", "--temperature", "0"
    )
    body = holyclient_server.requests[0].body
    assert code == 0
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert (body["max_tokens"], body["temperature"]) == (7, 0)


def test_a_dash_reads_the_prompt_from_stdin(capsys, monkeypatch, holyclient_server):
    monkeypatch.setattr(sys, "stdin", io.StringIO("from stdin"))
    code, out, _ = _chat(capsys, holyclient_server, "-")
    assert (code, out) == (0, "Echo: from stdin\n")


def test_a_rejected_key_is_one_line_exit_2_naming_the_variable_and_the_flag(capsys, holyclient_server):
    holyclient_server.enqueue(Fault.status(401))
    code, out, err = _chat(capsys, holyclient_server, "hi")
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert "rejected the API key" in err and "HOLYSHEEP_API_KEY" in err and "--api-key" in err


def test_a_server_error_is_one_line_exit_1(capsys, holyclient_server):
    holyclient_server.enqueue(Fault.status(500))
    code, out, err = _chat(capsys, holyclient_server, "hi")
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and err.startswith("holyclient chat: ")


def test_an_unreachable_server_is_one_line_exit_1(capsys, holyclient_server):
    url = holyclient_server.base_url
    holyclient_server.stop()
    code = main(["chat", "hi", "--base-url", url, "--max-retries", "0"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith(f"holyclient chat: cannot reach {url}") and len(err.splitlines()) == 1


def test_no_key_advice_works_on_the_command_line(capsys, monkeypatch):
    monkeypatch.delenv("HOLYSHEEP_API_KEY")
    assert main(["chat", "hi"]) == 2
    err = capsys.readouterr().err
    assert "set HOLYSHEEP_API_KEY or pass --api-key" in err and "api_key=" not in err


def test_api_key_flag_is_used_and_never_printed(capsys, monkeypatch, holyclient_server):
    monkeypatch.delenv("HOLYSHEEP_API_KEY")
    code, out, _ = _chat(capsys, holyclient_server, "hi", "--api-key", KEY)
    assert (code, out) == (0, "Echo: hi\n")


def test_plain_http_to_another_host_names_the_flag(capsys):
    assert main(["chat", "hi", "--base-url", "http://relay.example/v1"]) == 2
    err = capsys.readouterr().err
    assert "--allow-insecure-http" in err and "allow_insecure_http=True" not in err


@pytest.mark.parametrize("fault", [Fault.malformed(), Fault.drop(), Fault.insufficient_quota()], ids=str)
def test_a_broken_answer_is_one_line_exit_1(capsys, holyclient_server, fault):
    holyclient_server.enqueue(fault)
    code, out, err = _chat(capsys, holyclient_server, "hi")
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and err.startswith("holyclient chat: ")


def test_a_stream_cut_part_way_keeps_what_arrived_and_exits_1(capsys, holyclient_server):
    holyclient_server.enqueue(Fault.stream_cut(after_chunks=2))
    code, out, err = _chat(capsys, holyclient_server, "ping pong and more words", "--stream")
    assert code == 1 and out.startswith("Echo:") and out.endswith("\n")
    assert err.splitlines()[-1].startswith("holyclient chat: ")


def test_several_words_without_quotes_are_one_prompt(capsys, holyclient_server):
    code, out, _ = _chat(capsys, holyclient_server, "ping", "pong")
    assert (code, out) == (0, "Echo: ping pong\n")
