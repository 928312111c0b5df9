"""Counting that cannot stall the caller (issue 41, item 10).

A write timeout on a huge prompt made the uncertain-spend path count the prompt on the event loop
(``Ledger.failed`` -> ``charge_uncertain`` -> the hold -> tiktoken), and tiktoken is superlinear on a
long run without spaces: the timeout surfaced long after it fired and ``asyncio.wait_for`` could not
cancel it. Counting now does bounded work (:mod:`holyclient.tokens._bounded`): a long text is counted in
chunks, with a stated error bound per cut inside a run, and beyond what one count may tokenize it is
estimated from samples, with a rigorous range.
"""

from __future__ import annotations

import asyncio
import base64
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from holyclient import APITimeoutError, AsyncClient, Client
from holyclient.tokens import _bounded, _tokenizer, count_request, count_tokens

ONE_LETTER = "a" * (8 << 20)  # 8 MiB without a space: minutes of BPE work when counted whole


class Deaf:
    """A server on 127.0.0.1 that accepts connections and never reads: a large request times out writing."""

    def __init__(self) -> None:
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(8)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/v1"
        self._kept: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                self._kept.append(self._server.accept()[0])
            except OSError:
                return

    def hang_up(self) -> None:
        """Reset the accepted connections: a client's transport still flushing its write buffer ends."""
        for conn in self._kept:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            conn.close()
        self._kept.clear()

    def close(self) -> None:
        self._server.close()
        self.hang_up()
        self._thread.join(timeout=5)


@pytest.fixture
def deaf() -> Iterator[Deaf]:
    server = Deaf()
    yield server
    server.close()


def _body() -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": [{"role": "user", "content": ONE_LETTER}]}


TIMEOUT = httpx2.Timeout(30.0, write=0.5)


@pytest.fixture(autouse=True)
def _tokenizer_loaded() -> None:
    count_tokens("loaded before timing", "gpt-4.1")  # what loading costs is item 11's, not measured here


async def test_an_async_write_timeout_on_a_huge_prompt_surfaces_promptly_and_is_counted_uncertain(deaf):
    async with AsyncClient(api_key="k", base_url=deaf.url, timeout=TIMEOUT, max_retries=0) as client:
        started = time.perf_counter()
        with pytest.raises(APITimeoutError):
            await client.chat.completions.create(**_body())
        elapsed = time.perf_counter() - started
        model = client.usage.snapshot().models["gpt-4.1"]
        deaf.hang_up()  # (the transport still flushing its write ends before the loop does)
        await asyncio.sleep(0.05)
    # generous for a loaded machine: counting 8 MiB of one letter whole took far longer than this alone
    assert elapsed < 10, elapsed
    assert model.uncertain_requests == 1 and model.cost_usd > 0


async def test_wait_for_cancels_a_call_stuck_writing_a_huge_prompt(deaf):
    async with AsyncClient(
        api_key="k", base_url=deaf.url, timeout=httpx2.Timeout(60.0), max_retries=0
    ) as client:
        started = time.perf_counter()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.chat.completions.create(**_body()), 0.5)
        elapsed = time.perf_counter() - started
        snapshot = client.usage.snapshot()
        deaf.hang_up()
        await asyncio.sleep(0.05)
    assert elapsed < 5, elapsed
    assert snapshot.models["gpt-4.1"].uncertain_requests == 1  # cancelled after sending: maybe billed


def test_a_sync_write_timeout_on_a_huge_prompt_with_a_budget_surfaces_promptly(deaf):
    with Client(api_key="k", base_url=deaf.url, timeout=TIMEOUT, max_retries=0, budget_usd=100.0) as client:
        started = time.perf_counter()
        with pytest.raises(APITimeoutError):
            client.chat.completions.create(**_body(), max_tokens=10)
        elapsed = time.perf_counter() - started
        snapshot = client.usage.snapshot()
    assert elapsed < 10, elapsed
    assert snapshot.reserved_usd == 0.0 and snapshot.uncertain_usd > 0


