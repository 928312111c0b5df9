"""Differential fixtures: the same application code through ``openai`` and through ``holyclient``.

A test writes its app once, as a function of a client, and lets :class:`Differential` run it through
``openai.OpenAI`` and ``holyclient.Client`` (or the async pair) against one local server. ``check``
asserts that both sent the same requests (method, path, query, JSON body) and got the same results::

    def app(client):
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])

    def test_plain_chat(differential):
        differential.check(app)

    async def test_plain_chat_async(differential):
        await differential.acheck(async_app)

Results are compared as plain data: models through ``model_dump(mode="json", exclude_unset=True)``,
exceptions as ``{"error": class name, "status_code", "body"}``. Server-generated ids (``req_...``,
``chatcmpl-...``, ``call_...``) are replaced by ``<id1>``, ``<id2>``... in order of appearance and
``created`` timestamps are dropped, so a tool loop that echoes a call id back still compares equal.
Each side gets ``max_retries=0`` unless the test passes client options.

The differential harness is this package, one way per need: :class:`Differential` (here) against a real
``LocalServer``; ``differential.mock_pair`` for both SDKs over one MockTransport handler (``support.Canned``
for a scripted answer); ``differential.fake_api.FakeAPI``, a MockTransport handler answering every
endpoint like the API (``tests/test_endpoints_wire.py``).

Both SDKs failing the same way is not a pass: ``check`` requires each app to return a result unless the
test declares the error it expects (``expect_error="NotFoundError"``), and then requires that error on
both sides. Without this, a server answering 500 to everything made most differential tests pass. A test
that builds its own clients and calls ``run``/``arun`` asserts the same through :func:`assert_same_outcomes`
(or :func:`assert_outcome` on each side when it compares requests its own way).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import openai
import pytest
from packaging.version import Version

import holyclient
from holyclient.testing import LocalServer

#: ``.ci/run`` runs this suite a second time against the oldest openai supported, put first on the path:
#: the run fails at once if another openai was imported.
_FLOOR = os.environ.get("HOLYCLIENT_OPENAI_FLOOR")
if _FLOOR and Version(openai.__version__) != Version(_FLOOR):  # "3.50" (the extra's bound) is 3.50.0
    raise RuntimeError(f"the differential floor run imported openai {openai.__version__}, not {_FLOOR}")

KEY = "sk-differential"
_IDS = re.compile(r"\b(?:req_[0-9a-f]{16}|chatcmpl-[0-9a-f]{16}|call_[0-9a-f]{24})\b")
_VOLATILE_KEYS = frozenset({"created", "created_at"})


#: What holyclient adds on purpose (README, "Switching from openai"): a streamed request asks for usage
#: in the stream so that it can be charged, unless the caller set ``stream_options`` itself.
ASKED_FOR_USAGE = {"include_usage": True}


def assert_same_requests(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    """The requests are the same but for the documented ``stream_options`` holyclient adds to streams."""
    assert len(ours) == len(theirs), (ours, theirs)
    for mine, other in zip(ours, theirs, strict=True):
        body, other_body = mine.get("body"), other.get("body")
        if (
            isinstance(body, dict)
            and isinstance(other_body, dict)
            and body.get("stream") is True
            and "stream_options" in body
            and "stream_options" not in other_body
        ):
            assert body.get("stream_options") == ASKED_FOR_USAGE, mine
            mine = {**mine, "body": {k: v for k, v in body.items() if k != "stream_options"}}
        assert mine == other


def plain(value: Any) -> Any:
    """JSON-compatible data for a result of either SDK (models, lists, dicts, exceptions, bytes)."""
    if isinstance(value, BaseException):
        return {
            "error": type(value).__name__,
            "status_code": getattr(value, "status_code", None),
            "body": plain(getattr(value, "body", None)),
        }
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(mode="json", exclude_unset=True, by_alias=True))
    if isinstance(value, Mapping):
        # A server asked for usage in a stream sends ``"usage": null`` on every chunk; holyclient asks on
        # purpose (ASKED_FOR_USAGE), so an explicit null usage on a chunk counts as absent.
        chunk = value.get("object") == "chat.completion.chunk"
        return {
            str(k): plain(v)
            for k, v in value.items()
            if k not in _VOLATILE_KEYS and not (chunk and k == "usage" and v is None)
        }
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def normalize_ids(data: Any) -> Any:
    """``data`` with server-generated ids replaced by ``<idN>`` in order of first appearance."""
    seen: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        return seen.setdefault(match.group(0), f"<id{len(seen) + 1}>")

    return json.loads(_IDS.sub(replace, json.dumps(data, sort_keys=True)))


def assert_outcome(outcome: Outcome, sdk: str, expect_error: str | None) -> None:
    """``outcome`` succeeded, or raised exactly ``expect_error`` when the test declares one."""
    raised = outcome.raw_result if isinstance(outcome.raw_result, BaseException) else None
    if expect_error is None:
        assert raised is None, f"{sdk} failed where the test expects success: {outcome.result}"
    else:
        assert raised is not None, f"{sdk} succeeded where the test expects {expect_error}: {outcome.result}"
        assert type(raised).__name__ == expect_error, f"{sdk}: {outcome.result}, expected {expect_error}"


def assert_same_outcomes(
    theirs: Outcome, ours: Outcome, *, compare_result: bool = True, expect_error: str | None = None
) -> None:
    """What :meth:`Differential.check` asserts, for a test that runs each SDK itself (``run``/``arun``
    with clients it builds): each side succeeded (or raised ``expect_error``), then the same requests
    and the same results. Comparing the two outcomes alone would pass when both fail the same way."""
    assert_outcome(theirs, "openai", expect_error)
    assert_outcome(ours, "holyclient", expect_error)
    assert_same_requests(ours.requests, theirs.requests)
    if compare_result:
        assert ours.result == theirs.result


def stdout_of(script: Callable[..., None], *args: Any) -> str:
    """What ``script(*args)`` printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        script(*args)
    return buffer.getvalue()


