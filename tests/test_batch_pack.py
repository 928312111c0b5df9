"""Embedding input packing (``holyclient batch --pack``): lines sent together, answered one by one.

The local server's vectors are derived from each input's text, so a line given its neighbour's
vector is caught; an input holding ``holyclient:reject`` makes the server refuse the whole request
with a 400, which packing must isolate to that one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from batch_support import read_results, write_jsonl
from holyclient import AsyncClient
from holyclient._cli import main
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.batch._pack import PackedRequest, Packer, split, unpack
from holyclient.testing import Fault, LocalServer
from holyclient.testing._vectors_fake import REJECT_MARKER, embedding_vector

KEY = "sk-holy-batch-pack-key"
MODEL = "text-embedding-3-small"


pytestmark = pytest.mark.usefixtures("api_key_env")


def _text(i: int) -> str:
    return f"chunk number {i} of the corpus"


def _line(i: int, text: str | None = None, **body: Any) -> dict[str, Any]:
    body = {"model": MODEL, "input": _text(i) if text is None else text, "dimensions": 3, **body}
    return {"custom_id": f"c{i}", "method": "POST", "url": "/v1/embeddings", "body": body}


def _vector(line: dict[str, Any]) -> list[float]:
    (item,) = line["response"]["body"]["data"]
    assert item["index"] == 0
    return list(item["embedding"])


def test_ten_thousand_lines_go_in_forty_requests_each_with_its_own_vector_and_a_poisoned_input_alone(
    local_server: LocalServer, tmp_path: Path
) -> None:
    poisoned = 4321
    lines = [_line(i) for i in range(10_000)]
    lines[poisoned] = _line(poisoned, f"{_text(poisoned)} {REJECT_MARKER}")
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--pack"])
    assert code == 1  # the poisoned line failed
    sent = local_server.requests
    # 40 packs of up to 256 inputs, plus the halvings that isolate the bad input (8 levels, 2 each)
    assert sum(1 for r in sent if r.status == 200) <= 40 + 8
    assert len(sent) <= 40 + 2 * 8 + 1
    written = read_results(out)
    assert len(written) == 10_000 == len(out.read_text().splitlines())
    bad = written.pop(f"c{poisoned}")
    assert bad["response"]["status_code"] == 400 and REJECT_MARKER in json.dumps(bad["response"]["body"])
    for custom_id, line in written.items():
        assert line["error"] is None and line["response"]["status_code"] == 200
        assert _vector(line) == list(embedding_vector(MODEL, _text(int(custom_id[1:])), 3)), custom_id


def test_a_packed_line_gets_its_share_of_the_usage_and_the_shares_add_up(
    local_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [_line(i, "word " * (i + 1)) for i in range(6)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--pack", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    (request,) = local_server.requests
    assert len(request.body["input"]) == 6
    written = read_results(out)
    shares = [written[f"c{i}"]["response"]["body"]["usage"]["prompt_tokens"] for i in range(6)]
    assert shares == sorted(shares) and shares[0] < shares[-1]  # longer texts, larger shares
    assert sum(shares) == summary["prompt_tokens"] == summary["models"][MODEL]["prompt_tokens"]
    assert summary["requests"] == summary["succeeded"] == 6


def test_lines_with_different_parameters_are_not_packed_together(
    local_server: LocalServer, tmp_path: Path
) -> None:
    lines = [_line(0), _line(1, dimensions=5), _line(2), _line(3, dimensions=5)]
    lines.append(
        {
            "custom_id": "chat",
            "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
        }
    )
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--pack"]) == 0
    bodies = sorted(
        (r.path, len(r.body.get("input") or []), r.body.get("dimensions")) for r in local_server.requests
    )
    assert bodies == [("/v1/chat/completions", 0, None), ("/v1/embeddings", 2, 3), ("/v1/embeddings", 2, 5)]
    written = read_results(out)
    assert len(_vector(written["c1"])) == 5 and len(_vector(written["c0"])) == 3


def test_pack_inputs_and_pack_tokens_bound_each_request(local_server: LocalServer, tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [_line(i) for i in range(50)])
    out = tmp_path / "out.jsonl"
    argv = [
        "batch",
        str(source),
        "-o",
        str(out),
        "--base-url",
        local_server.base_url,
        "--pack",
        "--pack-inputs",
        "8",
    ]
    assert main(argv) == 0
    assert sorted(len(r.body["input"]) for r in local_server.requests) == [2] + [8] * 6
    local_server.reset()
    out.unlink()
    argv = [
        "batch",
        str(source),
        "-o",
        str(out),
        "--base-url",
        local_server.base_url,
        "--pack",
        "--pack-tokens",
        "40",
    ]
    assert main(argv) == 0
    assert all(len(r.body["input"]) <= 5 for r in local_server.requests)  # 7 or 8 tokens an input
    assert len(read_results(out)) == 50


def test_resume_and_retry_failed_work_per_custom_id(local_server: LocalServer, tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [_line(i) for i in range(20)])
    out = tmp_path / "out.jsonl"
    local_server.enqueue(Fault.status(503))  # the first packed request fails (no retry allowed)
    argv = [
        "batch",
        str(source),
        "-o",
        str(out),
        "--base-url",
        local_server.base_url,
        "--pack",
        "--pack-inputs",
        "5",
    ]
    assert main([*argv, "--max-retries", "0"]) == 1
    failed = {
        custom_id
        for custom_id, line in read_results(out).items()
        if line["error"] or line["response"]["status_code"] != 200
    }
    assert len(failed) == 5 and len(read_results(out)) == 20
    local_server.reset()
    assert main([*argv, "--retry-failed"]) == 0
    (request,) = local_server.requests  # only the failed lines, packed again
    assert {f"c{_text_index(text)}" for text in request.body["input"]} == failed
    written = read_results(out)
    assert len(written) == 20 and len(out.read_text().splitlines()) == 20
    for custom_id, line in written.items():
        assert _vector(line) == list(embedding_vector(MODEL, _text(int(custom_id[1:])), 3))


def _text_index(text: str) -> int:
    return int(text.split()[2])


def test_a_line_with_several_inputs_keeps_them_together_in_order(local_server: LocalServer) -> None:
    multi = {"model": MODEL, "input": ["alpha", "beta", "gamma"], "dimensions": 3}
    requests = [BatchRequest("one", {"model": MODEL, "input": "zero", "dimensions": 3}, "/v1/embeddings")]
    requests.append(BatchRequest("multi", multi, "/v1/embeddings"))
    results: list[BatchResult] = []

    async def go() -> BatchRunner:
        async with AsyncClient(base_url=local_server.base_url) as client:
            runner = BatchRunner(client, pack_inputs=16)
            await runner.run(requests, results.append)
            return runner

    stats = anyio.run(go).stats
    assert len(local_server.requests) == 1
    assert stats.succeeded == 2 and stats.successful_attempts == 1  # mean latency per request sent
    by_id = {r.custom_id: r for r in results}
    data = by_id["multi"].body["data"]
    assert [d["index"] for d in data] == [0, 1, 2]
    assert [d["embedding"] for d in data] == [list(embedding_vector(MODEL, t, 3)) for t in multi["input"]]
    assert by_id["multi"].fingerprint != by_id["one"].fingerprint


def test_the_packer_groups_by_parameters_and_splits_in_halves() -> None:
    packer = Packer(max_inputs=3, max_tokens=1000)
    chat = BatchRequest("chat", {"model": "gpt-4o-mini", "messages": []})
    assert packer.add(chat) == [chat]
    ready = []
    for i in range(7):
        ready += packer.add(BatchRequest(f"e{i}", {"model": MODEL, "input": f"t{i}"}, "/v1/embeddings"))
    ready += packer.flush()
    assert [len(r.body["input"]) for r in ready] == [3, 3, 1]
    packed = ready[0]
    assert isinstance(packed, PackedRequest)
    left, right = split(packed)
    assert [p.custom_id for p in left.parts] == ["e0"] and left.body["input"] == ["t0"]
    assert [p.custom_id for p in right.parts] == ["e1", "e2"] and right.body["input"] == ["t1", "t2"]
    with pytest.raises(ValueError, match="2048"):
        Packer(max_inputs=2049)


def test_texts_and_token_lists_are_packed_apart() -> None:
    packer = Packer(max_inputs=8)
    for i, value in enumerate(["a", [1, 2], "b", [[3], [4, 5]]]):
        assert packer.add(BatchRequest(f"e{i}", {"model": MODEL, "input": value}, "/v1/embeddings")) == []
    assert sorted((r.body["input"] for r in packer.flush()), key=str) == [["a", "b"], [[1, 2], [3], [4, 5]]]


def test_an_answer_with_the_wrong_number_of_vectors_fails_every_line_of_the_pack() -> None:
    packer = Packer(max_inputs=2)
    packed = packer.add(BatchRequest("a", {"model": MODEL, "input": "x"}, "/v1/embeddings"))
    packed += packer.add(BatchRequest("b", {"model": MODEL, "input": "y"}, "/v1/embeddings"))
    (request,) = packed
    assert isinstance(request, PackedRequest)
    answer = {"object": "list", "data": [{"index": 0, "embedding": [1.0]}], "usage": {"prompt_tokens": 2}}
    results = unpack(request, BatchResult("x", 200, "req", answer, usage={"prompt_tokens": 2}))
    assert [r.custom_id for r in results] == ["a", "b"]
    assert all(not r.ok and r.error and r.error["code"] == "invalid_response" for r in results)


def test_dry_run_with_pack_counts_the_requests_it_would_send(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [_line(i) for i in range(600)]
    lines.append(
        {
            "custom_id": "chat",
            "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x"}]},
        }
    )
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    assert main(["batch", str(source), "--dry-run", "--pack"]) == 0
    assert "with --pack: 4 requests sent for 601 lines" in capsys.readouterr().out  # 256 + 256 + 88, + chat
    assert main(["batch", str(source), "--dry-run", "--pack", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["requests_with_pack"] == 4


def test_a_pack_refused_for_a_parameter_fails_once_instead_of_halving_down_to_every_line(
    local_server: LocalServer, tmp_path: Path
) -> None:
    # dimensions 9000 is refused whatever the inputs (param "dimensions"): halving cannot isolate a line,
    # it only sends 2N-1 requests (127 for 64 lines) to learn the same error 64 times.
    source = write_jsonl(tmp_path / "in.jsonl", [_line(i, dimensions=9000) for i in range(64)])
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--pack"]) == 1
    assert len(local_server.requests) == 1
    written = read_results(out)
    assert len(written) == 64
    for line in written.values():
        assert line["response"]["status_code"] == 400
        assert line["response"]["body"]["error"]["param"] == "dimensions"
