"""``holyclient compare``: its pieces (similarity, gates, bootstrap, streams) and the proof against two
local servers -- same model (only sampling noise) passes the gates, a different model fails them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.compare import GateError, Output, evaluate, parse_gate, similarity
from holyclient.compare._stats import bootstrap_ratio_ci, percentile
from holyclient.compare._streams import assemble
from holyclient.testing import LocalServer

KEY = "sk-compare-secret-456"
GATES = ("similarity>=noise-0.05", "error_rate<=0.01", "token_ratio<=1.05")


# -- the pieces ----------------------------------------------------------------------------------
def test_similarity_is_exact_normalised_structural_or_fuzzy():
    assert similarity(Output("text", "Hello  World"), Output("text", "Hello  World")).method == "exact"
    assert similarity(Output("text", "Hello  World"), Output("text", "hello world")).score == 1.0
    same_json = similarity(Output("json", {"a": 1, "b": [1, 2]}), Output("json", {"b": [1, 2], "a": 1}))
    assert (same_json.score, same_json.method) == (1.0, "json")
    assert similarity(Output("json", {"a": 1, "b": 2}), Output("json", {"a": 1, "b": 3})).score == 0.5
    fuzzy = similarity(Output("text", "the cat sat on the mat"), Output("text", "the cat sat on a mat"))
    assert fuzzy.method == "fuzzy" and 0.8 < fuzzy.score < 1.0
    assert similarity(Output("error", "HTTP 500"), Output("text", "x")).score == 0.0


@pytest.mark.parametrize(
    ("text", "metric", "threshold"),
    [("p95_ratio<=1.3", "p95_ratio", 1.3), ("similarity >= noise - 0.05", "similarity", 0.85)],
)
def test_gates_parse_numbers_and_the_noise_floor(text, metric, threshold):
    gate = parse_gate(text)
    assert gate.metric == metric and gate.threshold(0.9) == pytest.approx(threshold)


@pytest.mark.parametrize(
    "text", ["p95_ratio", "p95<=1", "similarity>=noise-", "noise>=noise", "cost_ratio<=x"]
)
def test_a_malformed_gate_is_refused(text):
    with pytest.raises(GateError):
        parse_gate(text)


def test_a_gate_on_an_unmeasured_metric_fails_saying_why():
    result = evaluate(parse_gate("ttft_p95_ratio<=1.2"), {"ttft_p95_ratio": None})
    assert not result.passed and result.reason == "ttft_p95_ratio was not measured"


def test_the_bootstrap_interval_brackets_the_observed_ratio():
    pairs = [(0.1 + i / 1000, 0.2 + i / 500) for i in range(50)]
    observed = percentile([n for _, n in pairs], 95) / percentile([o for o, _ in pairs], 95)
    low, high = bootstrap_ratio_ci(pairs, 95)
    assert low <= observed <= high


def test_a_stream_is_assembled_into_one_completion():
    events = [
        b'{"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
        b'{"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"content":"Hel"}}]}',
        b'{"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}',
        b'{"id":"c","model":"m","created":1,"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}',
        b"[DONE]",
    ]
    completion, error = assemble(events)
    assert error is None
    assert completion["choices"][0]["message"]["content"] == "Hello"
    assert completion["usage"]["total_tokens"] == 4


# -- the proof against local servers -------------------------------------------------------------
def _sample(path: Path, n: int = 16) -> Path:
    lines = []
    for i in range(n):
        body: dict = {
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "user", "content": f"Tell me about topic number {i} in a few words please"}
            ],
            "max_tokens": 40,
        }
        if i % 4 == 1:
            body["response_format"] = {"type": "json_object"}
        if i % 4 == 2:
            body["stream"] = True
        lines.append(
            json.dumps({"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": body})
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def _compare(
    tmp_path: Path, old: LocalServer, new: LocalServer, capsys, *extra: str
) -> tuple[int, dict, str]:
    sample = _sample(tmp_path / "sample.jsonl")
    capsys.readouterr()
    argv = ["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--repeat", "2", "--json"]
    for gate in GATES:
        argv += ["--gate", gate]
    code = main([*argv, *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


@pytest.fixture
def old_server():
    with LocalServer(noise=0.1, seed=1) as server:
        yield server


def test_compare_passes_when_the_new_endpoint_is_the_same_model(tmp_path, capsys, monkeypatch, old_server):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    with LocalServer(noise=0.1, seed=2) as new:
        code, report, _ = _compare(tmp_path, old_server, new, capsys)
    metrics = report["metrics"]
    assert code == 0 and report["passed"], report["gates"]
    # Outputs differ (sampling noise) but no more than the old endpoint differs from itself.
    assert metrics["similarity"] < 1.0 and metrics["noise"] < 1.0
    assert metrics["similarity"] >= metrics["noise"] - 0.05
    assert metrics["old_prompt_tokens"] == metrics["new_prompt_tokens"]
    streamed = [r for r in report["requests"] if r["stream"]]
    assert streamed and all(r["old"]["ttft_s"] is not None for r in streamed)
    json_rows = [r for r in report["requests"] if r["similarity_method"] == "json"]
    assert json_rows and all(r["similarity"] == 1.0 for r in json_rows)


def test_compare_fails_when_the_new_endpoint_is_a_different_model(tmp_path, capsys, monkeypatch, old_server):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    with LocalServer(noise=0.1, seed=2, persona="other") as new:
        code, report, _ = _compare(tmp_path, old_server, new, capsys)
    gates = {g["gate"]: g for g in report["gates"]}
    assert code == 1 and not report["passed"]
    # The noise floor explains the verdict: the old endpoint agrees with itself far more than with new.
    assert gates["similarity>=noise-0.05"]["passed"] is False
    assert report["metrics"]["noise"] - report["metrics"]["similarity"] > 0.2
    assert gates["token_ratio<=1.05"]["passed"] is False
    assert gates["error_rate<=0.01"]["passed"] is True


def test_compare_sends_each_key_to_its_own_side_and_writes_no_key(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OLD_KEY", "sk-old-secret-789")
    monkeypatch.setenv("NEW_KEY", "sk-new-secret-012")
    monkeypatch.delenv("HOLYSHEEP_API_KEY", raising=False)
    # Each server accepts only its own key: a key sent to the wrong side would be a 401 and fail a gate.
    with (
        LocalServer(noise=0.1, seed=1, api_key="sk-old-secret-789") as old,
        LocalServer(noise=0.1, seed=2, api_key="sk-new-secret-012") as new,
    ):
        for name in ("report.json", "report.html"):
            code, _, err = _compare(
                tmp_path, old, new, capsys, "--old-key-env", "OLD_KEY", "--new-key-env", "NEW_KEY",
                "-o", str(tmp_path / name),
            )  # fmt: skip
            assert code == 0, err
        statuses = {r.status for r in old.requests + new.requests}
    assert statuses == {200}
    written = (tmp_path / "report.json").read_text() + (tmp_path / "report.html").read_text()
    assert "sk-old-secret" not in written and "sk-new-secret" not in written
    assert json.loads((tmp_path / "report.json").read_text())["passed"] is True


def test_compare_refuses_to_start_above_the_budget(tmp_path, capsys, monkeypatch, old_server):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    with LocalServer() as new:
        code, report, err = _compare(tmp_path, old_server, new, capsys, "--budget", "0.0000001")
        sent = new.stats["requests"] + old_server.stats["requests"]
    assert code == 1 and report == {} and sent == 0
    assert "exceeds --budget" in err


def test_a_cheaper_new_model_passes_the_cost_gate_and_a_dearer_one_fails_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=4)
    verdicts = {}
    with LocalServer() as server:
        for new_model in ("gpt-4.1-nano", "gpt-4.1"):
            capsys.readouterr()
            code = main(
                ["compare", str(sample), "--old", server.base_url, "--new", server.base_url,
                 "--old-model", "gpt-4.1-mini", "--new-model", new_model, "--gate", "cost_ratio<=0.5", "--json"]
            )  # fmt: skip
            report = json.loads(capsys.readouterr().out)
            verdicts[new_model] = (code, report["metrics"]["cost_ratio"])
        models = {r.body["model"] for r in server.requests if r.body}
    assert verdicts["gpt-4.1-nano"][0] == 0 and verdicts["gpt-4.1-nano"][1] < 0.5
    assert verdicts["gpt-4.1"][0] == 1 and verdicts["gpt-4.1"][1] > 1
    assert models == {"gpt-4.1-mini", "gpt-4.1-nano", "gpt-4.1"}


def test_a_much_slower_new_endpoint_fails_the_latency_gate(tmp_path, capsys, monkeypatch, old_server):
    # Not a speed assertion: the new side waits 300 ms before every answer, the old side not at all, so
    # the p95 ratio is far above 1.3 however loaded the machine is.
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=6)
    with LocalServer(latency=0.3) as new:
        capsys.readouterr()
        code = main(
            ["compare", str(sample), "--old", old_server.base_url, "--new", new.base_url,
             "--gate", "p95_ratio<=1.3", "--gate", "ttft_p95_ratio<=1.3", "--json"]
        )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [g["passed"] for g in report["gates"]] == [False, False]
    assert report["metrics"]["p95_ratio_ci_low"] > 1.3


def test_old_and_new_are_replayed_at_the_same_time(tmp_path, capsys, monkeypatch):
    # Run one after the other, the first side paid for every first-use cost and a busy minute fell on one
    # side only: the same server measured 3x slower as "old" than as "new".
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=8)
    with LocalServer(latency=0.05) as server:
        code = main(
            ["compare", str(sample), "--old", server.base_url, "--new", server.base_url,
             "--old-model", "gpt-4.1-mini", "--new-model", "gpt-4.1-nano", "--concurrency", "2", "--json"]
        )  # fmt: skip
        arrivals = [(r.time, r.body["model"]) for r in server.requests if r.body]
    assert code == 0, capsys.readouterr().err
    old = [t for t, model in arrivals if model == "gpt-4.1-mini"]
    new = [t for t, model in arrivals if model == "gpt-4.1-nano"]
    assert min(new) < max(old) and min(old) < max(new)


def test_credentials_in_a_base_url_are_not_written_into_the_report():
    from holyclient.compare._report import safe_url

    assert (
        safe_url("https://user:s3cret@api.example.com:8443/v1?api-key=s3cret")
        == "https://api.example.com:8443/v1"
    )
    assert safe_url("http://[::1]:8080/v1") == "http://[::1]:8080/v1"


def test_a_stream_cut_part_way_is_retried_not_a_crash(tmp_path, capsys, monkeypatch):
    from holyclient.testing import Fault

    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    line = {"custom_id": "s", "body": {"model": "gpt-4o-mini", "stream": True, "max_tokens": 20,
            "messages": [{"role": "user", "content": "a fairly long question to stream back in pieces"}]}}  # fmt: skip
    sample = tmp_path / "sample.jsonl"
    sample.write_text(json.dumps(line) + "\n")
    cuts: list[str] = []

    def cut_the_first_stream(record):
        if isinstance(record.body, dict) and record.body.get("stream") and not cuts:
            cuts.append(record.id)
            return Fault.stream_cut(after_chunks=2)
        return None

    with LocalServer() as old, LocalServer(hook=cut_the_first_stream) as new:
        capsys.readouterr()
        code = main(["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--json"])
        out, err = capsys.readouterr()
        faults = new.stats["by_fault"]
    assert code == 0, err
    assert faults == {"stream_cut": 1}
    report = json.loads(out)["requests"][0]
    assert report["new"]["error"] is None and report["similarity"] == 1.0


def test_a_rerun_with_state_sends_only_what_the_interrupted_run_did_not_receive(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=6)
    state = tmp_path / "state.jsonl"

    def chats(server: LocalServer) -> int:
        return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))

    with LocalServer(noise=0.1, seed=1) as old, LocalServer(noise=0.1, seed=2) as new:
        argv = ["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--repeat", "2",
                "--state", str(state), "--gate", "similarity>=noise-0.05", "--json"]  # fmt: skip
        assert main(argv) == 0
        first = json.loads(capsys.readouterr().out)
        assert (chats(old), chats(new)) == (12, 6)
        # As if killed part-way: only the first 7 answers (and half a line) reached the state file.
        lines = state.read_text().splitlines(keepends=True)
        assert len(lines) == 18
        state.write_text("".join(lines[:7]) + lines[7][:20])
        old.reset()
        new.reset()
        assert main(argv) == 0
        second = json.loads(capsys.readouterr().out)
        assert chats(old) + chats(new) == 18 - 7
        old.reset()
        new.reset()
        assert main(argv) == 0  # everything is in the state now: nothing is sent at all
        third = json.loads(capsys.readouterr().out)
        assert old.stats["requests"] + new.stats["requests"] == 0
    # The third report is built from the state alone: the same answers as the second one saw.
    assert [r["new"]["output"] for r in third["requests"]] == [r["new"]["output"] for r in second["requests"]]
    assert third["metrics"]["similarity"] == second["metrics"]["similarity"]
    assert first["passed"] and second["passed"] and third["passed"]
    assert KEY not in state.read_text()


def test_a_changed_request_is_sent_again_despite_the_state(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=3)
    state = tmp_path / "state.jsonl"
    with LocalServer() as old, LocalServer() as new:
        argv = ["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--state", str(state)]
        assert main(argv) == 0
        sample.write_text(sample.read_text().replace("topic number 0", "topic number zero"))
        new.reset()
        assert main(argv) == 0
        sent = [r.body["messages"][0]["content"] for r in new.requests if r.body]
    assert sent == ["Tell me about topic number zero in a few words please"]


def test_a_state_recorded_against_another_endpoint_is_refused_and_nothing_is_sent(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=3)
    state = tmp_path / "state.jsonl"
    with LocalServer() as old, LocalServer() as new, LocalServer() as other:
        argv = ["compare", str(sample), "--old", old.base_url, "--state", str(state)]
        assert main([*argv, "--new", new.base_url]) == 0
        old.reset()
        capsys.readouterr()
        code = main([*argv, "--new", other.base_url])
        sent = old.stats["requests"] + other.stats["requests"]
        urls = new.base_url, other.base_url
    err = capsys.readouterr().err
    assert code == 2, err
    assert sent == 0  # before: nothing went to the other endpoint, and new's answers were reported as its
    recorded_from, now = urls
    line = (
        re.escape(f"{state}:")
        + r"\d+: "
        + re.escape(f"endpoint: the answers of pass 'new' were recorded from {recorded_from}")
    )
    assert re.search(line, err), err
    assert f"not --new {now}" in err


def test_requests_that_fail_on_the_new_side_are_listed_and_counted(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl", n=4)
    with LocalServer() as old, LocalServer(disabled_features={"json_object"}) as new:
        capsys.readouterr()
        code = main(
            [
                "compare",
                str(sample),
                "--old",
                old.base_url,
                "--new",
                new.base_url,
                "--gate",
                "error_rate<=0.01",
            ]
        )
        out = capsys.readouterr().out
    assert code == 1
    assert "errors: 1\n  r1 (new): HTTP 400: Unsupported parameter: 'response_format'" in out
    assert "FAIL error_rate<=0.01: error_rate = 0.25 fails <= 0.01" in out


def test_a_long_comparison_prints_plain_progress_lines(tmp_path, capsys, monkeypatch):
    from holyclient._cli import compare as compare_cli

    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    monkeypatch.setattr(compare_cli, "PROGRESS_SECONDS", 0.05)
    sample = _sample(tmp_path / "sample.jsonl", n=4)
    with LocalServer() as old, LocalServer(latency=0.3) as new:
        capsys.readouterr()
        assert main(["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--json"]) == 0
        err = capsys.readouterr().err
    assert "holyclient compare: answers so far: " in err and "\r" not in err


def test_embedding_similarity_is_measured_with_its_own_noise_floor(tmp_path, capsys, monkeypatch, old_server):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    with LocalServer(noise=0.1, seed=2, persona="other") as new:
        code, report, _ = _compare(
            tmp_path, old_server, new, capsys, "--embedding-model", "text-embedding-3-small",
            "--gate", "embedding_similarity>=noise-0.05",
        )  # fmt: skip
        embedded = [r for r in old_server.requests if r.path.endswith("/embeddings")]
    metrics = report["metrics"]
    assert embedded and not [r for r in new.requests if r.path.endswith("/embeddings")]
    assert metrics["embedding_similarity"] is not None and metrics["embedding_noise"] is not None
    prose = [r for r in report["requests"] if r["similarity_method"] == "fuzzy"]
    assert prose and all(r["embedding_similarity"] is not None for r in prose)
    gate = next(g for g in report["gates"] if g["gate"] == "embedding_similarity>=noise-0.05")
    assert gate["threshold"] == pytest.approx(metrics["embedding_noise"] - 0.05)
    assert code == 1


def test_an_endpoint_without_embeddings_leaves_embedding_similarity_unmeasured(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    with LocalServer(disabled_features={"embeddings"}) as old, LocalServer() as new:
        code, report, err = _compare(
            tmp_path, old, new, capsys, "--embedding-model", "text-embedding-3-small"
        )
    assert code == 0
    assert report["metrics"]["embedding_similarity"] is None
    assert "--embedding-model: no embeddings (NotFoundError" in err


# -- every endpoint the recorder and the mirror write --------------------------------------------
def _mirror_every_endpoint(old: LocalServer, new: LocalServer, path: Path) -> None:
    from holyclient import Router, Target

    with Router(
        [Target(old.base_url, api_key=KEY, name="old")],
        shadow=Target(new.base_url, api_key=KEY, name="new"),
        mirror=1.0,
        mirror_to=path,
        mirror_concurrency=5,  # the five copies may all be in flight at once: none may be dropped
        max_retries=0,
    ) as router:
        router.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
        router.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say hi", max_tokens=8)
        router.responses.create(model="gpt-4o-mini", input="Say hi")
        router.embeddings.create(model="text-embedding-3-small", input=["one", "two"])
        router.moderations.create(model="omni-moderation-latest", input="a kind word")


def test_compare_replays_a_mirror_file_of_every_endpoint_and_judges_each(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    pairs = tmp_path / "pairs.jsonl"
    with LocalServer(seed=1) as old, LocalServer(seed=1) as new:
        _mirror_every_endpoint(old, new, pairs)
        urls = [json.loads(line)["url"] for line in pairs.read_text().splitlines()]
        assert len(urls) == 5, urls
        capsys.readouterr()
        code = main(["compare", str(pairs), "--old", old.base_url, "--new", new.base_url, "--json"])
        out, err = capsys.readouterr()
    assert code == 0, err
    rows = {row["custom_id"]: row for row in json.loads(out)["requests"]}
    by_url = dict(zip(urls, rows.values(), strict=True))
    methods = {url: row["similarity_method"] for url, row in by_url.items()}
    assert methods["/v1/embeddings"] == "cosine"
    assert methods["/v1/moderations"] == "json"
    for url, row in by_url.items():  # the same model on both sides: every answer judged alike
        assert row["old"]["error"] is None and row["new"]["error"] is None, (url, row)
        assert row["similarity"] == pytest.approx(1.0), (url, row)
        assert row["old"]["output"] and "error" not in row["old"]["output"], (url, row)


def test_each_endpoints_answer_is_reduced_to_what_can_be_judged():
    from holyclient.compare import output_of

    assert output_of({"choices": [{"text": "hello"}]}, False, "/v1/completions") == Output("text", "hello")
    response = {
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "content": [{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}],
            },
        ]
    }
    assert output_of(response, False, "/v1/responses") == Output("text", "ab")
    assert output_of(
        {"output": [{"type": "message", "content": [{"type": "output_text", "text": '{"x": 1}'}]}]},
        True,
        "/v1/responses",
    ) == Output("json", {"x": 1})
    call = {"output": [{"type": "function_call", "name": "f", "arguments": '{"a": 2}'}]}
    assert output_of(call, False, "/v1/responses") == Output("json", [{"name": "f", "arguments": {"a": 2}}])
    # base64 float32 little-endian [1.0, 0.0] and a float vector, out of order by index
    embeddings = {"data": [{"index": 1, "embedding": [0.0, 1.0]}, {"index": 0, "embedding": "AACAPwAAAAA="}]}
    assert output_of(embeddings, False, "/v1/embeddings") == Output("vector", [[1.0, 0.0], [0.0, 1.0]])
    moderation = {
        "results": [{"flagged": True, "categories": {"hate": True}, "category_scores": {"hate": 0.9}}]
    }
    assert output_of(moderation, False, "/v1/moderations") == Output(
        "json", [{"flagged": True, "categories": {"hate": True}}]
    )
    assert output_of({"data": "x"}, False, "/v1/embeddings").kind == "error"


def test_vectors_are_judged_by_cosine_and_a_shape_mismatch_scores_zero():
    same = similarity(Output("vector", [[1.0, 0.0]]), Output("vector", [[2.0, 0.0]]))
    assert (same.score, same.method) == (1.0, "cosine")
    assert similarity(Output("vector", [[1.0, 0.0]]), Output("vector", [[1.0, 1.0]])).score == pytest.approx(
        0.7071, abs=1e-4
    )
    assert similarity(Output("vector", [[1.0, 0.0]]), Output("vector", [[-1.0, 0.0]])).score == 0.0
    assert similarity(Output("vector", [[1.0, 0.0]]), Output("vector", [[1.0, 0.0, 0.0]])).score == 0.0
    assert similarity(Output("vector", [[1.0]]), Output("vector", [[1.0], [1.0]])).score == 0.0
