"""Shadow traffic is money spent: each copy is charged to the shadow target (``stats()[shadow]``,
``target_usage(shadow)``) and to the router's total, and the router's budget (or the shadow's own
``Target(budget_usd=...)``) refuses a copy before sending when it cannot cover it -- no pair is then
written, ``mirror_refused`` counts it and the router says so once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holyclient import AsyncRouter, Router, Target
from holyclient.testing import LocalServer

MESSAGES = [{"role": "user", "content": "hi"}]
KEY_OLD, KEY_NEW = "sk-old-endpoint-5555", "sk-new-endpoint-6666"
#: gpt-4o-mini on the caller's target, gpt-4o on the shadow: a copy's worst case is ~16x the caller's.
CALL = {"model": "gpt-4o-mini", "messages": MESSAGES, "max_tokens": 1000}


@pytest.fixture
def servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_OLD) as old, LocalServer(api_key=KEY_NEW) as new:
        yield old, new


def _router(
    old: LocalServer,
    new: LocalServer,
    path: Path,
    cls: Any = Router,
    shadow_budget: float | None = None,
    **kw: Any,
) -> Any:
    return cls(
        [Target(old.base_url, api_key=KEY_OLD, name="old")],
        shadow=Target(
            new.base_url,
            api_key=KEY_NEW,
            name="new",
            model_map={"gpt-4o-mini": "gpt-4o"},
            budget_usd=shadow_budget,
        ),
        mirror=1.0,
        mirror_to=path,
        max_retries=0,
        **kw,
    )


def _check_the_shadow_is_charged(router: Any) -> None:
    stats = router.stats()
    shadow, caller = router.target_usage("new").snapshot(), router.target_usage("old").snapshot()
    assert set(shadow.models) == {"gpt-4o"} and shadow.models["gpt-4o"].requests == 2
    assert stats["new"].prompt_tokens == shadow.models["gpt-4o"].prompt_tokens > 0
    assert stats["new"].cost_usd == pytest.approx(shadow.total_cost_usd) and shadow.total_cost_usd > 0
    total = router.usage.snapshot()
    assert set(total.models) == {"gpt-4o-mini", "gpt-4o"}  # the copies are in the router's total
    assert total.total_cost_usd == pytest.approx(caller.total_cost_usd + shadow.total_cost_usd)
    assert stats["new"].mirrored == 2


def test_shadow_copies_are_charged_to_the_shadow_target_and_the_routers_total(servers, tmp_path: Path):
    old, new = servers
    router = _router(old, new, tmp_path / "pairs.jsonl")
    for _ in range(2):
        router.chat.completions.create(**CALL)
    router.close()  # waits for the copies
    _check_the_shadow_is_charged(router)


def test_an_async_routers_shadow_copies_are_charged_too(servers, tmp_path: Path):
    old, new = servers

    async def main() -> Any:
        router = _router(old, new, tmp_path / "pairs.jsonl", cls=AsyncRouter)
        for _ in range(2):
            await router.chat.completions.create(**CALL)
        await router.close()
        return router

    _check_the_shadow_is_charged(asyncio.run(main()))


def test_the_routers_budget_refuses_a_shadow_copy_before_sending_it(
    servers, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    old, new = servers
    path = tmp_path / "pairs.jsonl"
    # $0.005 covers the caller's worst case (1,000 tokens of gpt-4o-mini, $0.0006) but not the copy's
    # (1,000 tokens of gpt-4o, $0.01)
    with caplog.at_level(logging.WARNING, logger="holyclient"):
        router = _router(old, new, path, budget_usd=0.005)
        for _ in range(3):
            assert router.chat.completions.create(**CALL)._target == "old"
        router.close()
    assert new.requests == []  # refused before sending: nothing paid
    assert not path.exists()  # and no pair: there is nothing to compare
    stats = router.stats()["new"]
    assert (stats.mirrored, stats.mirror_refused, stats.mirror_lost, stats.cost_usd) == (0, 3, 0, 0.0)
    (warning,) = router.usage.snapshot().warnings  # said once, not per copy
    assert warning.startswith("mirror copies to new are refused by the budget and not sent")
    assert [r.getMessage() for r in caplog.records if "mirror" in r.getMessage()] == [
        f"holyclient: {warning}"
    ]
    assert router.usage.snapshot().uncertain_usd == 0.0


def test_a_shadow_budget_caps_what_mirroring_spends_without_touching_the_callers(servers, tmp_path: Path):
    old, new = servers
    router = _router(old, new, tmp_path / "pairs.jsonl", shadow_budget=0.005)
    for _ in range(2):
        router.chat.completions.create(**CALL)
    router.close()
    assert new.requests == [] and router.stats()["new"].mirror_refused == 2
    assert router.stats()["old"].successes == 2  # the caller's requests are not held back


def test_shadow_spend_is_taken_from_the_routers_budget(servers, tmp_path: Path):
    old, new = servers
    router = _router(old, new, tmp_path / "pairs.jsonl", budget_usd=1.0)
    router.chat.completions.create(**CALL)
    router.close()
    total = router.usage.snapshot()
    spent = (
        router.target_usage("old").snapshot().total_cost_usd
        + router.target_usage("new").snapshot().total_cost_usd
    )
    assert router.target_usage("new").snapshot().total_cost_usd > 0
    assert total.remaining_usd == pytest.approx(1.0 - spent)
    assert total.reserved_usd == 0  # every copy's reservation settled
