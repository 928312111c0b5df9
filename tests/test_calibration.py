"""Calibration from billed usage, proven against a relay that bills with a tokenizer holyclient lacks.

The local server's ``billing="foreign"`` mode bills Claude-like prompt counts from a deterministic
tokenizer unlike ``o200k_base`` (:mod:`holyclient.testing._foreign`). Uncalibrated, every request's
range must hold what it billed; after calibrating on one sample, the estimate of a held-out workload of
the same mix must be within 3% of what that workload is billed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holyclient import Client
from holyclient._cli import main
from holyclient.testing import LocalServer
from holyclient.tokens import Calibration, CalibrationFileError, Sample, count_request, fit
from token_workload import workload

KEY = "sk-test-calibration"
MODEL = "claude-sonnet-4.5"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    monkeypatch.delenv("HOLYSHEEP_PRICES", raising=False)


@pytest.fixture
def relay() -> Iterator[LocalServer]:
    with LocalServer(billing="foreign", models=(MODEL, "gpt-4o")) as running:
        yield running


def _billed(server: LocalServer, bodies: list[dict[str, Any]]) -> list[int]:
    with Client(base_url=server.base_url) as client:
        return [client.chat.completions.create(**body).usage.prompt_tokens for body in bodies]


def _batch_input(path: Path, bodies: list[dict[str, Any]]) -> Path:
    lines = (
        json.dumps({"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": body})
        for i, body in enumerate(bodies)
    )
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_uncalibrated_range_holds_what_a_foreign_tokenizer_bills(relay):
    bodies = workload(60, seed=7)
    billed = _billed(relay, bodies)
    counts = [count_request(body) for body in bodies]
    for body, count, bill in zip(bodies, counts, billed, strict=True):
        low, high = count.input_tokens_range
        assert count.count_method == "approximate"
        assert low <= bill <= high, (body["messages"][1]["content"][:40], low, bill, high)
    assert (
        sum(c.input_tokens_range[0] for c in counts)
        <= sum(billed)
        <= sum(c.input_tokens_range[1] for c in counts)
    )


def test_calibrating_on_a_sample_estimates_a_held_out_workload_within_3_percent(relay, tmp_path, capsys):
    sample = _batch_input(tmp_path / "sample.jsonl", workload(60, seed=1))
    out = tmp_path / "sample.out.jsonl"
    assert main(["batch", str(sample), "-o", str(out), "--base-url", relay.base_url]) == 0
    calibration = tmp_path / "calibration.json"
    capsys.readouterr()
    assert main(["calibrate", str(sample), str(out), "-o", str(calibration)]) == 0
    assert MODEL in capsys.readouterr().out

    held_out = workload(60, seed=2)
    billed = sum(_billed(relay, held_out))
    held_path = _batch_input(tmp_path / "held.jsonl", held_out)
    assert main(["estimate", "--json", "--calibration", str(calibration), str(held_path)]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["count_method"] == "calibrated"
    assert abs(total["input_tokens"] - billed) <= 0.03 * billed
    low, high = total["input_tokens_range"]
    assert low <= billed <= high

    assert main(["estimate", "--json", str(held_path)]) == 0  # uncalibrated: further off, but a true range
    uncalibrated = json.loads(capsys.readouterr().out)["total"]
    assert uncalibrated["input_tokens_range"][0] <= billed <= uncalibrated["input_tokens_range"][1]
    assert abs(uncalibrated["input_tokens"] - billed) > abs(total["input_tokens"] - billed)


def test_client_usage_learns_the_correction_online_and_writes_it(relay, tmp_path):
    with Client(base_url=relay.base_url) as client:
        for body in workload(60, seed=1):
            client.chat.completions.create(**body)
        learnt = client.usage.calibration()
    assert learnt.models[MODEL].samples == 60
    path = tmp_path / "learnt.json"
    learnt.save(path)

    held_out = workload(60, seed=2)
    billed = sum(_billed(relay, held_out))
    estimated = sum(count_request(body, calibration=Calibration.load(path)).tokens for body in held_out)
    assert abs(estimated - billed) <= 0.03 * billed

    with Client(base_url=relay.base_url, calibration=path, budget_usd=10.0) as client:
        reservation = client.usage.reserve(held_out[0])
        expected = count_request(held_out[0], calibration=Calibration.load(path))
        assert expected.count_method == "calibrated"
        assert reservation.prompt_tokens == expected.input_tokens_range[1]


def test_a_per_kind_fit_is_kept_only_when_it_helps():
    # Two kinds billed at clearly different ratios: one factor cannot fit both, a factor per kind can.
    mixed = [Sample("m", 100, {"prose": 1.0}, 120) for _ in range(10)]
    mixed += [Sample("m", 100, {"cjk": 1.0}, 180) for _ in range(10)]
    per_kind = fit(mixed).models["m"]
    assert per_kind.kinds == pytest.approx({"prose": 1.2, "cjk": 1.8})
    assert per_kind.error == pytest.approx(0.0, abs=1e-9)
    same = [Sample("m", 100, {"prose": 1.0}, 130) for _ in range(10)]
    same += [Sample("m", 100, {"cjk": 1.0}, 130) for _ in range(10)]
    assert fit(same).models["m"].kinds is None


def test_a_calibration_file_round_trips_and_a_bad_one_names_its_field(tmp_path):
    calibration = fit([Sample("claude-sonnet-4.5", 100, {"prose": 1.0}, b) for b in (118, 122, 120)])
    path = tmp_path / "c.json"
    calibration.save(path)
    loaded = Calibration.load(path).models["claude-sonnet-4.5"]
    assert (loaded.factor, loaded.samples) == (1.2, 3)
    assert loaded.error == pytest.approx(calibration.models["claude-sonnet-4.5"].error, abs=1e-6)
    path.write_text(json.dumps({"models": {"m": {"factor": -1, "error": 0.1}}}))
    with pytest.raises(CalibrationFileError, match=r"models\.m\.factor"):
        Calibration.load(path)


def test_a_batch_runner_reserves_its_client_budget_by_the_calibration(relay, tmp_path):
    from holyclient.batch import run_batch
    from holyclient.pricing import estimate_cost

    body = {"model": MODEL, "messages": [{"role": "user", "content": "word " * 2000}], "max_tokens": 10}
    raw = count_request(body).raw_tokens
    path = tmp_path / "c.json"
    Calibration({MODEL: fit([Sample(MODEL, 100, {"prose": 1.0}, 120)] * 3).models[MODEL]}).save(path)
    # Enough for the calibrated worst case (x1.2 +3%), not for the published one (x1.55 for prose).
    budget = estimate_cost(MODEL, round(raw * 1.4), 10).cost_usd

    def outcome(**calibration: Any) -> Any:
        with Client(base_url=relay.base_url, budget_usd=budget, **calibration) as client:
            [result] = run_batch(client, [body])
        return result.error

    assert outcome(calibration=path) is None
    assert outcome()["code"] == "budget_exceeded"


def test_holyclient_serve_can_bill_with_the_foreign_tokenizer():
    from holyclient._cli import build_parser
    from holyclient._cli.serve import _config

    assert _config(build_parser().parse_args(["serve", "--billing", "foreign"])).billing == "foreign"
    assert _config(build_parser().parse_args(["serve"])).billing == "chars"


def test_the_foreign_billing_differs_from_the_default_and_from_o200k(relay):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "今天天气很好，我们去公园散步吧。"}]}
    [foreign] = _billed(relay, [body])
    with LocalServer(models=(MODEL,)) as plain:
        [chars] = _billed(plain, [body])
    assert len({foreign, chars, count_request(body).raw_tokens}) == 3
