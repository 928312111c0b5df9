"""Issue 40, "done when": each of the ten faults of the issue, played by the local fault server, on each
of the five surfaces (``Client``, ``AsyncClient``, ``Router``, ``AsyncRouter``, ``as_openai()`` on a
Router), streamed and not. Each call ends in the whole answer or a typed, clean error, with the attempts
per target counted where they arrived, within its bound, and every attempt's usage counted once.

Time is scaled down: the read timeout is 1.5 s, the stream deadlines 0.5 s, a "first token after 20 s"
comes after 1 s, an outage lasts 0.5 s. The routers are the issue's set-up (``max_retries=2``, a
backup as the primary's fallback, the default ``stream_recovery``) with those deadlines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from failover_support import CLIENTS, KEY_PRIMARY, MODEL, SURFACES, ask, attempts
from holyclient import (
    APIConnectionError,
    BadRequestError,
    FirstEventTimeoutError,
    StreamIdleTimeoutError,
    StreamRestartError,
)
from holyclient.testing import Fault, LocalServer, Outage

TIMEOUT = 1.5
DEADLINE = 0.5
SLOW_FIRST_TOKEN = 1.0
OUTAGE = 0.5
#: 60 words: the answer streams as "Echo:" and 60 words, cut after 40 of them.
WORDS = " ".join(f"w{i}" for i in range(60))
MESSAGES = [{"role": "user", "content": WORDS}]
ANSWER = f"Echo: {WORDS}"
#: No call may take longer: two read timeouts (a retried silent attempt) and the retries' backoff.
BOUND = 2 * TIMEOUT + 2.5

CLIENT_OPTIONS = {
    "timeout": TIMEOUT,
    "max_retries": 2,
    "max_retry_after": 0.0,
    "first_event_timeout": DEADLINE,
    "stream_idle_timeout": DEADLINE,
}
#: The backup declares a larger window: a prompt too long for the primary goes there.
BACKUP_OPTIONS = {"context_window": 1_000_000}

#: The faults of the issue, each as the primary plays it (the outage: a server of its own, see ``served``).
FAULTS: dict[str, Fault | None] = {
    "rate_limit": Fault.status(429, retry_after=0),
    "accepted_then_silent": Fault.hang(5.0),
    "first_token_late": Fault.slow_first_event(SLOW_FIRST_TOKEN),
    "cut_after_40_of_60": Fault.stream_cut(after_chunks=41),  # the role chunk, then 40 words
    "silent_stream": Fault.stall(after_chunks=4, seconds=5.0, comments_every=0.05),
    "malformed_event": Fault.malformed_event(after_chunks=4),
    "no_done": Fault.ends_early(after_chunks=4),
    "context_length_exceeded": Fault.context_length_exceeded(128_000),
    "content_filter": Fault.content_filter(),
    "primary_down_then_back": None,
}


@dataclass(frozen=True)
class Expect:
    """What a call should give: ``"whole"``, ``"truncated"`` (a client's stream that ended early, as
    openai's: no error, ``stream.truncated``), or an error class; and the attempts (primary, backup).
    None: any number (how many of an outage's retries fall in it depends on the backoff's jitter)."""

    outcome: str | type[BaseException]
    primary: int | None
    backup: int | None = 0


WHOLE_RETRIED = Expect("whole", 2)  # the same server, asked again
WHOLE_FAILED_OVER = Expect("whole", 1, 1)


def expected(fault: str, surface: str, stream: bool) -> Expect:
    client = surface in CLIENTS
    if fault == "rate_limit":
        return WHOLE_RETRIED  # a rate limit is retried (Retry-After) on the target that said it
    if fault == "accepted_then_silent":  # a silent client is retried; a router goes on after one timeout
        return WHOLE_RETRIED if client else WHOLE_FAILED_OVER
    if fault == "first_token_late":
        if not stream:  # a JSON answer has no first event: it comes late, within the read timeout
            return Expect("whole", 1)
        return WHOLE_RETRIED if client else WHOLE_FAILED_OVER  # nothing was handed over yet
    if fault == "cut_after_40_of_60":
        if not stream:  # half a JSON body: a dropped connection, retried where it was sent
            return WHOLE_RETRIED
        # a client raises (the caller has 40 words); a router restarts the answer on the backup, whose
        # model takes no prefill (the typed signal: its ``stream`` reads the whole answer)
        return Expect(APIConnectionError, 1) if client else Expect(StreamRestartError, 1, 1)
    if fault == "silent_stream":
        if not stream:  # half a JSON body, then silence: a read timeout (a router goes on at once)
            return WHOLE_RETRIED if client else WHOLE_FAILED_OVER
        return Expect(StreamIdleTimeoutError, 1) if client else Expect(StreamRestartError, 1, 1)
    if fault == "malformed_event":
        return Expect("whole", 1) if stream else WHOLE_RETRIED  # skipped in a stream; a garbled body retried
    if fault == "no_done":
        if not stream:
            return Expect("whole", 1)
        return Expect("truncated", 1) if client else Expect(StreamRestartError, 1, 1)
    if fault == "context_length_exceeded":
        return Expect(BadRequestError, 1) if client else WHOLE_FAILED_OVER
    if fault == "content_filter":
        return Expect(BadRequestError, 1)  # the caller's request: nowhere else to go, its reason kept
    assert fault == "primary_down_then_back"
    # retried on the primary (its 503s are retried with backoff) until it is back, or failed over
    return Expect("whole", None) if client else Expect("whole", None, None)


@pytest.fixture
def served(
    pair: tuple[LocalServer, LocalServer], request: pytest.FixtureRequest
) -> Iterator[Callable[..., Any]]:
    """``served(fault, surface, stream)``: the call's outcome and the (primary, backup) servers it met."""
    _, backup = pair
    opened: list[LocalServer] = []

    def play(fault: str, surface: str, stream: bool) -> tuple[Any, LocalServer, LocalServer]:
        primary = pair[0]
        if fault == "primary_down_then_back":
            primary = LocalServer(api_key=KEY_PRIMARY, hook=Outage(OUTAGE)).__enter__()
            opened.append(primary)
        else:
            played = FAULTS[fault]
            assert played is not None
            primary.enqueue(played)
        got = ask(
            surface,
            primary,
            backup,
            stream=stream,
            client_options=CLIENT_OPTIONS,
            backup_options=BACKUP_OPTIONS,
            messages=MESSAGES,
        )
        return got, primary, backup

    yield play
    for server in opened:
        server.__exit__(None, None, None)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_fault_ends_in_the_whole_answer_or_a_typed_error_within_its_bound(
    served: Callable[..., Any], fault: str, surface: str, stream: bool
) -> None:
    got, primary, backup = served(fault, surface, stream)
    want = expected(fault, surface, stream)
    if want.outcome == "whole":
        assert got.error is None and got.text == ANSWER, got.error
    elif want.outcome == "truncated":
        assert (
            got.error is None and got.stream.truncated and ANSWER.startswith(got.text) and got.text != ANSWER
        )
    else:
        assert isinstance(want.outcome, type)
        error = got.error
        if surface == "as_openai":  # openai's own error classes: the kind is in the name
            assert error is not None and type(error).__module__.startswith("openai"), error
        else:
            assert isinstance(error, want.outcome), repr(error)
        if isinstance(error, StreamRestartError) and surface == "router":  # the new stream: the whole answer
            assert "".join(c.choices[0].delta.content or "" for c in error.stream if c.choices) == ANSWER
    counted = (attempts(primary), attempts(backup))
    if want.primary is None:
        assert counted[0] >= 1 and counted[1] in ((0, 1) if want.backup is None else (want.backup,)), counted
    else:
        assert counted == (want.primary, want.backup), counted
    assert got.seconds < BOUND, got.seconds
    _counted_once(got, counted)


def _counted_once(got: Any, counted: tuple[int, int]) -> None:
    """Every attempt that reached a server is in the usage once: the router's total is its targets' sum,
    and no more requests are counted than were sent (a refused or rate-limited one is counted as none)."""
    usage = got.usage.models.get(MODEL)
    requests = usage.requests if usage is not None else 0
    assert requests <= sum(counted)
    if got.stats:
        per_target = sum(s.prompt_tokens for s in got.stats.values())
        assert (usage.prompt_tokens if usage is not None else 0) == per_target
        assert sum(s.requests for s in got.stats.values()) >= 1


@pytest.mark.parametrize("surface", SURFACES)
def test_a_malformed_event_is_skipped_and_counted_where_the_caller_can_see_it(
    served: Callable[..., Any], surface: str
) -> None:
    got, _, _ = served("malformed_event", surface, True)
    assert got.error is None and got.text == ANSWER
    if surface != "as_openai":  # openai's stream object has no count: the router's stats do
        assert got.stream.malformed_events == 1
    if got.stats:
        assert got.stats["primary"].malformed_events == 1 and got.stats["primary"].errors == 0


@pytest.mark.parametrize("surface", CLIENTS)
def test_a_stream_s_deadlines_name_the_limit_that_passed(served: Callable[..., Any], surface: str) -> None:
    got, _, _ = served("first_token_late", surface, True)
    assert got.error is None  # retried: nothing had reached the caller
    got, _, _ = served("silent_stream", surface, True)
    assert isinstance(got.error, StreamIdleTimeoutError) and "stream_idle_timeout=0.5s" in str(got.error)
    assert not isinstance(got.error, FirstEventTimeoutError)
