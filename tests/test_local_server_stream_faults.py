"""Issue 40: the local server plays each fault a relay's users meet, seen on the wire (plain HTTP, no
client logic in between): a slow first event, a stall, one malformed event, a stream that ends early,
``context_length_exceeded`` and content-filter refusals, an outage that ends, and an assistant prefill
continued or refused."""

from __future__ import annotations

import json
import time

import httpx2
import pytest

from holyclient.testing import Fault, LocalServer, Outage, parse_kinds
from holyclient.testing._fault_streams import KEEPALIVE, MALFORMED_EVENT

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "one two three four five six"}]}
AUTH = {"Authorization": "Bearer sk-test"}


@pytest.fixture(scope="module")
def server() -> LocalServer:
    with LocalServer(max_hang=5) as running:
        yield running


def _read_stream(server: LocalServer, fault: Fault | None) -> tuple[list[tuple[float, bytes]], str | None]:
    """The stream's raw pieces with the seconds each arrived after the head, and how it ended."""
    if fault is not None:
        server.enqueue(fault)
    pieces: list[tuple[float, bytes]] = []
    ending = None
    with (
        httpx2.Client(timeout=10) as http,
        http.stream(
            "POST", server.base_url + "/chat/completions", json={**BODY, "stream": True}, headers=AUTH
        ) as r,
    ):
        head = time.monotonic()
        try:
            for piece in r.iter_raw():
                pieces.append((time.monotonic() - head, piece))
        except httpx2.RemoteProtocolError as exc:
            ending = type(exc).__name__
    return pieces, ending


def _events(pieces: list[tuple[float, bytes]]) -> list[bytes]:
    data = b"".join(piece for _, piece in pieces)
    return [e for e in data.split(b"\n\n") if e]


def test_a_whole_stream_ends_with_a_finish_and_done(server: LocalServer) -> None:
    pieces, ending = _read_stream(server, None)
    events = _events(pieces)
    assert ending is None and events[-1] == b"data: [DONE]" and b'"finish_reason":"stop"' in events[-2]


def test_a_slow_first_event_sends_the_head_at_once_and_keepalives_until_the_first_event(
    server: LocalServer,
) -> None:
    pieces, ending = _read_stream(server, Fault.slow_first_event(0.5, comments_every=0.1))
    first_data = next(at for at, piece in pieces if b"data:" in piece)
    comments = [at for at, piece in pieces if piece.startswith(KEEPALIVE)]
    assert first_data >= 0.45 and len(comments) >= 3 and all(at < first_data for at in comments)
    assert ending is None and _events(pieces)[-1] == b"data: [DONE]"


def test_a_stall_goes_silent_with_the_connection_open_then_closes_without_an_end(server: LocalServer) -> None:
    pieces, ending = _read_stream(server, Fault.stall(after_chunks=2, seconds=0.5))
    events = _events(pieces)
    assert len(events) == 2 and ending == "RemoteProtocolError"
    assert pieces[-1][0] < 0.3  # the two events came at once; then nothing until the close at 0.5 s


def test_a_malformed_event_is_one_event_and_the_rest_of_the_stream_is_intact(server: LocalServer) -> None:
    whole = _events(_read_stream(server, None)[0])
    pieces, ending = _read_stream(server, Fault.malformed_event(after_chunks=2))
    events = _events(pieces)
    assert ending is None and events.index(MALFORMED_EVENT.rstrip(b"\n")) == 2
    assert len(events) == len(whole) + 1 and events[-1] == b"data: [DONE]"
    with pytest.raises(ValueError):
        json.loads(events[2][6:])


def test_a_stream_that_ends_early_ends_cleanly_without_a_finish_or_done(server: LocalServer) -> None:
    pieces, ending = _read_stream(server, Fault.ends_early(after_chunks=3))
    events = _events(pieces)
    assert ending is None and len(events) == 3
    assert all(b'"finish_reason":null' in e for e in events) and b"[DONE]" not in b"".join(events)
    pieces, _ = _read_stream(server, Fault.ends_early(after_chunks=100))  # never past the answer's end
    assert all(b'"finish_reason":null' in e for e in _events(pieces))


