"""``holyclient batch`` on every Batch API endpoint against the local server: chat, embeddings,
completions, responses and moderations, alone and mixed in one file; costs, dry run, resume, library."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from batch_support import read_results, write_jsonl
from holyclient import AsyncClient, Client
from holyclient._cli import main
from holyclient.batch import BatchRequest, BatchResult, BatchRunner, run_batch
from holyclient.testing import LocalServer
from holyclient.testing._vectors_fake import embedding_vector

KEY = "sk-holy-batch-endpoints-key"


pytestmark = pytest.mark.usefixtures("api_key_env")


def request(custom_id: str, url: str) -> dict[str, Any]:
    """One Batch API input line for ``url`` whose answer names ``custom_id``."""
    text = f"text {custom_id}"
    body: dict[str, Any] = {
        "/v1/chat/completions": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        "/v1/embeddings": {"model": "text-embedding-3-small", "input": text, "dimensions": 4},
        "/v1/completions": {"model": "gpt-3.5-turbo-instruct", "prompt": text, "max_tokens": 30},
        "/v1/responses": {"model": "gpt-4o-mini", "input": text, "instructions": "Be brief."},
        "/v1/moderations": {"model": "omni-moderation-latest", "input": text},
    }[url]
    return {"custom_id": custom_id, "method": "POST", "url": url, "body": body}


URLS = ["/v1/chat/completions", "/v1/embeddings", "/v1/completions", "/v1/responses", "/v1/moderations"]


def assert_answered(line: dict[str, Any], url: str) -> None:
    """The output line holds that endpoint's answer to the request named by its custom_id."""
    assert line["error"] is None and line["response"]["status_code"] == 200, line
    body = line["response"]["body"]
    text = f"text {line['custom_id']}"
    if url == "/v1/chat/completions":
        assert body["choices"][0]["message"]["content"] == f"Echo: {text}"
    elif url == "/v1/embeddings":
        assert body["data"][0]["embedding"] == list(embedding_vector("text-embedding-3-small", text, 4))
    elif url == "/v1/completions":
        assert body["choices"][0]["text"] == f"Echo: {text}"
    elif url == "/v1/responses":
        assert body["output"][0]["content"][0]["text"] == f"Echo: {text}"
    else:
        assert body["results"][0]["flagged"] is False and body["model"] == "omni-moderation-latest"


@pytest.mark.parametrize("url", URLS)
def test_each_endpoint_runs_and_writes_its_answers_in_the_batch_output_format(
    local_server: LocalServer, tmp_path: Path, url: str
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [request(f"r{i}", url) for i in range(5)])
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]) == 0
    lines = read_results(out)
    assert sorted(lines) == [f"r{i}" for i in range(5)]
    for line in lines.values():
        assert_answered(line, url)
    assert {r.path for r in local_server.requests} == {url}


