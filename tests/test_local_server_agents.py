"""The local server drives an agent: a documented tool policy that ends (a tool call until a tool result
is in the turn, then the final answer or the output tool), JSON mode that follows the prompt's schema,
scripted turns for exact steps, and ``holyclient serve --fault-at`` for exactly one fault."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest

from holyclient.testing import Fault, LocalServer, Turn

KEY = "sk-agents"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
OUTPUT = {
    "type": "function",
    "function": {
        "name": "final_result",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
        },
    },
}
PERSON_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age", "tags"],
}


def _post(server: LocalServer, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def server() -> Any:
    with LocalServer(api_key=KEY) as running:
        yield running


def _chat(server: LocalServer, messages: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    message: dict[str, Any] = _post(
        server, "/chat/completions", {"model": "gpt-4.1", "messages": messages, **body}
    )["choices"][0]
    return message


# -- the tool policy ------------------------------------------------------------------------------
def test_required_calls_a_function_tool_then_the_output_tool_once_a_result_is_in(server: LocalServer) -> None:
    """An agent with a tool and a structured output (pydantic-ai: ``tool_choice="required"``) ends in
    two turns; before, the server called the first tool every turn and the agent looped to its limit."""
    user = [{"role": "user", "content": "the weather in Paris, as a person record"}]
    tools = [WEATHER, OUTPUT]
    first = _chat(server, user, tools=tools, tool_choice="required")
    (call,) = first["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    turn = [
        *user,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
    ]
    second = _chat(server, turn, tools=tools, tool_choice="required")
    (output,) = second["message"]["tool_calls"]
    assert output["function"]["name"] == "final_result"
    assert set(json.loads(output["function"]["arguments"])) == {"name", "age"}


def test_required_without_an_output_tool_calls_the_tool_not_yet_called(server: LocalServer) -> None:
    other = {
        "type": "function",
        "function": {"name": "Person", "parameters": OUTPUT["function"]["parameters"]},
    }
    user = [{"role": "user", "content": "hello"}]
    call = _chat(server, user, tools=[WEATHER, other], tool_choice="required")["message"]["tool_calls"][0]
    assert call["function"]["name"] == "get_weather"
    turn = [
        *user,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
    ]
    again = _chat(server, turn, tools=[WEATHER, other], tool_choice="required")["message"]["tool_calls"][0]
    assert again["function"]["name"] == "Person"


def test_auto_answers_once_a_tool_result_is_in_the_turn_even_when_it_is_not_the_last_message(
    server: LocalServer,
) -> None:
    user = [{"role": "user", "content": "use get_weather for Paris"}]
    call = _chat(server, user, tools=[WEATHER])["message"]["tool_calls"][0]
    turn = [
        *user,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
        {"role": "system", "content": "Answer now."},
    ]
    answer = _chat(server, turn, tools=[WEATHER])
    assert answer["finish_reason"] == "stop" and not answer["message"].get("tool_calls")
    # a new user message starts a new turn: the tool is called again
    again = _chat(server, [*turn, {"role": "assistant", "content": "ok"}, *user], tools=[WEATHER])
    assert again["message"]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_responses_required_calls_the_output_tool_after_a_function_call_output(server: LocalServer) -> None:
    tools = [{"type": "function", **WEATHER["function"]}, {"type": "function", **OUTPUT["function"]}]
    body = {"model": "gpt-4.1", "input": "weather in Paris", "tools": tools, "tool_choice": "required"}
    (first,) = _post(server, "/responses", body)["output"]
    assert first["name"] == "get_weather"
    items = [
        {"role": "user", "content": "weather in Paris"},
        first,
        {"type": "function_call_output", "call_id": first["call_id"], "output": "sunny"},
    ]
    (second,) = _post(server, "/responses", {**body, "input": items})["output"]
    assert second["name"] == "final_result"


# -- JSON mode ------------------------------------------------------------------------------------
def test_json_mode_answers_an_instance_of_the_schema_the_prompt_carries(server: LocalServer) -> None:
    """instructor's JSON mode, LangChain's json_mode, parse()'s fallback: the schema is in the prompt.
    Before, the default profile answered ``{"echo": ...}``."""
    system = {"role": "system", "content": "Reply in json matching this schema: " + json.dumps(PERSON_SCHEMA)}
    answer = _chat(
        server, [system, {"role": "user", "content": "Ada"}], response_format={"type": "json_object"}
    )
    value = json.loads(answer["message"]["content"])
    assert set(value) == {"name", "age", "tags"}
    assert isinstance(value["age"], int) and isinstance(value["tags"], list)


def test_responses_json_mode_follows_the_schema_in_the_instructions(server: LocalServer) -> None:
    body = {
        "model": "gpt-4.1",
        "input": "Ada",
        "instructions": "json, as this schema says: " + json.dumps(PERSON_SCHEMA),
        "text": {"format": {"type": "json_object"}},
    }
    text = _post(server, "/responses", body)["output"][0]["content"][0]["text"]
    assert set(json.loads(text)) == {"name", "age", "tags"}


def test_json_mode_without_a_schema_still_answers_one_json_object(server: LocalServer) -> None:
    answer = _chat(
        server, [{"role": "user", "content": "json please"}], response_format={"type": "json_object"}
    )
    assert json.loads(answer["message"]["content"]) == {"echo": "json please"}


# -- scripted turns -------------------------------------------------------------------------------
def test_scripted_turns_answer_each_request_exactly_then_the_rules_apply_again() -> None:
    script = [Turn.tool_call("get_weather", {"city": "Paris"}), Turn.text("It is sunny in Paris.")]
    with LocalServer(api_key=KEY, script=script) as server:
        user = [{"role": "user", "content": "hello"}]
        first = _chat(server, user, tools=[WEATHER])
        assert first["finish_reason"] == "tool_calls"
        assert json.loads(first["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
        assert _chat(server, user)["message"]["content"] == "It is sunny in Paris."
        assert _chat(server, user)["message"]["content"] == "Echo: hello"  # the script is used up
        server.script(Turn.json({"name": "Ada"}))
        response = _post(server, "/responses", {"model": "gpt-4.1", "input": "hi"})
        assert json.loads(response["output"][0]["content"][0]["text"]) == {"name": "Ada"}


def test_a_scripted_turn_survives_a_fault_on_its_request() -> None:
    """A 429 answers instead of the turn: the retry gets it."""
    with LocalServer(api_key=KEY, script=[Turn.text("exactly this")]) as server:
        server.enqueue(Fault.status(429, retry_after=0))
        with pytest.raises(urllib.error.HTTPError):
            _chat(server, [{"role": "user", "content": "hi"}])
        assert _chat(server, [{"role": "user", "content": "hi"}])["message"]["content"] == "exactly this"


def test_a_scripted_turn_streams_as_asked() -> None:
    with LocalServer(api_key=KEY, script=[Turn.tool_call("get_weather", '{"city": "Rome"}')]) as server:
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(
                {"model": "gpt-4.1", "messages": [{"role": "user", "content": "x"}], "stream": True}
            ).encode(),
            headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            events = [line[6:] for line in answer.read().decode().splitlines() if line.startswith("data: {")]
    pieces = [
        call["function"].get("arguments", "")
        for event in events
        for choice in json.loads(event)["choices"]
        for call in choice["delta"].get("tool_calls") or ()
    ]
    assert json.loads("".join(pieces)) == {"city": "Rome"}


def test_a_turn_is_one_of_three_shapes() -> None:
    with pytest.raises(ValueError):
        Turn.tool_call("")
    with pytest.raises(TypeError):
        Turn.text(b"bytes")  # type: ignore[arg-type]


# -- exactly one fault at a given request ---------------------------------------------------------
def _serve(*flags: str) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "holyclient", "serve", "--api-key", KEY, *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def test_serve_fault_at_injects_exactly_one_fault_at_that_request() -> None:
    """``--fault-at 2=429 --retry-after 0``: the second request gets a 429 asking for no wait, and only it."""
    process, url = _serve("--fault-at", "2=429", "--fault-at", "4=503", "--retry-after", "0")
    try:
        statuses, waits = [], []
        for _ in range(6):
            request = urllib.request.Request(
                url + "/chat/completions",
                data=json.dumps(
                    {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
                ).encode(),
                headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    statuses.append(answer.status)
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
                waits.append(error.headers.get("Retry-After"))
                error.close()
    finally:
        process.terminate()
        process.communicate(timeout=10)
    assert statuses == [200, 429, 200, 503, 200, 200]
    assert waits == ["0", None]
