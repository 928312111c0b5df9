"""Hints for the commonest set-up mistakes of a newcomer, where a bare error would leave them guessing."""

from __future__ import annotations

import pytest

from holyclient import Client, NotFoundError
from holyclient._cli import main
from holyclient._exceptions import error_text
from holyclient.testing import LocalServer


def test_a_base_url_without_v1_ends_in_a_404_that_says_to_add_v1() -> None:
    with LocalServer() as server:
        base = server.base_url.removesuffix("/v1")
        with (
            Client(api_key="sk-test", base_url=base, max_retries=0) as client,
            pytest.raises(NotFoundError) as caught,
        ):
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    assert (
        str(caught.value)
        == "Error code: 404 - Unknown request URL: POST /chat/completions. Please check the URL for typos."
    )
    assert any("add /v1 to the end of the base URL" in note for note in caught.value.__notes__)
    assert caught.value.code == "unknown_url"


def test_a_404_under_v1_gets_no_such_hint() -> None:
    with (
        LocalServer() as server,
        Client(api_key="sk-test", base_url=server.base_url, max_retries=0) as client,
        pytest.raises(NotFoundError) as caught,
    ):
        client.models.retrieve("no-such-model")
    assert "/v1" not in error_text(caught.value)


def test_holyclient_chat_shows_the_v1_hint_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer() as server:
        base = server.base_url.removesuffix("/v1")
        code = main(["chat", "--api-key", "sk-test", "--base-url", base, "--max-retries", "0", "hi"])
    assert code == 1
    assert "add /v1 to the end of the base URL" in capsys.readouterr().err