def test_a_mixed_file_sends_each_line_to_its_own_endpoint_and_prices_it(
    local_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [request(f"{url[4:].replace('/', '-')}-{i}", url) for i in range(3) for url in URLS]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    written = read_results(out)
    assert len(written) == 15
    for line in lines:
        assert_answered(written[line["custom_id"]], line["url"])
    models = summary["models"]
    assert set(models) == {
        "gpt-4o-mini",
        "text-embedding-3-small",
        "gpt-3.5-turbo-instruct",
        "omni-moderation-latest",
    }
    assert models["gpt-4o-mini"]["requests"] == 6  # chat and responses
    # the responses API's input/output tokens are counted as prompt/completion tokens
    assert models["gpt-4o-mini"]["completion_tokens"] > 0
    embeddings = models["text-embedding-3-small"]
    assert embeddings["completion_tokens"] == 0 and embeddings["prompt_tokens"] > 0
    assert embeddings["cost_usd"] == pytest.approx(embeddings["prompt_tokens"] * 0.02 / 1e6)
    assert models["omni-moderation-latest"]["cost_usd"] in (0.0, None)
    assert models["gpt-3.5-turbo-instruct"]["cost_usd"] > 0


def test_dry_run_prices_every_endpoint_with_its_own_output_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [request(f"r{i}", url) for i, url in enumerate(URLS)])
    assert main(["batch", str(source), "--dry-run", "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    embeddings = models["text-embedding-3-small"]
    assert embeddings["max_output_tokens"] == 0 and embeddings["input_tokens"] == 3  # "text r1"
    assert embeddings["max_cost_usd"] == pytest.approx(3 * 0.02 / 1e6)
    assert models["gpt-3.5-turbo-instruct"]["max_output_tokens"] == 30  # max_tokens
    assert models["omni-moderation-latest"]["max_output_tokens"] == 0
    assert models["omni-moderation-latest"]["max_cost_usd"] == 0.0
    # chat (512 assumed) + responses without max_output_tokens (512 assumed)
    assert models["gpt-4o-mini"]["requests"] == 2 and models["gpt-4o-mini"]["max_output_tokens"] == 1024


def test_a_moderation_without_model_is_sent_without_one(local_server: LocalServer, tmp_path: Path) -> None:
    line = request("m", "/v1/moderations")
    del line["body"]["model"]
    source = write_jsonl(tmp_path / "in.jsonl", [line])
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--model", "gpt-4o"]
    assert main(argv) == 0
    assert "model" not in local_server.requests[0].body  # --model is a chat model: not given to moderations
    assert_answered(read_results(out)["m"], "/v1/moderations")


def test_tpm_limit_counts_embeddings_by_their_input_only() -> None:
    from holyclient.ratelimit._estimate import TokenEstimator

    estimator = TokenEstimator()
    text = "a b c d e f g h"  # 8 tokens
    body = {"model": "text-embedding-3-small", "input": text}
    assert estimator.estimate(body, "/v1/embeddings")[0] == 8
    assert estimator.estimate({**body, "max_tokens": 50}, "/v1/moderations")[0] == 8
    responses = {"model": "gpt-4o-mini", "input": text, "max_output_tokens": 100}
    assert estimator.estimate(responses, "/v1/responses")[0] == 108
    completions = {"model": "gpt-3.5-turbo-instruct", "prompt": ["a b c d", "e f g h"], "max_tokens": 7}
    assert estimator.estimate(completions, "/v1/completions")[0] == 8 + 7


def test_the_runner_takes_a_url_per_request_async_and_sync(local_server: LocalServer) -> None:
    requests = [BatchRequest(f"r{i}", request(f"r{i}", url)["body"], url) for i, url in enumerate(URLS)]
    results: list[BatchResult] = []

    async def go() -> None:
        async with AsyncClient(base_url=local_server.base_url) as client:
            await BatchRunner(client, concurrency=4).run(requests, results.append)

    anyio.run(go)
    with Client(base_url=local_server.base_url) as client:
        lines = [request(f"r{i}", url) for i, url in enumerate(URLS)]
        synced = run_batch(client, lines)
    every_id = sorted(f"r{i}" for i in range(len(URLS)))
    assert sorted(result.custom_id for result in results) == every_id  # one result per request, async
    assert sorted(result.custom_id for result in synced) == every_id  # and sync
    for result in [*results, *synced]:
        url = URLS[int(result.custom_id[1:])]
        assert_answered(result.output_line(), url)


@pytest.mark.slow
def test_a_killed_mixed_run_resumes_and_sends_each_line_exactly_once(tmp_path: Path) -> None:
    lines = [request(f"r{i}", URLS[i % 5]) for i in range(300)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    with LocalServer(latency=0.03) as local_server:
        argv = [sys.executable, "-m", "holyclient", "batch", str(source), "-o", str(out)]
        argv += ["--base-url", local_server.base_url, "--concurrency", "8"]
        env = {**os.environ, "HOLYSHEEP_API_KEY": KEY}
        process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not (out.exists() and out.read_bytes().count(b"\n") >= 40) and process.poll() is None:
            assert time.monotonic() < deadline, "the batch wrote too few lines in time"
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=20)
        first = set(read_results(out))
        assert 40 <= len(first) < 300
        local_server.reset()
        assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]) == 0
        resent = {
            r.body.get("input") or r.body.get("prompt") or r.body["messages"][0]["content"]
            for r in local_server.requests
        }
    ids = [json.loads(line)["custom_id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(line["custom_id"] for line in lines)  # each exactly once
    assert not {f"text {custom_id}" for custom_id in first} & resent
    written = read_results(out)
    for line in lines:
        assert_answered(written[line["custom_id"]], line["url"])