def test_no_tokenizer_call_is_larger_than_a_chunk_and_a_count_tokenizes_a_bounded_amount(monkeypatch):
    enc = _tokenizer.get_encoding("o200k_base")
    calls: list[int] = []

    class Recording:
        name = enc.name
        _mergeable_ranks = enc._mergeable_ranks

        def encode_ordinary(self, text: str) -> list[int]:
            calls.append(len(text))
            return enc.encode_ordinary(text)

    monkeypatch.setattr(_tokenizer, "_cache", {**_tokenizer._cache, "o200k_base": Recording()})
    words = "The tide comes in twice a day. " * (2 << 20)  # 64 MiB of prose
    body = {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": words}, {"role": "user", "content": ONE_LETTER}],
    }
    counted = count_request(body, endpoint="/chat/completions")
    assert max(calls) <= _bounded.CHUNK
    assert sum(calls) <= _bounded.EXACT_CHARS + _bounded.SAMPLE_CHARS + 1000  # +the short strings (roles)
    # estimated beyond the allowance, with a range whose high end is rigorous: one token per byte at most
    assert counted.count_method == "approximate"
    low, high = counted.input_tokens_range
    assert low <= counted.tokens <= high
    # the exact count, from the texts' periodic structure: counting 72 MiB whole would take a while
    unit = "The tide comes in twice a day. "
    per_unit = _tokenizer.exact_count(enc, unit * 1001) - _tokenizer.exact_count(enc, unit * 1000)
    words_exact = _tokenizer.exact_count(enc, unit) + (len(words) // len(unit) - 1) * per_unit
    letters_exact = _tokenizer.exact_count(enc, "a" * 80_000) * (len(ONE_LETTER) // 80_000)
    assert low <= words_exact + letters_exact <= high


def _generated(rng: random.Random) -> str:
    kinds = [
        lambda n: "a" * n,
        lambda n: "".join(rng.choice("ab") for _ in range(n)),
        lambda n: base64.b64encode(rng.randbytes(n)).decode()[:n],
        lambda n: "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n)),
        lambda n: " " * n,
        lambda n: "".join(rng.choice(" \n\t-_=+.,;:") for _ in range(n)),
        lambda n: " ".join(
            "".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 12))) for _ in range(n // 6)
        ),
        lambda n: "".join(
            rng.choice(["word ", "  ", "\n", "x" * 50, "1234567", "don't ", "é"]) for _ in range(n // 4)
        ),
    ]
    parts = [rng.choice(kinds)(rng.randint(1, 30_000)) for _ in range(rng.randint(3, 8))]
    return "".join(parts)


def test_a_long_text_counted_in_chunks_holds_its_exact_count_in_its_range():
    rng = random.Random(410)
    for _ in range(24):
        text = _generated(rng)
        if len(text) < _tokenizer.CHUNKED_FROM:
            text += "b" * (_tokenizer.CHUNKED_FROM - len(text) + rng.randint(0, 5000))
        for model in ("gpt-4.1", "gpt-4"):
            counted = count_tokens(text, model)
            exact = _tokenizer.exact_count(_tokenizer.get_encoding(counted.encoding), text)
            low, high = counted.input_tokens_range
            assert low <= exact <= high, (model, counted, exact)
            if counted.count_method == "exact":
                assert counted.tokens == exact


def test_prose_with_spaces_is_still_counted_exactly_in_chunks():
    text = "The tide comes in twice a day, and goes out twice a day.\n" * 20_000  # over a MiB? no: 1.1 MB
    counted = count_tokens(text[: _bounded.EXACT_CHARS], "gpt-4.1")
    assert counted.count_method == "exact"
    assert counted.tokens == _tokenizer.exact_count(
        _tokenizer.get_encoding("o200k_base"), text[: _bounded.EXACT_CHARS]
    )


def test_an_estimated_text_holds_its_exact_count_in_its_rigorous_range():
    text = ("The tide comes in twice a day. " * 40_000 + "Ünïcödé wörds ünd 数字 " * 20_000) * 2  # ~3.3 MB
    counted = count_tokens(text, "gpt-4.1")
    exact = _tokenizer.exact_count(_tokenizer.get_encoding("o200k_base"), text)
    low, high = counted.input_tokens_range
    assert counted.count_method == "approximate"
    assert low <= exact <= high
    assert abs(counted.tokens - exact) / exact < 0.1  # evenly spaced samples of a mixed text


def test_a_request_of_an_unpriced_model_that_times_out_counts_nothing(deaf, monkeypatch):
    def no_counting(*args: object, **kwargs: object) -> int:
        raise AssertionError("counted a prompt nothing needed counted")

    monkeypatch.setattr(_tokenizer, "count", no_counting)
    with Client(api_key="k", base_url=deaf.url, timeout=TIMEOUT, max_retries=0) as client:
        with pytest.raises(APITimeoutError):
            client.chat.completions.create(
                model="house-model", messages=[{"role": "user", "content": ONE_LETTER}]
            )
        model = client.usage.snapshot().models["house-model"]
    assert (model.uncertain_requests, model.cost_usd) == (1, None)
