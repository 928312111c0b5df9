"""``OPENAI_*`` variables are never read: not the key, the base URL, the organisation or the project.

A shell set up for openai must not redirect holyclient's requests (and its key) to OpenAI's endpoint,
nor attach OpenAI account headers. Checked for ``Client``, ``AsyncClient`` and the command line, each
with a decoy server at ``OPENAI_BASE_URL`` that must see nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from holyclient import AsyncClient, Client
from holyclient._cli import main
from holyclient.testing import LocalServer

KEY = "sk-holy-openai-variables-key"
USER = [{"role": "user", "content": "hi"}]
ACCOUNT_HEADERS = ("openai-organization", "openai-project")


@pytest.fixture
def decoy(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A server named by every OPENAI_* variable; the real one is at HOLYSHEEP_BASE_URL."""
    with LocalServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-decoy-key")
        monkeypatch.setenv("OPENAI_ORG_ID", "org-decoy")
        monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-decoy")
        yield server


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    with LocalServer() as server:
        monkeypatch.setenv("HOLYSHEEP_BASE_URL", server.base_url)
        monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
        yield server


def assert_only_home_was_asked(home: LocalServer, decoy: LocalServer) -> None:
    assert decoy.stats["requests"] == 0
    [request] = home.requests
    assert not [name for name in ACCOUNT_HEADERS if name in request.headers], request.headers


def test_the_client_reads_no_openai_variable(home: LocalServer, decoy: LocalServer) -> None:
    with Client() as client:
        assert client.api_key == KEY and str(client.base_url) == home.base_url + "/"
        client.chat.completions.create(model="gpt-4.1", messages=USER)
    assert_only_home_was_asked(home, decoy)


async def test_the_async_client_reads_no_openai_variable(home: LocalServer, decoy: LocalServer) -> None:
    async with AsyncClient() as client:
        assert client.api_key == KEY and str(client.base_url) == home.base_url + "/"
        await client.chat.completions.create(model="gpt-4.1", messages=USER)
    assert_only_home_was_asked(home, decoy)


def test_the_command_line_reads_no_openai_variable(
    home: LocalServer, decoy: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", "hi", "--max-retries", "0"]) == 0
    assert capsys.readouterr().out == "Echo: hi\n"
    assert_only_home_was_asked(home, decoy)


@pytest.mark.parametrize("make", [Client, AsyncClient], ids=["sync", "async"])
def test_without_holysheep_base_url_the_default_wins_over_openai_base_url(
    make: type[Client] | type[AsyncClient], decoy: LocalServer
) -> None:
    client = make(api_key=KEY)
    assert str(client.base_url) == "https://api.holysheep.ai/v1/"
    assert client.organization is None and client.project is None
