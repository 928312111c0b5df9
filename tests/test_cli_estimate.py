"""`holyclient estimate` and `holyclient models`: every input form, the outputs, and every bad-input path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.pricing import DEFAULT_OUTPUT_TOKENS
from holyclient.tokens import count_messages

DATA = Path(__file__).parent / "data" / "estimate"
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi"}]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["estimate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv: str) -> dict:
    code, out, err = _run(capsys, "--json", *argv)
    assert code == 0, err
    return json.loads(out)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_json_array_of_messages_is_one_request(capsys):
    doc = _json(capsys, str(DATA / "messages.json"), "--model", "gpt-4.1")
    [request] = doc["requests"]
    assert request["input_tokens"] == count_messages(MESSAGES, "gpt-4.1").tokens
    assert (request["output_tokens"], request["output_assumed"]) == (DEFAULT_OUTPUT_TOKENS, True)
    assert request["model"] == "gpt-4.1" and request["approximate"] is False
    expected = (request["input_tokens"] * 2.0 + DEFAULT_OUTPUT_TOKENS * 8.0) / 1e6
    assert request["cost_usd"] == pytest.approx(expected)
    assert doc["total"]["cost_usd"] == pytest.approx(expected)


def test_a_pretty_printed_chat_body_uses_its_model_and_max_tokens(capsys):
    [request] = _json(capsys, str(DATA / "body.json"))["requests"]
    assert (request["model"], request["output_tokens"], request["output_assumed"]) == (
        "gpt-4.1-mini",
        100,
        False,
    )
    body = json.loads((DATA / "body.json").read_text())
    tokens = count_messages(body["messages"], "gpt-4.1-mini", tools=body["tools"]).tokens
    assert request["input_tokens"] == tokens


def test_jsonl_bodies_give_one_entry_per_request_in_input_order(capsys):
    doc = _json(capsys, str(DATA / "requests.jsonl"))
    models = [r["model"] for r in doc["requests"]]
    assert models == ["gpt-4o", "deepseek-v3.2", "claude-sonnet-4.5", "text-embedding-3-small"]
    assert [r["source"].rsplit(":", 1)[1] for r in doc["requests"]] == ["1", "3", "4", "5"]  # blank line 2
    assert [r["approximate"] for r in doc["requests"]] == [False, True, True, False]
    assert doc["requests"][3]["output_tokens"] == 0  # embeddings have no output
    assert doc["total"]["requests"] == 4
    assert doc["total"]["approximate"] is True
    assert sum(r["cost_usd"] for r in doc["requests"]) == pytest.approx(doc["total"]["cost_usd"])


def test_openai_batch_input_lines_are_read_with_their_custom_id(capsys):
    doc = _json(capsys, str(DATA / "batch.jsonl"))
    assert [r["custom_id"] for r in doc["requests"]] == ["req-1", "req-2"]
    assert doc["requests"][1]["output_tokens"] == 50


def test_stdin_is_read_with_a_dash(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(MESSAGES)))
    doc = _json(capsys, "-", "--model", "gpt-4o")
    assert doc["requests"][0]["source"] == "<stdin>:1"


def test_model_flag_overrides_each_request(capsys):
    doc = _json(capsys, str(DATA / "requests.jsonl"), "--model", "gpt-4.1-nano")
    assert {r["model"] for r in doc["requests"]} == {"gpt-4.1-nano"}


def test_the_table_shows_rows_totals_and_the_legend(capsys):
    code, out, _ = _run(capsys, str(DATA / "requests.jsonl"))
    assert code == 0
    assert "REQUEST" in out and "COST CNY" in out
    assert "requests.jsonl:4" in out and "claude-sonnet-4.5" in out
    assert "~" in out and "approximate" in out
    assert "*" in out and "assumed output" in out
    summary = _run(capsys, str(DATA / "requests.jsonl"), "--summary")[1]
    assert "requests.jsonl:4" not in summary and "total" in summary


def test_compare_prices_the_same_workload_cheapest_first(capsys):
    code, out, _ = _run(
        capsys, str(DATA / "batch.jsonl"), "--compare", "gpt-4.1,deepseek-v3.2,claude-sonnet-4.5"
    )
    assert code == 0
    lines = [line for line in out.splitlines() if "x " in line]
    assert [line.split()[1] for line in lines] == ["deepseek-v3.2", "gpt-4.1", "claude-sonnet-4.5"]
    doc = _json(capsys, str(DATA / "batch.jsonl"), "--compare", "claude-sonnet-4.5,gpt-4.1")
    ranked = doc["total"]["models"]
    assert [m["model"] for m in ranked] == ["gpt-4.1", "claude-sonnet-4.5"]
    assert ranked[0]["cost_usd"] < ranked[1]["cost_usd"]
    assert [e["model"] for e in doc["requests"][0]["estimates"]] == ["claude-sonnet-4.5", "gpt-4.1"]


def test_compare_all_lists_every_chat_model(capsys):
    doc = _json(capsys, str(DATA / "messages.json"), "--compare", "all")
    names = [m["model"] for m in doc["total"]["models"]]
    assert {"gpt-4.1", "deepseek-v3.2", "gemini-2.5-flash", "gpt-4"} <= set(names)
    assert "text-embedding-3-small" not in names
    costs = [m["cost_usd"] for m in doc["total"]["models"]]
    assert costs == sorted(costs)


def test_cny_rate_output_tokens_and_image_size_flags(capsys, tmp_path):
    body = {
        "model": "gpt-4o",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": "https://x.invalid/a.png"}}],
            }
        ],
    }
    path = _write(tmp_path, "img.json", json.dumps(body))
    small = _json(capsys, path, "--image-size", "512x512", "--output-tokens", "0", "--cny-rate", "7")
    big = _json(capsys, path, "--output-tokens", "0")
    assert big["requests"][0]["input_tokens"] - small["requests"][0]["input_tokens"] == 765 - 255
    assert small["requests"][0]["cost_cny"] == pytest.approx(7 * small["requests"][0]["cost_usd"])
    assert small["total"]["cny_rate"] == 7


def test_prices_file_adds_a_model(capsys, tmp_path):
    prices = _write(tmp_path, "prices.json", '{"models": {"house-llm": {"input": 1, "output": 1}}}')
    doc = _json(capsys, str(DATA / "messages.json"), "--model", "house-llm", "--prices", prices)
    assert doc["requests"][0]["model"] == "house-llm"
    assert doc["requests"][0]["approximate"] is True


def test_max_cost_exceeded_exits_1(capsys):
    code, out, err = _run(capsys, str(DATA / "body.json"), "--max-cost", "0.0000001")
    assert code == 1 and "exceeds --max-cost" in err and "total" in out
    assert _run(capsys, str(DATA / "body.json"), "--max-cost", "100")[0] == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"model": "gpt-4o", "messages": []}\n{"model": oops}\n', r"bad\.jsonl:2:11: invalid JSON"),
        (
            '{\n  "model": "gpt-4o",\n  "messages": [\n    {"role": "user",}\n  ]\n}\n',
            r"bad\.jsonl:4:21: invalid JSON",
        ),
        (
            '{"model": "gpt-4o", "messages": [{"content": "hi"}]}\n',
            r"bad\.jsonl:1: field 'messages\[0\]\.role'",
        ),
        ('{"model": "gpt-4o", "messages": "hi"}\n', r"bad\.jsonl:1: field 'messages' must be a list"),
        ('{"model": "gpt-4o", "messages": [], "max_tokens": "lots"}\n', r"field 'max_tokens' must be"),
        ('{"custom_id": "a", "body": []}\n', r"bad\.jsonl:1: field 'body' must be an object"),
        ('{"custom_id": "a", "url": "/v1/files", "body": {}}\n', r"field 'url'"),
        ('{"custom_id": "a", "body": {"model": "gpt-4o"}}\n', r"field 'body\.messages'"),
        ('{"prompt": "hi"}\n', r"bad\.jsonl:1: expected a chat request .* found 'prompt'"),
        ("[1, 2]\n", r"bad\.jsonl:1: expected a JSON array of chat messages"),
        ('"hello"\n', r"bad\.jsonl:1: expected a JSON object, got a string"),
        ('{"messages": [{"role": "user", "content": "hi"}]}\n', r"bad\.jsonl:1: no model"),
        ("\n\n", r"bad\.jsonl: empty input"),
        (
            '{"model": "gpt-4o", "messages": [{"role": "user", "content": 5}]}\n',
            r"field 'messages\[0\]\.content'",
        ),
    ],
)
def test_bad_input_names_file_line_and_field_and_exits_2_with_nothing_on_stdout(
    capsys, tmp_path, content, message
):
    path = _write(tmp_path, "bad.jsonl", content)
    code, out, err = _run(capsys, str(DATA / "body.json"), path)
    assert code == 2
    assert out == ""
    assert err.startswith("holyclient estimate: ")
    assert "Traceback" not in err
    assert __import__("re").search(message, err), err


def test_a_missing_file_and_invalid_utf8_exit_2(capsys, tmp_path):
    code, _, err = _run(capsys, str(tmp_path / "nope.jsonl"))
    assert code == 2 and "nope.jsonl: cannot open" in err
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "caf\xe9"}]}\n')
    code, _, err = _run(capsys, str(path))
    assert code == 2 and "latin1.jsonl:1: not UTF-8 text" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--model", ""],
        ["--compare", ""],
        ["--cny-rate", "0"],
        ["--output-tokens", "1e23"],
        ["--json", "--summary"],
        ["--compare", ","],
        ["--image-size", "big"],
        ["--output-tokens", "-3"],
        ["--cny-rate", "cheap"],
        ["--prices", "/nonexistent/prices.json"],
    ],
)
def test_bad_flags_exit_2(capsys, argv):
    code, out, _ = _run(capsys, str(DATA / "body.json"), *argv)
    assert code == 2 and out == ""


def test_memory_does_not_grow_with_the_file(capsys, tmp_path):
    line = (
        json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello " * 20}]}) + "\n"
    )

    def peak(lines: int) -> int:
        path = _write(tmp_path, f"big{lines}.jsonl", line * lines)
        tracemalloc.start()
        try:
            assert main(["estimate", "--summary", path]) == 0
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            capsys.readouterr()

    main(["estimate", "--summary", _write(tmp_path, "warm.jsonl", line)])  # load the encoding first
    small, large = peak(300), peak(3_000)
    assert large < small * 2 + 200_000, (small, large)


def test_models_lists_the_table_with_sources(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "gpt-4.1" in out and "claude-sonnet-4.5" in out and ">200k in: 6/0.6/22.5" in out
    assert main(["models", "--json", "--provider", "deepseek"]) == 0
    doc = json.loads(capsys.readouterr().out)
    [entry] = doc["models"]
    assert entry["model"] == "deepseek-v3.2" and "deepseek-chat" in entry["aliases"]
    assert entry["source"].startswith("https://") and entry["as_of"]
    assert (entry["input"], entry["cached_input"], entry["output"]) == (0.28, 0.028, 0.42)


def test_models_rejects_a_bad_price_file(capsys, tmp_path):
    path = _write(tmp_path, "p.json", "{nope")
    assert main(["models", "--prices", path]) == 2
    assert "p.json:1:2: invalid JSON" in capsys.readouterr().err


@pytest.mark.slow
def test_the_console_script_estimates_from_stdin():
    exe = Path(sys.executable).with_name("holyclient")
    result = subprocess.run(
        [str(exe), "estimate", "-", "--model", "gpt-4.1", "--json"],
        input=json.dumps(MESSAGES),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (
        json.loads(result.stdout)["requests"][0]["input_tokens"] == count_messages(MESSAGES, "gpt-4.1").tokens
    )
    assert result.stderr == ""  # no progress when stderr is not a terminal


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_goes_to_stderr_only_when_it_is_a_terminal(capsys, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["estimate", "--json", str(DATA / "requests.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    assert "requests.jsonl" in terminal.getvalue() and "\r" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\033[K")  # the progress line is erased at the end
    assert json.loads(out)["total"]["requests"] == 4
