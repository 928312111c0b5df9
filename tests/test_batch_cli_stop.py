"""``holyclient batch`` against a doomed run, and what it prints while and after running."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from batch_support import write_chat_input
from holyclient._cli import main
from holyclient.testing import LocalServer

RIGHT_KEY = "sk-holy-the-right-key"
WRONG_KEY = "sk-holy-a-wrong-key"


def _ids(out: Path) -> list[str]:
    return sorted(json.loads(line)["custom_id"] for line in out.read_text().splitlines())


def test_a_refused_key_stops_early_and_a_rerun_with_the_right_key_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_chat_input(tmp_path / "in.jsonl", 100)
    out = tmp_path / "out.jsonl"
    with LocalServer(api_key=RIGHT_KEY) as server:
        monkeypatch.setenv("HOLYSHEEP_API_KEY", WRONG_KEY)
        code = main(
            ["batch", str(source), "-o", str(out), "--base-url", server.base_url, "--concurrency", "4"]
        )
        err = capsys.readouterr().err
        assert code == 2
        assert err.startswith("holyclient batch: stopped after 5 attempts in a row failed: HTTP 401")
        assert "run the same command again to resume" in err
        assert len(err.strip().splitlines()) == 1  # one clear message
        assert WRONG_KEY not in err
        assert server.stats["requests"] < 20  # not 100
        assert not out.exists()  # no failure lines to skip on the rerun, no empty file
        monkeypatch.setenv("HOLYSHEEP_API_KEY", RIGHT_KEY)
        assert main(["batch", str(source), "-o", str(out), "--base-url", server.base_url]) == 0
    assert _ids(out) == sorted(f"r{i}" for i in range(100))


def test_an_unreachable_server_stops_early_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", RIGHT_KEY)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    source = write_chat_input(tmp_path / "in.jsonl", 20)
    out = tmp_path / "out.jsonl"
    base_url = f"http://127.0.0.1:{port}/v1"
    code = main(["batch", str(source), "-o", str(out), "--base-url", base_url])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "could not connect to the server" in err
    assert not out.exists()


def test_json_prints_the_final_summary_as_one_document_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", RIGHT_KEY)
    source = write_chat_input(tmp_path / "in.jsonl", 4)
    out = tmp_path / "out.jsonl"
    with LocalServer() as server:
        assert main(["batch", str(source), "-o", str(out), "--base-url", server.base_url, "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["requests"] == 4 and document["succeeded"] == 4 and document["failed"] == 0
    assert document["models"]["gpt-4o-mini"]["requests"] == 4
    assert document["cost_usd"] > 0 and document["stopped"] is None
    assert "batch done" not in captured.err  # the summary is on stdout, once


def test_off_a_terminal_progress_is_plain_lines_without_carriage_returns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", RIGHT_KEY)
    source = write_chat_input(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    with LocalServer(latency=0.3) as server:
        argv = ["batch", str(source), "-o", str(out), "--base-url", server.base_url, "--concurrency", "1"]
        assert main([*argv, "--progress-every", "0.05"]) == 0
    err = capsys.readouterr().err
    progress = [line for line in err.splitlines() if " done | " in line]
    assert progress, err
    assert "\r" not in err and "\x1b" not in err


def test_on_a_terminal_progress_is_a_live_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from holyclient._cli import _batch_progress

    shown: list[Any] = []

    class FakeBar:
        def __init__(self, total: int) -> None:
            shown.append(total)

        async def run(self, done: Any, line: Any) -> None:
            import anyio

            await anyio.sleep_forever()

    monkeypatch.setattr(_batch_progress, "LiveBar", FakeBar)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    monkeypatch.setenv("HOLYSHEEP_API_KEY", RIGHT_KEY)
    source = write_chat_input(tmp_path / "in.jsonl", 3)
    with LocalServer() as server:
        assert (
            main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--base-url", server.base_url])
            == 0
        )
    assert shown == [3]


def test_the_live_bar_renders_with_rich_and_is_removed_when_it_stops() -> None:
    import io

    import anyio

    from holyclient._cli._batch_progress import LiveBar

    class Terminal(io.StringIO):
        """What rich takes for a terminal (the bar is only ever shown on one)."""

        def isatty(self) -> bool:
            return True

    stream = Terminal()

    async def briefly() -> None:
        # The bar is updated before its first sleep and refreshed when it stops, so any time box works.
        with anyio.move_on_after(0.05):
            await LiveBar(10, stream).run(lambda: 4, lambda elapsed: "4/10 done, 0 failed")

    anyio.run(briefly)
    shown = stream.getvalue()
    assert " 4/10" in shown  # the M of N column
    assert "4/10 done, 0 failed" in shown  # the progress line as the description
    assert "━" in shown  # the bar itself
    assert shown.endswith("\x1b[2K")  # transient: the last thing written erases the bar's line


def test_the_api_key_flag_is_sent_and_never_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", WRONG_KEY)  # the flag wins over the variable
    source = write_chat_input(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    with LocalServer(api_key=RIGHT_KEY) as server:
        argv = ["batch", str(source), "-o", str(out), "--base-url", server.base_url, "--api-key", RIGHT_KEY]
        assert main([*argv, "--json"]) == 0
    printed = capsys.readouterr()
    assert _ids(out) == ["r0", "r1", "r2"]
    assert RIGHT_KEY not in printed.out + printed.err
    assert RIGHT_KEY not in out.read_text()