@dataclass
class Outcome:
    """What one SDK did: the requests the server saw and the app's result, as plain data."""

    requests: list[dict[str, Any]]
    result: Any
    raw_result: Any


class Differential:
    """Runs app code through both SDKs against ``server``; see the module docstring."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server

    def _options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"api_key": KEY, "base_url": self.server.base_url, "max_retries": 0, **options}

    def openai_client(self, **options: Any) -> openai.OpenAI:
        return openai.OpenAI(**self._options(options))

    def holyclient_client(self, **options: Any) -> holyclient.Client:
        return holyclient.Client(**self._options(options))

    def async_openai_client(self, **options: Any) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(**self._options(options))

    def async_holyclient_client(self, **options: Any) -> holyclient.AsyncClient:
        return holyclient.AsyncClient(**self._options(options))

    def recorded(self, headers: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """The requests since the last reset: method, path, parsed query, body (and chosen headers)."""
        out = []
        for r in self.server.requests:
            entry: dict[str, Any] = {
                "method": r.method,
                "path": r.path,
                "query": parse_qs(r.query, keep_blank_values=True),
                "body": r.body,
            }
            for name in headers:
                entry[name] = r.headers.get(name.lower())
            out.append(entry)
        return out

    def _outcome(self, result: Any, headers: tuple[str, ...]) -> Outcome:
        requests = self.recorded(headers)
        both = normalize_ids({"requests": requests, "result": plain(result)})
        return Outcome(both["requests"], both["result"], result)

    def run(self, app: Callable[[Any], Any], client: Any, headers: tuple[str, ...] = ()) -> Outcome:
        self.server.reset()
        try:
            result = app(client)
        except (openai.OpenAIError, holyclient.HolyClientError) as exc:
            result = exc
        return self._outcome(result, headers)

    async def arun(
        self, app: Callable[[Any], Awaitable[Any]], client: Any, headers: tuple[str, ...] = ()
    ) -> Outcome:
        self.server.reset()
        try:
            result = await app(client)
        except (openai.OpenAIError, holyclient.HolyClientError) as exc:
            result = exc
        return self._outcome(result, headers)

    def check_script(self, script: Callable[[Any], None], **options: Any) -> tuple[Outcome, Outcome]:
        """Run ``script`` (an app that prints, and handles its own errors as apps do) through both SDKs:
        the same requests and the same standard output."""
        return self.check(lambda client: stdout_of(script, client), **options)

    async def acheck_script(
        self, script: Callable[[Any], Awaitable[None]], **options: Any
    ) -> tuple[Outcome, Outcome]:
        """Async twin of :meth:`check_script`."""

        async def app(client: Any) -> str:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                await script(client)
            return buffer.getvalue()

        return await self.acheck(app, **options)

    def check(
        self,
        app: Callable[[Any], Any],
        *,
        headers: tuple[str, ...] = (),
        compare_result: bool = True,
        expect_error: str | None = None,
        **options: Any,
    ) -> tuple[Outcome, Outcome]:
        """Run ``app`` through ``openai.OpenAI`` then ``holyclient.Client``; assert the same requests and results.

        Args:
            expect_error: the error class name both SDKs must raise; ``None`` requires success on both.

        Returns:
            ``(openai_outcome, holyclient_outcome)`` for further assertions.
        """
        with self.openai_client(**options) as client:
            theirs = self.run(app, client, headers)
        with self.holyclient_client(**options) as client:
            ours = self.run(app, client, headers)
        assert_same_outcomes(theirs, ours, compare_result=compare_result, expect_error=expect_error)
        return theirs, ours

    async def acheck(
        self,
        app: Callable[[Any], Awaitable[Any]],
        *,
        headers: tuple[str, ...] = (),
        compare_result: bool = True,
        expect_error: str | None = None,
        **options: Any,
    ) -> tuple[Outcome, Outcome]:
        """Async twin of :meth:`check`, with ``openai.AsyncOpenAI`` and ``holyclient.AsyncClient``."""
        async with self.async_openai_client(**options) as client:
            theirs = await self.arun(app, client, headers)
        async with self.async_holyclient_client(**options) as client:
            ours = await self.arun(app, client, headers)
        assert_same_outcomes(theirs, ours, compare_result=compare_result, expect_error=expect_error)
        return theirs, ours


@pytest.fixture
def differential(local_server: LocalServer) -> Differential:
    """Both SDKs against the top conftest's ``local_server`` (parametrize it indirectly to configure it)."""
    return Differential(local_server)
