"""What an app that handles errors sees, through openai 3.63 and holyclient: the error's text (``str``,
``repr``, ``.message``, ``.args``) and the request kept on it, which holds no secret header at all.

Each app prints what an app logs or matches; the two standard outputs must be the same. holyclient's
extra detail (the HTTP library's words for a dropped connection, a body that is not an error object, a
set-up hint) is kept as notes on the exception and checked separately.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx2
import pytest

import holyclient
from differential.conftest import Differential, stdout_of
from differential.mock_pair import BASE, sync_clients
from holyclient.testing import Fault
from support import KEY

USER = [{"role": "user", "content": "hi"}]
SECRETS = {"api-key": "sk-azure-style-123456", "x-amz-security-token": "token-123456789"}
openai = pytest.importorskip("openai")
VERSION = tuple(int(p) for p in openai.__version__.split(".")[:2])
#: openai 3.38 put only the error's message in the text (before: the whole body); openai 3.60 removed
#: the secret headers from the request kept on errors (before: kept with the key, which holyclient never
#: does). Against an older openai these tests have nothing to compare with.
OPENAI_WORDING = pytest.mark.skipif(
    VERSION < (3, 38), reason="openai < 3.38 wrote the whole body into the text"
)
OPENAI_KEYLESS = pytest.mark.skipif(
    VERSION < (3, 60), reason="openai < 3.60 kept the key on the error's request"
)


def describe(error: Any) -> None:
    """What an app's error handler prints of an error."""
    print(type(error).__name__)
    print(str(error))
    print(repr(error))
    print(error.message)
    print(error.args)
    print(getattr(error, "status_code", None), error.code, error.type, error.param)


def secret_headers(error: Any) -> None:
    """Whether any secret header is still on the request the error keeps (and its response's)."""
    requests = [error.request]
    response = getattr(error, "response", None)
    if response is not None:
        requests += [response.request, *(hop.request for hop in response.history)]
    for request in requests:
        print([name in request.headers for name in ("authorization", "Authorization", *SECRETS)])


def error_text(error: BaseException) -> str:
    """The error's text and its notes, as a traceback shows them."""
    return "; ".join([str(error), *getattr(error, "__notes__", [])])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- item 1: keys on errors --------------------------------------------------------------------------


@OPENAI_KEYLESS
def test_a_status_error_keeps_no_secret_header_like_openai(differential: Differential) -> None:
    def script(c: Any) -> None:
        try:
            c.chat.completions.create(model="gpt-4.1", messages=[], extra_headers=SECRETS)
        except Exception as error:
            secret_headers(error)

    theirs, _ours = differential.check_script(script)
    assert "True" not in theirs.result


@OPENAI_KEYLESS
async def test_an_async_status_error_keeps_no_secret_header_like_openai(differential: Differential) -> None:
    async def script(c: Any) -> None:
        try:
            await c.chat.completions.create(model="gpt-4.1", messages=[], extra_headers=SECRETS)
        except Exception as error:
            secret_headers(error)

    theirs, _ours = await differential.acheck_script(script)
    assert "True" not in theirs.result


def following(sdk: str, sync: bool = True) -> Any:
    """``sdk``'s client on a mock transport that redirects, then refuses; redirects followed, as openai's
    own default HTTP client does."""
    transport = httpx2.MockTransport(redirected_then_refused)
    http = (httpx2.Client if sync else httpx2.AsyncClient)(transport=transport, follow_redirects=True)
    module = openai if sdk == "openai" else holyclient
    cls = module.OpenAI if sync else module.AsyncOpenAI
    return cls(api_key=KEY, base_url=BASE, http_client=http, max_retries=0)


def redirected_then_refused(request: httpx2.Request) -> httpx2.Response:
    if request.url.path.endswith("/chat/completions"):
        return httpx2.Response(307, headers={"location": str(request.url).replace("/chat/", "/moved/")})
    return httpx2.Response(400, json={"error": {"message": "nope", "type": "invalid_request_error"}})


@OPENAI_KEYLESS
def test_a_redirected_error_keeps_no_secret_header_in_its_history_like_openai() -> None:
    def script(c: Any) -> None:
        try:
            c.chat.completions.create(model="gpt-4.1", messages=USER, extra_headers=SECRETS)
        except Exception as error:
            print(len(error.response.history))
            secret_headers(error)
            describe(error)

    with following("openai") as theirs, following("holyclient") as ours:
        printed = stdout_of(script, theirs)
        assert printed.startswith("1\n") and "True" not in printed
        assert stdout_of(script, ours) == printed


