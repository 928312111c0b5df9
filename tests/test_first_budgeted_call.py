"""The first budgeted call does not build the tokenizer, and no request path waits for one (issue 41,
item 11; the figures are ``benchmarks/bench_first_call.py``'s).

A budget holds a request's cost before sending it, counting its prompt: building the encoding for that
took 0.3-0.65 s of the first call. A budgeted client now builds it when it is made. A count on the
request path that still finds no encoding (a failure's uncertain spend, a stream's local count, a
stand-in model's calibration) never waits for it: the build starts in the background, and the count
holds an upper bound meanwhile (one token per UTF-8 byte), never learnt from.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from holyclient.pricing import UsageTracker, charging_for
from holyclient.tokens import _tokenizer, count_request, without_waiting

BODY = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Say hello to the world, héllo wörld."}]}


def _run(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip()


def test_a_budgeted_client_builds_the_tokenizer_when_made_so_its_first_call_builds_none(local_server):
    code = """
        import sys
        from holyclient import Client
        from holyclient.tokens import _tokenizer

        client = Client(base_url=sys.argv[1], api_key="k", budget_usd=1.0)
        assert "o200k_base" in _tokenizer._cache, "not built when the client was made"
        built = []
        real = _tokenizer._read_ranks
        _tokenizer._read_ranks = lambda name: built.append(name) or real(name)
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], max_tokens=5)
        snapshot = client.usage.snapshot()
        print(built, snapshot.models["gpt-4.1"].requests, snapshot.reserved_usd)
    """
    assert _run(code, local_server.base_url) == "[] 1 0"


def test_a_client_without_a_budget_builds_no_tokenizer_when_made() -> None:
    code = """
        from holyclient import Client
        from holyclient.tokens import _tokenizer

        Client(base_url="http://127.0.0.1:9/v1", api_key="k")
        print("o200k_base" in _tokenizer._cache, "tiktoken" in __import__("sys").modules)
    """
    assert _run(code) == "False False"


def test_a_failure_on_an_event_loop_builds_the_tokenizer_in_the_background_and_holds_an_upper_bound() -> None:
    code = """
        import asyncio, sys, threading
        from holyclient import AsyncClient, APIConnectionError
        from holyclient.testing import Fault, LocalServer
        from holyclient.tokens import _tokenizer

        threads = []
        real = _tokenizer._read_ranks
        _tokenizer._read_ranks = lambda name: threads.append(threading.current_thread().name) or real(name)

        async def main():
            with LocalServer(faults=[Fault.drop()]) as server:
                async with AsyncClient(base_url=server.base_url, api_key="k", max_retries=0) as client:
                    try:
                        await client.chat.completions.create(
                            model="gpt-4.1", messages=[{"role": "user", "content": "héllo " * 50}]
                        )
                    except APIConnectionError:
                        pass
                    return client.usage.snapshot().models["gpt-4.1"]

        model = asyncio.run(main())
        for _ in range(600):  # the background build finishes on its own
            if "o200k_base" in _tokenizer._cache:
                break
            threading.Event().wait(0.05)
        print(threads, model.uncertain_requests, model.prompt_tokens >= len(("héllo " * 50).encode()))
    """
    assert _run(code) == "['holyclient-warm-up-o200k_base'] 1 True"


@pytest.fixture
def encoding_still_building(monkeypatch):
    """o200k_base as if a background build of it were under way (and none is started)."""
    monkeypatch.setattr(
        _tokenizer, "_cache", {k: v for k, v in _tokenizer._cache.items() if k != "o200k_base"}
    )
    monkeypatch.setattr(_tokenizer, "_warming", {"o200k_base"})


def test_a_count_that_may_not_wait_holds_one_token_per_byte_as_an_approximate_upper_bound(
    encoding_still_building,
):
    with without_waiting():
        counted = count_request(BODY, endpoint="/chat/completions")
    text = BODY["messages"][0]["content"]
    assert counted.count_method == "approximate"
    assert counted.tokens == counted.input_tokens_range[1] == len(text.encode()) + len("user") + 3 + 3
    exact = count_request(BODY, endpoint="/chat/completions")  # waits: builds it
    assert exact.count_method == "exact" and exact.tokens < counted.tokens


def test_a_stand_in_models_count_that_may_not_wait_teaches_the_calibration_nothing(encoding_still_building):
    tracker = UsageTracker()
    claude = {**BODY, "model": "claude-sonnet-4.5"}
    usage = {"prompt_tokens": 30, "completion_tokens": 5}
    tracker.charge("claude-sonnet-4.5", usage, charging_for("POST", "/chat/completions"), claude)
    assert tracker.calibration().models == {}


def test_a_count_that_may_wait_waits_for_the_encoding_to_be_built(encoding_still_building):
    counted = count_request(BODY, endpoint="/chat/completions")
    assert counted.count_method == "exact"
