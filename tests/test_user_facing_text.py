"""Small things a newcomer reads: no internal tracker numbers, plurals, reprs without float noise, the
tour's last line, and why an endpoint's prompt tokens differ from the local count."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from holyclient import Client, estimate_request
from holyclient._cli import main
from holyclient.compare._text import render_text
from holyclient.testing import LocalServer

SRC = Path(__file__).resolve().parents[1] / "src" / "holyclient"
TRACKER = re.compile(r"(?i)\b(?:([\w.-]+)\s+)?issue\s+#?\d+")
#: Public projects whose issue threads are cited as sources (a citation, not our tracker).
EXTERNAL = {"anthropic-sdk-python", "litellm", "pflow", "tokencost", "openai-python", "tiktoken"}


def test_no_source_or_data_file_cites_an_internal_issue_number():
    cited = [
        f"{path.relative_to(SRC)}: {match.group()}"
        for path in SRC.rglob("*")
        if path.suffix in (".py", ".json", ".csv", ".txt")
        for match in TRACKER.finditer(path.read_text(encoding="utf-8", errors="replace"))
        if (match.group(1) or "").lower() not in EXTERNAL
    ]
    assert cited == []


def test_batch_counts_one_invalid_line_in_the_singular(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOLYSHEEP_API_KEY", "sk-plural")
    Path("in.jsonl").write_text('{"model": "gpt-4o-mini", "messages": []}\n')
    assert main(["batch", "in.jsonl", "-o", "out.jsonl"]) == 2
    assert "holyclient batch: 1 invalid line in in.jsonl; nothing was sent" in capsys.readouterr().err


def test_cost_estimate_repr_shows_usd_and_cny_without_float_noise():
    body = {"model": "gpt-4.1-nano", "messages": [{"role": "user", "content": "hi there"}], "max_tokens": 5}
    shown = repr(estimate_request(body))
    assert "input_usd=9e-07" in shown and "0000000" not in shown
    assert "cost_usd=2.9e-06" in shown and "cost_cny=2.9e-06" in shown


def test_usage_snapshot_repr_shows_no_float_noise():
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url) as client:
        client.chat.completions.create(model="gpt-4.1-nano", messages=[{"role": "user", "content": "hi"}])
        shown = repr(client.usage.snapshot())
    assert "cost_usd=1.2e-06" in shown and "0000000" not in shown


def test_the_tour_ends_with_a_next_step_it_has_shown(capsys):
    assert main(["tour"]) == 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "base_url" not in last and "holyclient serve" in last


def _report(old_url: str, old_tokens: int, new_tokens: int, local: int) -> SimpleNamespace:
    metrics: dict[str, float | None] = defaultdict(lambda: None)
    metrics.update(old_prompt_tokens=old_tokens, new_prompt_tokens=new_tokens, local_prompt_tokens=local)
    return SimpleNamespace(
        metrics=metrics,
        pairs=[],
        gates=[],
        old_url=old_url,
        new_url="https://api.holysheep.ai/v1",
        old_model=None,
        new_model=None,
    )


@pytest.mark.parametrize(
    ("old_url", "tokens", "note"),
    [
        (
            "http://127.0.0.1:8000/v1",
            (21, 21, 31),
            "holyclient's local server bills about 4 characters a token",
        ),
        ("https://api.openai.com/v1", (21, 21, 31), "prompt tokens are what each endpoint bills"),
        ("https://api.openai.com/v1", (31, 30, 31), None),
    ],
)
def test_compare_explains_prompt_tokens_far_from_the_local_count(old_url, tokens, note):
    text = render_text(_report(old_url, *tokens))  # type: ignore[arg-type]
    if note is None:
        assert "note: prompt tokens" not in text
    else:
        assert note in text
