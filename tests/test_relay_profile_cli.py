"""``doctor``, ``estimate``, ``batch`` and ``compare`` tried on Claude, Gemini and DeepSeek against the relay
profile of the local server, one test per family, as they behave on the relay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holyclient._cli import main
from holyclient.testing import LocalServer
from test_serve_cli import _serve

KEY = "sk-relay-cli"
FAMILIES = ["claude-sonnet-4.5", "gemini-2.5-flash", "deepseek-v3.2"]
#: Per family, the doctor rows that differ from OpenAI's, as the capabilities table says.
DIFFERENCES = {
    "claude-sonnet-4.5": {"json_schema": "different", "json_object": "different", "n > 1": "not supported"},
    "gemini-2.5-flash": {"json_schema": "supported", "logprobs": "not supported"},
    "deepseek-v3.2": {"json_schema": "not supported", "json_object": "supported", "logprobs": "supported"},
}


@pytest.fixture(scope="module")
def relay() -> Any:
    with LocalServer(profile="holysheep", api_key=KEY) as server:
        yield server


def _line(custom_id: str, model: str, content: str, **body: Any) -> str:
    request = {"model": model, "messages": [{"role": "user", "content": content}], "max_tokens": 40, **body}
    return json.dumps(
        {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": request}
    )


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("model", FAMILIES)
def test_doctor_passes_its_required_checks_and_shows_the_familys_differences(
    relay: Any, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys, "doctor", "--base-url", relay.base_url, "--api-key", KEY, "--model", model, "--json"
    )
    report = json.loads(out)
    rows = {row["feature"]: row for row in report["rows"]}
    assert code == 0 and report["ok"] is True
    assert rows["GET /models"]["evidence"].endswith(f"{model} listed")
    assert rows["404 unknown model"]["verdict"] == "supported"
    for feature, verdict in DIFFERENCES[model].items():
        assert rows[feature]["verdict"] == verdict, rows[feature]


def test_doctor_saves_what_each_model_can_do_and_a_new_run_replaces_only_that_model(
    relay: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "capabilities.json"
    argv = ["doctor", "--base-url", relay.base_url, "--api-key", KEY, "--save-capabilities", str(path)]
    for model in FAMILIES:
        code, _, err = _run(capsys, *argv, "--model", model)
        assert code == 0 and f"HOLYSHEEP_CAPABILITIES={path}" in err
    first = json.loads(path.read_text())["models"]
    assert {m: first[m]["json_schema"] for m in FAMILIES} == {
        "claude-sonnet-4.5": False,
        "gemini-2.5-flash": True,
        "deepseek-v3.2": False,
    }
    assert first["claude-sonnet-4.5"]["n"] is False and first["gemini-2.5-flash"]["logprobs"] is False
    assert all(first[m]["base_url"] == relay.base_url and first[m]["tools"] is True for m in FAMILIES)
    assert _run(capsys, *argv, "--model", "deepseek-v3.2")[0] == 0
    again = json.loads(path.read_text())["models"]
    assert again["claude-sonnet-4.5"] == first["claude-sonnet-4.5"]
    assert again["deepseek-v3.2"]["probed_at"] >= first["deepseek-v3.2"]["probed_at"]


def test_doctor_refused_key_writes_no_capabilities(
    relay: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "capabilities.json"
    argv = ["doctor", "--base-url", relay.base_url, "--api-key", "sk-wrong", "--save-capabilities", str(path)]
    assert _run(capsys, *argv)[0] == 2
    assert not path.exists()


@pytest.mark.slow
def test_doctor_against_serve_with_the_relay_profile_passes_and_against_the_default_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with _serve("--profile", "holysheep") as (url, _base_line, key_line):
        assert key_line == "export HOLYSHEEP_API_KEY=sk-local"
        monkeypatch.setenv("HOLYSHEEP_API_KEY", "sk-local")
        code, _, err = _run(capsys, "doctor", "--base-url", url, "--model", "claude-sonnet-4.5")
        assert code == 0, err
    with _serve() as (url, _base_line, _key_line):
        code, _, err = _run(capsys, "doctor", "--base-url", url, "--model", "claude-sonnet-4.5")
        assert code == 1 and "GET /models" in err  # what the issue found: not listed, and any key taken


@pytest.mark.parametrize("model", FAMILIES)
def test_estimate_prices_the_workload_on_each_family(
    model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "requests.jsonl"
    source.write_text(_line("r1", "gpt-4.1", "Tell me about Paris in a few words") + "\n")
    code, out, _ = _run(capsys, "estimate", str(source), "--model", model, "--json")
    total = json.loads(out)["total"]
    assert code == 0 and total["cost_usd"] > 0 and total["unpriced_models"] == []
    assert total["count_method"] == "approximate"  # no tokenizer of theirs: a range, as the relay bills


@pytest.mark.parametrize("model", FAMILIES)
def test_batch_runs_on_each_family_and_a_model_the_relay_lacks_fails_alone(
    relay: Any,
    model: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    source, out = tmp_path / "batch.jsonl", tmp_path / "out.jsonl"
    lines = [
        _line("a", model, "Tell me about Paris"),
        _line("b", model, "Answer in json: the capital of France", response_format={"type": "json_object"}),
        _line("c", "claude-sonnet-45", "a typo the relay does not serve"),
    ]
    source.write_text("\n".join(lines) + "\n")
    argv = ["batch", str(source), "-o", str(out), "--base-url", relay.base_url]
    code, _, err = _run(capsys, *argv, "--allow-unknown-models")  # batch itself refuses the typo otherwise
    results = {r["custom_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert code == 1 and "1 failed" in err
    assert results["c"]["response"]["status_code"] == 404
    for custom_id in ("a", "b"):
        body = results[custom_id]["response"]["body"]
        assert results[custom_id]["response"]["status_code"] == 200 and body["model"] == model
    answer = results["b"]["response"]["body"]["choices"][0]["message"]["content"]
    assert answer.startswith("Echo:") == (model == "claude-sonnet-4.5")  # Claude ignores JSON mode


@pytest.mark.parametrize("model", FAMILIES)
def test_compare_moves_a_gpt_sample_to_each_family(
    relay: Any,
    model: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = tmp_path / "sample.jsonl"
    lines = [
        _line("r1", "gpt-4.1", "Tell me about Paris in a few words"),
        _line(
            "r2", "gpt-4.1", "Reply in json: the capital of France", response_format={"type": "json_object"}
        ),
    ]
    sample.write_text("\n".join(lines) + "\n")
    argv = ["compare", str(sample), "--old", relay.base_url, "--new", relay.base_url, "--new-model", model]
    code, out, _ = _run(capsys, *argv, "--gate", "error_rate<=0", "--json")
    report = json.loads(out)
    assert code == 0 and report["new"]["model"] == model and report["metrics"]["new_cost_usd"] > 0
    json_answer = report["requests"][1]["new"]["output"]
    assert json_answer.startswith("Echo:") == (model == "claude-sonnet-4.5")