@pytest.mark.parametrize(
    ("fault", "code", "words"),
    [
        (Fault.context_length_exceeded(8192), "context_length_exceeded", "maximum context length is 8192"),
        (Fault.content_filter(), "content_filter", "content management policy"),
    ],
    ids=["context_length_exceeded", "content_filter"],
)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_refusals_answer_400_with_their_code(
    server: LocalServer, fault: Fault, code: str, words: str, stream: bool
) -> None:
    server.enqueue(fault)
    answer = httpx2.post(server.base_url + "/chat/completions", json={**BODY, "stream": stream}, headers=AUTH)
    error = answer.json()["error"]
    assert answer.status_code == 400 and error["code"] == code and words in error["message"]


def test_json_requests_meet_the_same_faults_their_way(server: LocalServer) -> None:
    url, body = server.base_url + "/chat/completions", {**BODY, "stream": False}
    server.enqueue(Fault.slow_first_event(0.3))
    started = time.monotonic()
    assert httpx2.post(url, json=body, headers=AUTH).status_code == 200 and time.monotonic() - started >= 0.3
    server.enqueue(Fault.malformed_event())
    with pytest.raises(ValueError):
        httpx2.post(url, json=body, headers=AUTH).json()
    server.enqueue(Fault.ends_early())
    assert httpx2.post(url, json=body, headers=AUTH).json()["choices"][0]["finish_reason"] == "stop"
    server.enqueue(Fault.stall(seconds=0.3))
    with pytest.raises(httpx2.RemoteProtocolError):  # half the body, silence, then the connection closes
        httpx2.post(url, json=body, headers=AUTH, timeout=5)


def test_an_outage_refuses_for_its_length_then_recovers() -> None:
    now = [100.0]
    outage = Outage(60.0, clock=lambda: now[0])
    assert outage(None) is not None and not outage.over  # type: ignore[arg-type]  # the first request starts it
    now[0] = 159.9
    assert outage(None).status_code == 503  # type: ignore[arg-type, union-attr]
    now[0] = 160.0
    assert outage(None) is None and outage.over  # type: ignore[arg-type]
    assert (outage.refused, outage.served) == (2, 1)
    with LocalServer(hook=Outage(0.3, Fault.status(502))) as down:
        statuses = [httpx2.post(down.base_url + "/chat/completions", json=BODY, headers=AUTH).status_code]
        time.sleep(0.35)
        statuses.append(httpx2.post(down.base_url + "/chat/completions", json=BODY, headers=AUTH).status_code)
    assert statuses == [502, 200]


def _prefilled(text: str) -> dict[str, object]:
    return {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": text, "prefix": True}]}


def test_a_prefill_is_continued_from_where_it_stopped(server: LocalServer) -> None:
    answer = httpx2.post(
        server.base_url + "/chat/completions", json=_prefilled("Echo: one two"), headers=AUTH
    ).json()
    assert answer["choices"][0]["message"]["content"] == " three four five six"
    plain = {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": "Echo: one"}]}
    answer = httpx2.post(server.base_url + "/chat/completions", json=plain, headers=AUTH).json()
    assert (
        answer["choices"][0]["message"]["content"] == "Echo: one two three four five six"
    )  # no prefix: anew


def test_a_server_without_prefills_refuses_one_as_claude_4_6_does() -> None:
    with LocalServer(disabled_features={"prefill"}) as refusing:
        answer = httpx2.post(refusing.base_url + "/chat/completions", json=_prefilled("Echo"), headers=AUTH)
    assert answer.status_code == 400
    assert (
        answer.json()["error"]["message"] == "Prefilling assistant messages is not supported for this model."
    )


def test_the_relay_profile_refuses_a_prefill_for_claude_and_continues_one_for_deepseek() -> None:
    with LocalServer(profile="holysheep") as relay:
        url = relay.base_url + "/chat/completions"
        claude = httpx2.post(url, json={**_prefilled("Echo"), "model": "claude-sonnet-4.5"}, headers=AUTH)
        deepseek = httpx2.post(url, json={**_prefilled("Echo: one"), "model": "deepseek-v3.2"}, headers=AUTH)
    assert claude.status_code == 400 and "Prefilling" in claude.json()["error"]["message"]
    assert deepseek.json()["choices"][0]["message"]["content"] == " two three four five six"


def test_the_new_faults_are_known_by_name() -> None:
    names = "slow_first_event,stall,malformed_event,ends_early,context_length_exceeded,content_filter"
    assert set(parse_kinds(names)) == set(names.split(","))
