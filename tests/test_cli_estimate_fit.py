"""``holyclient estimate`` on models with no price, fine-tunes, and requests that do not fit a model."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.pricing import PriceTable
from holyclient.testing._handlers import DEFAULT_MODELS
from holyclient.tokens import count_messages

HELLO = [{"role": "user", "content": "hello there"}]


def _file(tmp_path: Path, *bodies: dict, name: str = "in.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(b) + "\n" for b in bodies), encoding="utf-8")
    return str(path)


def _estimate(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["estimate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("model", "encoding_model"),
    [("gpt-4-1106-preview", "gpt-4"), ("gpt-4o-2099-01-01-preview", "gpt-4o"), ("o1-preview", "o1")],
)
def test_a_model_with_no_price_is_counted_with_its_family_encoding_cost_null_warned_once(
    capsys, tmp_path, model, encoding_model
):
    body = {"model": model, "messages": HELLO}
    code, out, err = _estimate(capsys, "--json", _file(tmp_path, body, body))
    doc = json.loads(out)
    assert code == 0
    assert [r["input_tokens"] for r in doc["requests"]] == [count_messages(HELLO, encoding_model).tokens] * 2
    assert [r["cost_usd"] for r in doc["requests"]] == [None, None]
    assert doc["total"]["cost_usd"] is None and doc["total"]["unpriced_models"] == [model]
    assert err.count("warning: no price for model") == 1 and model in err


def test_the_table_shows_an_unknown_cost_as_a_question_mark(capsys, tmp_path):
    code, out, _ = _estimate(capsys, _file(tmp_path, {"model": "gpt-4-1106-preview", "messages": HELLO}))
    row = next(line for line in out.splitlines() if line.startswith("total"))
    assert code == 0 and row.split()[-2:] == ["?", "?"]
    assert "? no price for gpt-4-1106-preview" in out


def test_a_fine_tune_is_counted_and_priced_as_its_base_model(capsys, tmp_path):
    path = _file(
        tmp_path,
        {"model": "ft:gpt-4o-mini:acme::abc123", "messages": HELLO},
        {"model": "gpt-4o-mini", "messages": HELLO},
    )
    code, out, err = _estimate(capsys, "--json", path)
    tuned, base = json.loads(out)["requests"]
    assert code == 0 and err == ""
    assert tuned["model"] == "gpt-4o-mini"
    assert (tuned["input_tokens"], tuned["cost_usd"]) == (base["input_tokens"], base["cost_usd"])


def test_compare_leaves_a_prompt_over_the_context_window_out_and_ranks_that_model_last(capsys, tmp_path):
    long = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello " * 12000}]}
    short = {"model": "gpt-4o", "messages": HELLO}
    path = _file(tmp_path, long, short)
    code, out, _ = _estimate(capsys, "--json", path, "--compare", "gpt-4,gpt-3.5-turbo-0613,gpt-4.1")
    doc = json.loads(out)
    ranked = doc["total"]["models"]
    assert code == 0
    assert [m["model"] for m in ranked] == ["gpt-4.1", "gpt-3.5-turbo-0613", "gpt-4"]
    gpt4 = next(m for m in ranked if m["model"] == "gpt-4")
    assert (gpt4["requests"], gpt4["not_fitting"]) == (1, 1)
    first = {e["model"]: e for e in doc["requests"][0]["estimates"]}
    assert first["gpt-4"]["fits"] is False and "context window 8,192" in first["gpt-4"]["does_not_fit"]
    assert first["gpt-4.1"]["fits"] is True
    assert gpt4["cost_usd"] == pytest.approx(doc["requests"][1]["estimates"][0]["cost_usd"])

    code, table, _ = _estimate(capsys, path, "--compare", "gpt-4,gpt-4.1")
    lines = table.splitlines()
    assert lines[1].split()[1] == "gpt-4.1" and lines[2].split()[1] == "gpt-4!"
    assert any(line.startswith("! gpt-4: 1 request does not fit") for line in lines)


def test_max_tokens_over_a_models_output_limit_does_not_fit(capsys, tmp_path):
    path = _file(tmp_path, {"model": "gpt-4o", "max_tokens": 50_000, "messages": HELLO})
    doc = json.loads(_estimate(capsys, "--json", path)[1])
    [request] = doc["requests"]
    assert request["fits"] is False and "output limit 16,384" in request["does_not_fit"]
    assert doc["total"]["cost_usd"] == 0 and doc["total"]["not_fitting"] == 1


@pytest.mark.parametrize("value", ["1e23", "100000000000000000000000", "NaN", "Infinity"])
def test_absurd_max_tokens_is_rejected_with_file_line_field(capsys, tmp_path, value):
    path = tmp_path / "in.jsonl"
    path.write_text('{"model": "gpt-4o", "max_tokens": ' + value + ', "messages": []}\n')
    code, out, err = _estimate(capsys, str(path), "--compare", "gpt-4o,gpt-4.1")
    assert (code, out) == (2, "")
    assert err.startswith(f"holyclient estimate: {path}:1: field 'max_tokens'")


def test_an_assumed_output_never_exceeds_what_the_model_can_write(capsys, tmp_path):
    path = _file(tmp_path, {"model": "gpt-3.5-turbo-0613", "messages": HELLO})
    [request] = json.loads(_estimate(capsys, "--json", path, "--output-tokens", "9000000")[1])["requests"]
    assert request["fits"] is True and request["output_tokens"] == 4096 - request["input_tokens"]


def test_a_utf8_bom_is_accepted_in_a_file_and_on_stdin(capsys, tmp_path, monkeypatch):
    body = json.dumps({"model": "gpt-4o", "messages": HELLO})
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode() + b"\n")
    assert _estimate(capsys, str(path))[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + body.encode())))
    assert _estimate(capsys, "-")[0] == 0


def test_non_utf8_names_the_line(capsys, tmp_path):
    path = tmp_path / "latin1.jsonl"
    good = json.dumps({"model": "gpt-4o", "messages": HELLO}).encode()
    path.write_bytes(good + b"\n" + good.replace(b"hello", b"caf\xe9") + b"\n")
    code, out, err = _estimate(capsys, str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"holyclient estimate: {path}:2: not UTF-8 text")


def test_every_model_the_local_server_and_tour_list_has_a_price():
    table = PriceTable.builtin()
    assert [m for m in (*DEFAULT_MODELS, "gpt-4.1", "text-embedding-3-small") if table.get(m) is None] == []


def test_a_chat_request_does_not_fit_an_embeddings_model(capsys, tmp_path):
    path = _file(tmp_path, {"model": "text-embedding-3-small", "messages": HELLO})
    [request] = json.loads(_estimate(capsys, "--json", path)[1])["requests"]
    assert request["fits"] is False and "embeddings model" in request["does_not_fit"]


def test_an_embeddings_request_has_no_output_and_fits(capsys, tmp_path):
    path = _file(tmp_path, {"model": "text-embedding-3-small", "input": "hello", "max_tokens": 5})
    [request] = json.loads(_estimate(capsys, "--json", path)[1])["requests"]
    assert request["fits"] is True and request["output_tokens"] == 0
