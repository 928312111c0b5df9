"""Edges of the sans-IO core (`_base`) that mutation testing showed no other test pinned down.

Plain values in, plain values out: request bodies as JSON, headers, redaction, error messages,
the status an in-stream error event stands for, and the SSE decoder's end of stream.
"""

from __future__ import annotations

import datetime
import enum
import json

import httpx2
import pytest
from pydantic import BaseModel, Field

from holyclient import APIResponseValidationError, APIStatusError, InternalServerError, RateLimitError
from holyclient._core._parse import (
    error_message,
    error_notes,
    make_status_error,
    parse_error_body,
    parse_model,
)
from holyclient._core._redact import REDACTED, redacted_text, without_secret_headers
from holyclient._core._request import NOT_GIVEN, build_headers, to_jsonable
from holyclient._core._sse import SSEDecoder, stream_error

KEY = "sk-holy-0123456789abcdef"


class Color(enum.StrEnum):
    RED = "red"


class Item(BaseModel):
    name: str
    alias_field: int = Field(default=0, alias="aliasField")
    note: str | None = None


def authed_request() -> httpx2.Request:
    return httpx2.Request("POST", "https://relay.test/v1/x", headers={"Authorization": f"Bearer {KEY}"})


# --- request bodies ------------------------------------------------------------------------------


def test_plain_json_is_sent_as_is_and_nested_models_and_tuples_are_converted():
    plain = {"a": [1, 2.5, "s", None, True, {"b": [{"c": 1}]}]}
    assert to_jsonable(plain) is plain  # no copy for the common case
    item = Item.model_validate({"name": "n", "aliasField": 3})
    converted = to_jsonable({"messages": [item], "pair": (1, 2), "color": Color.RED, "raw": b"x"})
    # exclude_unset (no "note"), by_alias ("aliasField"), tuples become lists, enums and bytes pass through
    assert converted == {
        "messages": [{"name": "n", "aliasField": 3}],
        "pair": [1, 2],
        "color": "red",
        "raw": b"x",
    }
    assert type(converted["pair"]) is list
    nested = {"outer": {"inner": (1,)}}
    assert to_jsonable(nested) == {"outer": {"inner": [1]}}
    assert to_jsonable([[(1,)]]) == [[[1]]]
    assert to_jsonable(frozenset({"x"})) == ["x"]


def test_a_class_in_a_request_body_is_refused_with_a_pointer_to_parse():
    with pytest.raises(TypeError, match=r"Cannot send the class Item .*chat\.completions\.parse"):
        to_jsonable(Item)


def test_default_headers_carry_the_key_agent_and_accept():
    headers = build_headers(KEY, None, None)
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["User-Agent"].startswith("holyclient/")
    assert headers["Accept"] == "application/json"
    assert build_headers(KEY, None, None, stream=True)["Accept"] == "text/event-stream"
    merged = build_headers(KEY, {"Accept": "a/b", "X-A": "1"}, {"X-A": "2"})
    assert merged["Accept"] == "a/b" and merged["X-A"] == "2"
    assert set(merged) == {"Authorization", "User-Agent", "Accept", "X-A"}


# --- redaction -----------------------------------------------------------------------------------


def test_redacted_text_blanks_the_header_value_and_the_bare_key():
    request = authed_request()
    text = f"failed: Authorization: Bearer {KEY}; key alone {KEY}"
    assert redacted_text(text, request) == f"failed: Authorization: {REDACTED}; key alone {REDACTED}"
    assert redacted_text(text, None) == text


def test_redacted_text_checks_every_sensitive_header_and_spares_short_words():
    request = httpx2.Request(
        "GET", "https://relay.test/", headers={"api-key": "abcdefgh", "x-api-key": "Bearer"}
    )
    # an 8-character key is blanked; a short common word ("Bearer" in x-api-key) is not
    assert redacted_text("k=abcdefgh Bearer", request) == f"k={REDACTED} Bearer"
    request = httpx2.Request("GET", "https://relay.test/", headers={"api-key": "abcdefg"})
    assert redacted_text("k=abcdefg", request) == "k=abcdefg"
    # the bare key is what follows the first space, even when the key itself has one
    request = httpx2.Request(
        "GET", "https://relay.test/", headers={"Authorization": "Token part-one part-two"}
    )
    assert redacted_text("part-one part-two", request) == REDACTED


def test_a_status_error_keeps_no_key_in_its_request_or_redirect_history():
    request = authed_request()
    earlier = httpx2.Response(307, request=authed_request())
    response = httpx2.Response(429, request=request, history=[earlier])
    exc = make_status_error(response, b'{"error": {"message": "slow"}}', request=request, retry_after=3.0)
    assert isinstance(exc, RateLimitError) and exc.retry_after == 3.0
    assert "Authorization" not in exc.request.headers
    assert "Authorization" not in exc.response.request.headers
    assert "Authorization" not in exc.response.history[0].request.headers


