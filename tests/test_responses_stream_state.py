"""The Responses stream state machine on its own (sans-IO): events in, helper events out."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from holyclient._responses_stream import ResponseStreamState
from holyclient.testing._responses_fake import response_events, response_object
from holyclient.types.responses import ResponseStreamEvent


def _events(body: dict[str, Any]) -> list[Any]:
    payload = response_object({"model": "gpt-4.1", **body}, "resp_000000000001", 1_700_000_000)
    return [
        ResponseStreamEvent.model_validate_json(raw.split(b"data: ", 1)[1].strip())
        for raw in response_events(payload)
    ]


def test_text_deltas_carry_the_snapshot_and_completed_carries_the_parsed_response() -> None:
    state: ResponseStreamState[Any] = ResponseStreamState()
    out = [e for event in _events({"input": "three little words"}) for e in state.handle_event(event)]
    snapshots = [e.snapshot for e in out if e.type == "response.output_text.delta"]
    assert snapshots[-1] == "Echo: three little words"
    assert all(b.startswith(a) for a, b in itertools.pairwise(snapshots))
    assert state.completed_response is not None
    assert state.completed_response.output_text == "Echo: three little words"


def test_starting_after_accumulates_everything_but_yields_only_later_events() -> None:
    events = _events({"input": "resume"})
    state: ResponseStreamState[Any] = ResponseStreamState(starting_after=3)
    out = [e for event in events for e in state.handle_event(event)]
    assert [e.sequence_number for e in out] == [e.sequence_number for e in events if e.sequence_number > 3]
    assert state.completed_response is not None and state.completed_response.output_text == "Echo: resume"


def test_function_call_arguments_are_decoded_for_strict_tools() -> None:
    tool = {
        "type": "function",
        "name": "lookup",
        "strict": True,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=[tool])
    for event in _events({"input": "lookup this", "tools": [tool]}):
        state.handle_event(event)
    assert state.completed_response is not None
    call = state.completed_response.output[0]
    assert call.parsed_arguments == json.loads(call.arguments) == {"q": "lookup this"}


def test_an_event_before_response_created_is_refused() -> None:
    with pytest.raises(RuntimeError, match=r"response\.created"):
        ResponseStreamState().handle_event(_events({"input": "x"})[2])


def test_a_delta_for_an_unknown_output_item_is_refused() -> None:
    events = _events({"input": "x"})
    state: ResponseStreamState[Any] = ResponseStreamState()
    state.handle_event(events[0])
    delta = next(e for e in events if e.type == "response.output_text.delta")
    with pytest.raises(RuntimeError, match="before receiving its output item"):
        state.handle_event(delta)
