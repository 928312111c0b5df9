"""``Client(record_to=..., record_rate=...)``: a sample of live requests as Batch API input lines, no keys."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest

from holyclient import Client, Router, Target
from holyclient._send._recorder import Recorder
from holyclient.batch import parse_line
from holyclient.testing import LocalServer

MESSAGES = [{"role": "user", "content": "hi"}]
KEY = "sk-recorded-client-key-9999"


@pytest.fixture(scope="module")
def server():
    with LocalServer() as server:
        yield server


def test_requests_are_recorded_as_batch_input_lines_without_keys(server: LocalServer, tmp_path: Path):
    path = tmp_path / "sample.jsonl"
    with Client(
        api_key=KEY, base_url=server.base_url, record_to=path, default_headers={"X-Secret": "hdr-value-1"}
    ) as client:
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, temperature=0.5)
        client.embeddings.create(model="text-embedding-3-small", input="x")
        client.models.list()  # a read: not replayable, not recorded
        list(client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
    text = path.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    # embeddings and reads are not recorded: `holyclient batch` and `compare` accept chat lines only
    assert [line["url"] for line in lines] == ["/v1/chat/completions", "/v1/chat/completions"]
    assert all(set(line) == {"custom_id", "method", "url", "body"} for line in lines)
    assert len({line["custom_id"] for line in lines}) == 2
    assert lines[0]["body"] == {"model": "gpt-4o-mini", "messages": MESSAGES, "temperature": 0.5}
    assert lines[1]["body"]["stream"] is True
    assert KEY not in text and "hdr-value-1" not in text and "uthorization" not in text
    request = parse_line(json.dumps(lines[0]), 1)  # what `holyclient batch` / `compare` read
    assert request.custom_id == lines[0]["custom_id"]


def test_record_rate_samples_and_appends(server: LocalServer, tmp_path: Path):
    path = tmp_path / "sample.jsonl"
    path.write_text('{"custom_id": "earlier", "body": {}}\n')
    with Client(api_key=KEY, base_url=server.base_url, record_to=path, record_rate=0.0) as client:
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert len(path.read_text().splitlines()) == 1
    recorder = Recorder(path, 0.25, rng=random.Random(5))
    from holyclient._core._request import RequestOptions

    options = RequestOptions("POST", "/chat/completions", body={"model": "m", "messages": MESSAGES})
    for _ in range(2000):
        recorder.observe(options)
    recorded = len(path.read_text().splitlines()) - 1
    assert 400 < recorded < 600  # 25% of 2000 = 500 (sd 19)


def test_the_recorder_is_bounded_and_thread_safe(tmp_path: Path):
    from holyclient._core._request import RequestOptions

    path = tmp_path / "sample.jsonl"
    recorder = Recorder(path, 1.0, limit=500)
    options = RequestOptions("POST", "/chat/completions", body={"model": "m", "messages": MESSAGES})

    def work() -> None:
        for _ in range(100):
            recorder.observe(options)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 500  # 800 offered, the limit kept
    assert len({json.loads(line)["custom_id"] for line in lines}) == 500  # whole lines, unique ids


def test_a_router_records_the_callers_request_once(server: LocalServer, tmp_path: Path):
    path = tmp_path / "sample.jsonl"
    target = Target(server.base_url, api_key=KEY, model_map={"gpt-4o-mini": "gpt-4o"})
    with Router([target], record_to=path) as router:
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    (line,) = path.read_text().splitlines()
    assert json.loads(line)["body"]["model"] == "gpt-4o-mini"


def test_a_bad_record_rate_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="record_rate"):
        Client(api_key=KEY, record_to=tmp_path / "x.jsonl", record_rate=2)


def test_an_async_client_records_too(server: LocalServer, tmp_path: Path):
    import asyncio

    from holyclient import AsyncClient

    path = tmp_path / "sample.jsonl"

    async def main() -> None:
        async with AsyncClient(api_key=KEY, base_url=server.base_url, record_to=path) as client:
            await asyncio.gather(
                *(client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES) for _ in range(5))
            )

    asyncio.run(main())
    assert len(path.read_text().splitlines()) == 5