# --- error bodies and messages -------------------------------------------------------------------


def test_error_bodies_that_are_not_json_are_kept_as_text():
    assert parse_error_body(b'{"a": 1}') == {"a": 1}
    assert parse_error_body(b"Bad \xff gateway") == "Bad \ufffd gateway"
    assert parse_error_body(b"") is None


def test_error_text_is_openais_and_what_it_leaves_out_becomes_notes():
    body = {"error": {"message": "no credit", "code": "insufficient_quota"}}
    assert error_message(429, body) == "Error code: 429 - no credit"
    assert error_message(400, {"error": {"message": "bad", "code": None}}) == "Error code: 400 - bad"
    assert error_message(400, {"message": "bare"}) == "Error code: 400 - bare"  # no envelope, as openai
    assert error_message(400, {"error": {"message": ""}}) == "Error code: 400"
    assert error_message(502, {"error": "upstream down"}) == "Error code: 502"
    assert error_notes(502, {"error": "upstream down"}) == ["error: upstream down"]
    assert error_message(502, "x" * 600) == "Error code: 502"
    assert error_notes(502, "x" * 600) == ["response body: " + "x" * 500]
    assert error_message(502, "") == error_message(502, None) == "Error code: 502"
    assert error_notes(502, "") == error_notes(502, None) == error_notes(400, body) == []


# --- 2xx bodies ----------------------------------------------------------------------------------


def test_a_garbled_200_is_a_retryable_validation_error_without_the_key():
    request = authed_request()
    response = httpx2.Response(200, request=request)
    with pytest.raises(APIResponseValidationError) as info:
        parse_model(Item, b'{"name": ', response, request=request)
    exc = info.value
    assert str(exc) == "Response body is not valid JSON"
    assert exc.retryable is True  # type: ignore[attr-defined]
    assert exc.body is None and exc.status_code == 200
    assert "Authorization" not in exc.request.headers
    assert "Authorization" not in exc.response.request.headers


def test_a_wrong_shape_is_a_final_validation_error_with_the_body():
    request = authed_request()
    response = httpx2.Response(200, request=request)
    with pytest.raises(APIResponseValidationError) as info:
        parse_model(Item, b'{"nom": "x"}', response, request=request)
    exc = info.value
    assert str(exc).startswith("Unexpected response shape: ")
    assert exc.retryable is False  # type: ignore[attr-defined]
    assert exc.body == {"nom": "x"}
    assert "Authorization" not in exc.request.headers
    assert "Authorization" not in exc.response.request.headers


# --- error events inside a stream ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "status"),
    [
        ({"status": 429}, 429),
        ({"status_code": 403}, 403),
        ({"code": 404}, 404),
        ({"status": 400}, 400),
        ({"status": 599}, 599),
        ({"status": 600, "type": "rate_limit_error"}, 429),
        ({"status": 399}, 500),
        ({"status": True, "type": "not_found_error"}, 404),
        ({"type": "rate_limit_error"}, 429),
        ({"code": "insufficient_quota"}, 429),
        ({"type": "mystery", "code": "model_not_found"}, 404),
        ({"message": "no hint"}, 500),
    ],
)
def test_an_error_event_stands_for_its_own_status_else_its_type_or_code(error, status):
    data = json.dumps({"error": error}).encode()
    exc = stream_error(data, httpx2.Response(200))
    assert isinstance(exc, APIStatusError)
    assert exc.status_code == status
    assert str(exc) == error.get("message", "An error occurred during streaming")  # openai's words


def test_an_error_event_carries_the_redacted_request_and_the_message():
    request = authed_request()
    response = httpx2.Response(200, request=request)
    exc = stream_error(b'{"error": {"message": "boom", "type": "server_error"}}', response, request=request)
    assert isinstance(exc, InternalServerError)
    assert str(exc) == "boom"
    assert exc.body == {"message": "boom", "type": "server_error"}
    assert "Authorization" not in exc.request.headers
    assert "Authorization" not in exc.response.request.headers


def test_events_that_are_not_error_objects_are_not_errors():
    response = httpx2.Response(200)
    assert stream_error(b'{"choices": []}', response) is None
    assert stream_error(b'{"error": "text only"}', response) is None
    assert stream_error(b'["error"]', response) is None
    assert stream_error(b'{"error": ', response) is None


# --- SSE end of stream ---------------------------------------------------------------------------


