"""Bad input for ``holyclient serve``: one row per case (see ``table.py``). Every row fails before the
server listens, so none of them blocks."""

from __future__ import annotations

import pytest

from bad_input.table import Row, check_row

S = "holyclient serve: "
U = "usage: holyclient serve "

ROWS = [
    Row("fault-rate-negative", ("serve", "--fault-rate", "-0.1"), U),
    Row("fault-rate-over-one", ("serve", "--fault-rate", "1.5"), U),
    Row("fault-rate-nan", ("serve", "--fault-rate", "nan"), U),
    Row("port-too-large", ("serve", "--port", "70000"), U),
    Row("port-negative", ("serve", "--port", "-1"), U),
    Row("port-not-a-number", ("serve", "--port", "http"), U),
    Row("latency-negative", ("serve", "--latency", "-1"), U),
    Row("jitter-infinite", ("serve", "--jitter", "inf"), U),
    Row("chunk-delay-text", ("serve", "--chunk-delay", "slow"), U),
    Row("hang-seconds-negative", ("serve", "--hang-seconds", "-3"), U),
    Row("rpm-zero", ("serve", "--rpm", "0"), U),
    Row("tpm-negative", ("serve", "--tpm", "-5"), U),
    Row("rate-window-zero", ("serve", "--rate-window", "0"), U),
    Row(
        "faults-unknown-kind",
        ("serve", "--fault-rate", "0.5", "--faults", "bogus=1"),
        S + "unknown fault kind 'bogus'",
    ),
    Row(
        "faults-bad-weight",
        ("serve", "--fault-rate", "0.5", "--faults", "429=x"),
        S + "invalid weight 'x' for fault kind '429'",
    ),
    Row("host-not-on-this-machine", ("serve", "--host", "203.0.113.1"), S + "cannot listen on 203.0.113.1:0"),
    Row("host-empty", ("serve", "--host", ""), S + "--host is empty"),
    Row("api-key-empty", ("serve", "--api-key", " "), S + "--api-key is empty"),
    Row(
        "api-key-with-no-auth",
        ("serve", "--api-key", "k", "--no-auth"),
        S + "--api-key and --no-auth contradict",
    ),
    Row("api-key-without-value", ("serve", "--api-key"), U),
    Row("seed-not-a-number", ("serve", "--seed", "x"), U),
    Row("unknown-flag", ("serve", "--bogus"), U),
    Row("profile-unknown", ("serve", "--profile", "openrouter"), U),
    Row("fault-at-without-kind", ("serve", "--fault-at", "2"), S + "--fault-at '2': expected N=KIND"),
    Row("fault-at-request-zero", ("serve", "--fault-at", "0=429"), S + "--fault-at '0=429': expected N=KIND"),
    Row(
        "fault-at-not-a-number",
        ("serve", "--fault-at", "two=429"),
        S + "--fault-at 'two=429': expected N=KIND",
    ),
    Row(
        "fault-at-unknown-kind",
        ("serve", "--fault-at", "2=bogus"),
        S + "--fault-at '2=bogus': unknown fault kind 'bogus'",
    ),
    Row(
        "fault-at-twice-for-one-request",
        ("serve", "--fault-at", "2=429", "--fault-at", "2=500"),
        S + "--fault-at '2=500': request 2 already has a fault",
    ),
    Row("retry-after-negative", ("serve", "--retry-after", "-1"), U),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_serve_row(row, tmp_path, capsys, monkeypatch):
    if row.id != "host-not-on-this-machine":  # that one must really try to bind
        # A bad input that slipped through would serve until interrupted: fail the row instead.
        from holyclient._cli import serve

        async def started(args, config):
            raise AssertionError("the server started despite the bad input")

        monkeypatch.setattr(serve, "_serve", started)
    check_row(row, tmp_path, capsys, monkeypatch)
