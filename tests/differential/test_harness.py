"""The differential harness tests itself: two SDKs failing the same way is not a match."""

from __future__ import annotations

from typing import Any

import pytest

from differential.conftest import Differential, assert_same_outcomes
from holyclient.testing import Fault

USER = [{"role": "user", "content": "hi"}]


def failing_chat(differential: Differential) -> Any:
    def app(c: Any) -> Any:
        differential.server.enqueue(Fault.status(500))
        return c.chat.completions.create(model="gpt-4.1", messages=USER)

    return app


def test_check_fails_when_both_sdks_fail_the_same_way(differential: Differential) -> None:
    with pytest.raises(AssertionError, match="openai failed where the test expects success"):
        differential.check(failing_chat(differential))


async def test_acheck_fails_when_both_sdks_fail_the_same_way(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        differential.server.enqueue(Fault.status(500))
        return await c.chat.completions.create(model="gpt-4.1", messages=USER)

    with pytest.raises(AssertionError, match="openai failed where the test expects success"):
        await differential.acheck(app)


def test_check_fails_when_the_declared_error_does_not_happen(differential: Differential) -> None:
    with pytest.raises(AssertionError, match="succeeded where the test expects NotFoundError"):
        differential.check(lambda c: c.models.retrieve("gpt-4.1"), expect_error="NotFoundError")


def test_check_fails_when_another_error_than_the_declared_one_happens(differential: Differential) -> None:
    with pytest.raises(AssertionError, match="expected RateLimitError"):
        differential.check(failing_chat(differential), expect_error="RateLimitError")


def test_check_passes_when_both_raise_the_declared_error(differential: Differential) -> None:
    theirs, ours = differential.check(failing_chat(differential), expect_error="InternalServerError")
    assert ours.result == theirs.result
    assert ours.result["status_code"] == 500


def test_outcomes_a_test_ran_itself_fail_when_both_sdks_fail_the_same_way(differential: Differential) -> None:
    """``run`` records a failure as a result; ``assert_same_outcomes`` (what ``check`` asserts) refuses it."""
    with differential.openai_client() as client:
        theirs = differential.run(failing_chat(differential), client)
    with differential.holyclient_client() as client:
        ours = differential.run(failing_chat(differential), client)
    assert ours.result == theirs.result  # the same failure on both sides ...
    with pytest.raises(AssertionError, match="openai failed where the test expects success"):
        assert_same_outcomes(theirs, ours)  # ... is not a match
    assert_same_outcomes(theirs, ours, expect_error="InternalServerError")