def test_flush_returns_the_last_event_once_and_then_nothing():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\ndata: b") == [b"a"]
    assert decoder.flush() == [b"b"]
    assert decoder.flush() == []
    assert decoder.feed(b"data: c\n\n") == [b"c"]


def test_flush_with_nothing_pending_emits_nothing():
    decoder = SSEDecoder()
    assert decoder.flush() == []
    assert decoder.feed(b"data: x\r\n\r\n") == [b"x"]
    assert decoder.flush() == []


def test_an_event_split_across_chunks_is_decoded_once():
    decoder = SSEDecoder()
    assert decoder.feed(b"da") == []
    assert decoder.feed(b"ta: he") == []
    assert decoder.feed(b"llo\n") == []
    assert decoder.feed(b"\n") == [b"hello"]


@pytest.mark.parametrize(
    "body",
    [
        b'data: {"a": 1}\n\n',
        b'data:{"a": 1}\n\n',  # no space after the colon
        b"data:  two spaces\n\n",  # only the first space is dropped
        b"data: x\r\n\r\n",
        b"data: a\rb\n\n",  # a lone CR inside the line is data
        b"data: one\ndata: two\n\n",  # a multi-line event
        b"data: a\n\ndata: b\n\n",  # two events in one read
        b": keep-alive\n\ndata: x\n\n",
        b"event: message\ndata: x\n\n",
        b"data: [DONE]\n\n",
        b"data: x\n\n\n",  # an extra blank line
        b"data\n\n",  # a field name without a colon is not data
    ],
)
def test_an_sse_body_decodes_to_the_same_events_however_it_is_split(body: bytes) -> None:
    """A whole event in one read takes the decoder's quick path; split byte by byte it takes the line
    loop: both give the same events."""
    whole = SSEDecoder()
    at_once = whole.feed(body) + whole.flush()
    split = SSEDecoder()
    byte_by_byte = [event for i in range(len(body)) for event in split.feed(body[i : i + 1])] + split.flush()
    assert at_once == byte_by_byte


# --- mutation-testing follow-ups -------------------------------------------------------------------


class Stamped(BaseModel):
    at: datetime.datetime


def test_a_model_in_a_body_is_dumped_in_json_mode():
    stamp = Stamped(at=datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC))
    assert to_jsonable({"m": stamp}) == {"m": {"at": "2026-01-02T03:04:05Z"}}


def test_the_not_given_sentinel_reads_as_its_name():
    assert repr(NOT_GIVEN) == "NOT_GIVEN" and not NOT_GIVEN


def test_the_class_in_body_error_says_what_create_takes():
    with pytest.raises(TypeError) as info:
        to_jsonable(Item)
    assert str(info.value).endswith(
        "pass a pydantic class to `client.chat.completions.parse(response_format=...)` instead of "
        "`create()`; `create()` takes a JSON-schema dict."
    )


def test_only_the_secret_headers_are_removed():
    headers = {
        "Authorization": "Bearer k",
        "API-Key": "k",
        "X-Api-Key": "k",
        "Proxy-Authorization": "p",
        "X-Amz-Security-Token": "t",
        "X-A": "1",
    }
    assert without_secret_headers(headers) == {"X-A": "1"}


class _Slotted:
    """A response-like object that refuses new attributes (setting ``request`` raises AttributeError)."""

    __slots__ = ("headers", "history", "status_code")

    def __init__(self, history: object = None) -> None:
        self.status_code = 500
        self.headers: dict[str, str] = {}
        self.history = history


class _Raising:
    """A response-like object whose ``history`` and ``request`` raise what exotic libraries raise."""

    def __init__(self, history_error: type[Exception], request_error: type[Exception]) -> None:
        self.status_code = 500
        self.headers: dict[str, str] = {}
        self._history_error = history_error
        self._request_error = request_error

    @property
    def history(self) -> list[object]:
        raise self._history_error("no history here")

    @property
    def request(self) -> object:
        return None

    @request.setter
    def request(self, value: object) -> None:
        raise self._request_error("read-only")


@pytest.mark.parametrize(
    "response",
    [
        _Slotted(),
        _Slotted(history=5),  # not iterable: TypeError
        _Slotted(history=[_Slotted()]),  # earlier responses that refuse a request: AttributeError
        _Raising(RuntimeError, AttributeError),
        _Raising(AttributeError, TypeError),
        _Raising(TypeError, TypeError),
    ],
)
def test_an_exotic_response_object_still_becomes_a_status_error(response):
    exc = make_status_error(response, b'{"error": {"message": "down"}}', request=authed_request())
    assert isinstance(exc, InternalServerError) and str(exc) == "Error code: 500 - down"
    assert "Authorization" not in exc.request.headers
