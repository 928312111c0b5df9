"""``holyclient doctor`` against the local server: every feature it probes, switched off one at a time."""

from __future__ import annotations

import json

import pytest

from holyclient._cli import main
from holyclient.testing import LocalServer, RateLimits

KEY = "sk-doctor-secret-123"

#: The local server's switch -> the doctor row that must then say the feature is missing.
ROW_OF_FEATURE = {
    "models": "GET /models",
    "chat": "chat",
    "stream": "streaming",
    "include_usage": "stream usage chunk",
    "tools": "tools / tool_choice",
    "json_object": "json_object",
    "json_schema": "json_schema",
    "n": "n > 1",
    "logprobs": "logprobs",
    "embeddings": "embeddings",
}
REQUIRED = {"models", "chat", "stream"}


def _doctor(server: LocalServer, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["doctor", "--base-url", server.base_url, "--api-key", KEY, "--json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def _rows(report: dict) -> dict[str, dict]:
    return {row["feature"]: row for row in report["rows"]}


def test_doctor_finds_every_required_feature_on_the_local_server(capsys):
    with LocalServer(api_key=KEY) as server:
        code, report, err = _doctor(server, capsys, "--model", "gpt-4o-mini", "--model", "gpt-4.1")
    rows = _rows(report)
    assert code == 0 and report["ok"] is True
    assert all(row["verdict"] == "supported" for row in report["rows"] if row["required"])
    assert rows["GET /models"]["evidence"].endswith("gpt-4o-mini, gpt-4.1 listed")
    assert rows["401 bad key"]["evidence"] == "HTTP 401 -> AuthenticationError"
    assert rows["400 bad request"]["evidence"] == "HTTP 400 -> BadRequestError"
    for feature in ROW_OF_FEATURE.values():
        assert rows[feature]["verdict"] == "supported", rows[feature]
    assert "estimated cost at most $" in err


@pytest.mark.parametrize("feature", sorted(ROW_OF_FEATURE))
def test_doctor_reports_a_switched_off_feature_as_unsupported(feature, capsys):
    with LocalServer(api_key=KEY, disabled_features={feature}) as server:
        code, report, _ = _doctor(server, capsys)
    rows = _rows(report)
    assert rows[ROW_OF_FEATURE[feature]]["verdict"] == "not supported", rows[ROW_OF_FEATURE[feature]]
    others = {
        row
        for f, row in ROW_OF_FEATURE.items()
        if f != feature and not (f == "include_usage" and feature == "stream")
    }
    if feature != "chat":  # without chat nothing else on /chat/completions can answer
        assert all(rows[row]["verdict"] == "supported" for row in others), rows
    assert code == (1 if feature in REQUIRED else 0)


def test_doctor_lists_a_model_the_endpoint_does_not_serve_as_different(capsys):
    with LocalServer(api_key=KEY, models=["gpt-4o-mini"]) as server:
        code, report, _ = _doctor(server, capsys, "--model", "gpt-4o-mini", "--model", "gpt-4.1")
    row = _rows(report)["GET /models"]
    assert (row["verdict"], row["evidence"]) == ("different", "1 models listed; not listed: gpt-4.1")
    assert code == 1


def test_doctor_sees_rate_limit_headers_when_the_endpoint_sends_them(capsys):
    with LocalServer(api_key=KEY, rate_limits=RateLimits(rpm=1000)) as server:
        _, report, _ = _doctor(server, capsys)
    row = _rows(report)["rate-limit headers"]
    assert row["verdict"] == "supported" and "x-ratelimit-limit-requests" in row["evidence"]


def test_doctor_stops_after_a_refused_key_and_exits_2_naming_where_the_key_came_from(capsys, monkeypatch):
    with LocalServer(api_key="sk-another-key") as server:
        code, report, err = _doctor(server, capsys)
        sent = server.stats["requests"]
        monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
        capsys.readouterr()
        from_env = main(["doctor", "--base-url", server.base_url])
        env_err = capsys.readouterr().err
    assert (code, report, sent) == (2, {}, 1)
    assert "refused the key (HTTP 401): check the key given to --api-key" in err
    assert from_env == 2 and "check HOLYSHEEP_API_KEY (or pass --api-key)" in env_err
    assert KEY not in err + env_err


def test_doctor_probes_embeddings_with_the_embed_model_not_the_chat_model(capsys):
    with LocalServer(api_key=KEY, models=["gpt-4o-mini", "text-embedding-3-large"]) as server:
        code, report, _ = _doctor(server, capsys, "--embed-model", "text-embedding-3-large")
        sent = [r.body["model"] for r in server.requests if r.path.endswith("/embeddings")]
    assert sent == ["text-embedding-3-large"]
    assert _rows(report)["embeddings"]["verdict"] == "supported" and code == 0


def test_doctor_answers_a_model_typo_with_did_you_mean_before_anything_else(capsys):
    with LocalServer(api_key=KEY) as server:
        code, report, err = _doctor(server, capsys, "--model", "gpt-4.1-mni")
        sent = server.stats["requests"]
    assert (code, report, sent) == (2, {}, 0)
    assert err.splitlines()[0].startswith(
        "holyclient doctor: --model: no price for model 'gpt-4.1-mni' (did you mean gpt-4.1-mini"
    )


def test_doctor_never_prints_the_key(capsys):
    with LocalServer(api_key=KEY) as server:
        capsys.readouterr()
        main(["doctor", "--base-url", server.base_url, "--api-key", KEY])
        out, err = capsys.readouterr()
    assert KEY not in out + err
    assert "FEATURE" in out and "401 bad key*" in out


def test_doctor_sends_nothing_when_the_cost_is_unknown_without_yes(capsys):
    with LocalServer(api_key=KEY) as server:
        code, report, err = _doctor(server, capsys, "--model", "my-unpriced-model")
        sent = server.stats["requests"]
    assert code == 2 and report == {} and sent == 0
    assert "pass --yes" in err


def test_doctor_with_yes_probes_an_unpriced_model(capsys):
    with LocalServer(api_key=KEY, models=["my-unpriced-model"]) as server:
        code, report, _ = _doctor(server, capsys, "--model", "my-unpriced-model", "--yes")
    assert code == 0 and report["model"] == "my-unpriced-model"


def test_doctor_against_an_endpoint_that_is_down_reports_no_response(capsys):
    with LocalServer() as server:
        url = server.base_url
    capsys.readouterr()
    code = main(["doctor", "--base-url", url, "--api-key", KEY, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert _rows(report)["chat"]["evidence"].startswith("no response: APIConnectionError")


def test_doctor_reports_streams_cut_part_way_as_unsupported(capsys):
    from holyclient.testing import Fault

    def cut_streams(record):
        return (
            Fault.stream_cut(after_chunks=2)
            if isinstance(record.body, dict) and record.body.get("stream")
            else None
        )

    with LocalServer(api_key=KEY, hook=cut_streams) as server:
        code, report, _ = _doctor(server, capsys)
    row = _rows(report)["streaming"]
    assert code == 1
    assert row["verdict"] == "not supported" and row["evidence"].startswith("HTTP 200, then stream failed")