@OPENAI_KEYLESS
async def test_an_async_redirected_error_keeps_no_secret_header_in_its_history_like_openai() -> None:
    async def script(c: Any) -> str:
        try:
            await c.chat.completions.create(model="gpt-4.1", messages=USER, extra_headers=SECRETS)
        except Exception as error:
            caught = error
        else:
            return "no error"
        return stdout_of(lambda: (print(len(caught.response.history)), secret_headers(caught)))

    async with following("openai", sync=False) as theirs, following("holyclient", sync=False) as ours:
        printed = await script(theirs)
        assert printed.startswith("1\n") and "True" not in printed
        assert await script(ours) == printed


@OPENAI_KEYLESS
def test_a_connection_error_keeps_no_secret_header_like_openai(differential: Differential) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"

    def script(c: Any) -> None:
        try:
            c.models.list(extra_headers=SECRETS)
        except Exception as error:
            secret_headers(error)

    differential.check_script(script, base_url=url)


# --- item 2: the error's text --------------------------------------------------------------------------


@OPENAI_WORDING
def test_status_errors_read_as_openais(differential: Differential) -> None:
    def script(c: Any) -> None:
        for call in (
            lambda: c.chat.completions.create(model="gpt-4.1", messages=[]),
            lambda: c.models.retrieve("no-such-model"),
            lambda: c.embeddings.create(model="text-embedding-3-small", input=[]),
        ):
            try:
                call()
            except Exception as error:
                describe(error)

    theirs, _ours = differential.check_script(script)
    assert "Error code: 400 - " in theirs.result and "Error code: 404 - " in theirs.result


@OPENAI_WORDING
async def test_async_status_errors_read_as_openais(differential: Differential) -> None:
    server = differential.server

    async def script(c: Any) -> None:
        server.enqueue(Fault.status(429, message="slow down", error_code="rate_limit_exceeded"))
        try:
            await c.chat.completions.create(model="gpt-4.1", messages=USER)
        except Exception as error:
            describe(error)

    theirs, _ours = await differential.acheck_script(script)
    assert "Error code: 429 - slow down" in theirs.result


@pytest.mark.parametrize(
    "answer",
    [
        httpx2.Response(502, text="Bad gateway from the upstream"),
        httpx2.Response(500, json={"error": "upstream down"}),
        httpx2.Response(400, json={"detail": "not an error object"}),
        httpx2.Response(503, json={"error": {"message": "", "type": "server_error"}}),
    ],
    ids=["text", "error-string", "no-error-member", "empty-message"],
)
@OPENAI_WORDING
def test_an_error_body_without_a_message_reads_as_openais_and_keeps_its_words_as_a_note(
    answer: httpx2.Response,
) -> None:
    def script(c: Any) -> None:
        try:
            c.chat.completions.create(model="gpt-4.1", messages=USER)
        except Exception as error:
            describe(error)
            print(error.body)

    theirs, ours = sync_clients(lambda request: answer)
    with theirs, ours:
        assert stdout_of(script, ours) == stdout_of(script, theirs)
        try:
            ours.chat.completions.create(model="gpt-4.1", messages=USER)
        except Exception as error:
            if answer.headers.get("content-type", "").startswith("text/") or answer.json().get("error") == (
                "upstream down"
            ):
                assert error_text(error) != str(error)  # the words openai drops are a note


def test_a_connection_error_reads_as_openais_and_keeps_the_cause_as_a_note(
    differential: Differential,
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"

    def script(c: Any) -> None:
        try:
            c.models.list()
        except Exception as error:
            describe(error)

    theirs, _ours = differential.check_script(script, base_url=url)
    assert "\nConnection error.\n" in theirs.result
    with differential.holyclient_client(base_url=url) as client:
        try:
            client.models.list()
        except Exception as error:
            assert str(error) == "Connection error."
            assert "Connection refused" in error_text(error)


async def test_an_async_connection_error_reads_as_openais(differential: Differential) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"

    async def script(c: Any) -> None:
        try:
            await c.models.list()
        except Exception as error:
            describe(error)

    theirs, _ours = await differential.acheck_script(script, base_url=url)
    assert "\nConnection error.\n" in theirs.result


def test_a_timeout_reads_as_openais(differential: Differential) -> None:
    server = differential.server

    def script(c: Any) -> None:
        server.enqueue(Fault.hang(2.0))
        try:
            c.chat.completions.create(model="gpt-4.1", messages=USER)
        except Exception as error:
            describe(error)

    theirs, _ours = differential.check_script(script, timeout=0.3)
    assert "\nRequest timed out.\n" in theirs.result
