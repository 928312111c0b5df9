"""Issue 40, item 3: a provider that accepts a request and answers nothing is failed over after its first
timeout, not waited out again; the attempt counts as uncertain spend; the whole call stays well under
the sum of its per-attempt timeouts. A client (one server, nowhere else to go) still retries it."""

from __future__ import annotations

import pytest

from failover_support import ANSWER, CLIENTS, ROUTERS, ask, attempts
from holyclient import APITimeoutError
from holyclient.testing import Fault, LocalServer

TIMEOUT = 0.4
RETRIES = 2
#: Every attempt on the primary waiting its timeout out: what the call cost before the fix.
SUM_OF_TIMEOUTS = (RETRIES + 1) * TIMEOUT


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
def test_a_silent_primary_is_failed_over_after_its_first_timeout(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool
) -> None:
    primary, backup = pair
    primary.enqueue(*[Fault.hang(5.0)] * (RETRIES + 1))
    got = ask(
        surface, primary, backup, stream=stream, client_options={"timeout": TIMEOUT, "max_retries": RETRIES}
    )
    assert got.whole, got.error
    assert (attempts(primary), attempts(backup)) == (1, 1)  # not waited out again on the primary
    assert got.seconds < TIMEOUT + 0.5 < SUM_OF_TIMEOUTS
    assert got.usage.uncertain_requests == 1  # the silent attempt may have been billed there
    assert got.stats["primary"].failovers == 1 and got.stats["backup"].successes == 1


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
def test_a_call_to_two_silent_targets_ends_after_one_timeout_each(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool
) -> None:
    """The last target has nowhere else to send the call: its own retries still apply."""
    primary, backup = pair
    primary.enqueue(*[Fault.hang(5.0)] * 3)
    backup.enqueue(*[Fault.hang(5.0)] * 3)
    got = ask(surface, primary, backup, stream=stream, client_options={"timeout": TIMEOUT, "max_retries": 1})
    assert got.error is not None and "timed out" in str(got.error).lower()
    assert (attempts(primary), attempts(backup)) == (1, 2)
    assert got.seconds < 3 * TIMEOUT + 1.5 < 2 * 2 * TIMEOUT + 1.5  # below every attempt's timeout summed


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", CLIENTS)
def test_a_client_retries_a_silent_server_and_raises_a_timeout(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.hang(5.0))
    got = ask(
        surface, primary, backup, stream=stream, client_options={"timeout": TIMEOUT, "max_retries": RETRIES}
    )
    assert got.text == ANSWER and got.error is None  # the retry was answered
    assert attempts(primary) == 2
    primary.reset()
    primary.enqueue(*[Fault.hang(5.0)] * 2)
    got = ask(surface, primary, backup, stream=stream, client_options={"timeout": TIMEOUT, "max_retries": 1})
    assert isinstance(got.error, APITimeoutError) and attempts(primary) == 2
    assert got.usage.uncertain_requests == 2
