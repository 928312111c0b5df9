"""Issue 40, item 5: a ``context_length_exceeded`` refusal is routed to a target whose model has a larger
context window (declared on the ``Target`` or read from the price table), never to the same model again;
a content-filter refusal goes nowhere and keeps its reason."""

from __future__ import annotations

from typing import Any

import pytest

from failover_support import ANSWER, ROUTERS, ask, attempts
from holyclient import BadRequestError, Router, Target
from holyclient.router._select import context_overflow
from holyclient.testing import Fault, LocalServer


def _code(error: BaseException | None) -> Any:
    return getattr(error, "code", None)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
@pytest.mark.parametrize(
    "backup_options",
    [{"context_window": 1_000_000}, {"model_map": {"gpt-4o-mini": "gpt-4.1"}}],
    ids=["declared", "price-table"],
)
def test_a_prompt_too_long_for_the_primary_goes_to_a_target_with_a_larger_window(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool, backup_options: dict[str, Any]
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.context_length_exceeded(128_000))
    got = ask(surface, primary, backup, stream=stream, backup_options=backup_options)
    assert got.whole, got.error
    assert (attempts(primary), attempts(backup)) == (1, 1)  # the refused model is not asked again
    assert got.stats["primary"].breaker == "closed"  # it answered: the request was too long for it
    sent = backup.requests[0].body["model"]
    if surface != "as_openai":  # as_openai() sends openai's own body bytes: model_map is issue 42's item 3
        assert sent == backup_options.get("model_map", {}).get("gpt-4o-mini", "gpt-4o-mini")


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
def test_a_prompt_too_long_everywhere_is_not_sent_to_a_target_that_cannot_fit_it(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool
) -> None:
    """The backup serves the same model (same window): sending it there would fail the same way."""
    primary, backup = pair
    primary.enqueue(Fault.context_length_exceeded(128_000))
    got = ask(surface, primary, backup, stream=stream)
    assert _code(got.error) == "context_length_exceeded"
    assert (attempts(primary), attempts(backup)) == (1, 0)
    if surface != "as_openai":  # openai's own error carries no notes
        assert "context window larger than 128000" in " ".join(got.error.__notes__)  # type: ignore[union-attr]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", ROUTERS)
def test_a_content_filter_refusal_goes_nowhere_and_keeps_its_reason(
    pair: tuple[LocalServer, LocalServer], surface: str, stream: bool
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.content_filter())
    got = ask(surface, primary, backup, stream=stream, backup_options={"context_window": 1_000_000})
    assert _code(got.error) == "content_filter" and "content management policy" in str(got.error)
    assert getattr(got.error, "status_code", None) == 400
    assert (attempts(primary), attempts(backup)) == (1, 0)
    assert got.text != ANSWER


def test_a_model_whose_window_is_unknown_is_not_tried(pair: tuple[LocalServer, LocalServer]) -> None:
    primary, backup = pair
    primary.enqueue(Fault.context_length_exceeded(128_000))
    unknown = Target(
        backup.base_url, api_key="sk-backup-0000bbbb", name="backup", model_map={"gpt-4o-mini": "x"}
    )
    router = Router(
        [Target(primary.base_url, api_key="sk-primary-0000aaaa", name="primary", fallbacks=[unknown])]
    )
    with router, pytest.raises(BadRequestError) as caught:
        router.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.code == "context_length_exceeded" and attempts(backup) == 0
    assert "no target left has a model with a context window larger than 128000" in " ".join(
        caught.value.__notes__
    )


def test_the_window_a_refusal_states_is_read_from_each_provider_s_wording() -> None:
    def refusal(message: str, code: str | None = None) -> BadRequestError:
        import httpx2

        body = {"message": message, "type": "invalid_request_error", "code": code}
        return BadRequestError(message, response=httpx2.Response(400), body=body)

    openai_words = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."
    assert context_overflow(refusal(openai_words, "context_length_exceeded")) == 8192
    assert context_overflow(refusal(openai_words)) == 8192  # DeepSeek says it without a code
    assert context_overflow(refusal("prompt is too long: 213000 tokens > 200000 maximum")) == 200_000
    assert context_overflow(refusal("Too long.", "context_length_exceeded")) == 0  # unstated: the table's
    assert context_overflow(refusal("Bad request.")) is None
    assert context_overflow(refusal("filtered", "content_filter")) is None
