"""Resuming ``holyclient batch`` into an existing OUTPUT: what is kept, cut, refused and re-sent."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from holyclient._cli import main
from holyclient.batch import BatchResult, OutputError, OutputWriter
from holyclient.batch._output import OutputLock, prepare_output
from holyclient.testing import LocalServer

KEY = "sk-holy-batch-resume-key"


pytestmark = pytest.mark.usefixtures("api_key_env")


def _line(custom_id: str) -> str:
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"prompt {custom_id}"}],
        "max_tokens": 5,
    }
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body})


def _input(path: Path, ids: list[str]) -> Path:
    path.write_text("".join(_line(i) + "\n" for i in ids))
    return path


def _result(custom_id: str, status: int = 200, error: dict[str, str] | None = None) -> str:
    response = {"status_code": status, "request_id": "req", "body": {"id": "x"}}
    return json.dumps({"id": "batch_req_1", "custom_id": custom_id, "response": response, "error": error})


def _sent(local_server: LocalServer) -> list[str]:
    return [str(r.body["messages"][0]["content"]).split()[-1] for r in local_server.requests]


def _run(*argv: str) -> int:
    return main(["batch", *argv])


def test_a_complete_last_line_without_its_newline_is_kept_and_not_sent_again(
    local_server: LocalServer, tmp_path: Path
) -> None:
    source = _input(tmp_path / "in.jsonl", ["a", "b", "c"])
    out = tmp_path / "out.jsonl"
    out.write_text(_result("a") + "\n" + _result("b"))  # the newline alone was lost
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    assert _sent(local_server) == ["c"]  # b is not paid for twice
    lines = out.read_text().splitlines()
    assert [json.loads(line)["custom_id"] for line in lines] == ["a", "b", "c"]


def test_a_torn_last_line_is_still_cut_and_its_request_sent(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(_result("a") + "\n" + _result("b")[:30])
    state = prepare_output(out)
    assert state.torn_bytes == 30 and not state.unterminated
    assert "b" not in state.done and "a" in state.done
    assert out.read_text() == _result("a") + "\n"


def test_a_failed_write_is_cut_back_so_the_next_line_is_not_glued_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.jsonl"
    writer = OutputWriter(out)
    writer.write(BatchResult("a", 200, body={}))
    real_write = os.write
    calls = 0

    def short_then_full(fd: int, data: Any) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            return real_write(fd, bytes(data[:10]))  # a short write...
        raise OSError(errno.ENOSPC, "No space left on device")  # ...then the disk is full

    monkeypatch.setattr(os, "write", short_then_full)
    with pytest.raises(OSError, match="No space"):
        writer.write(BatchResult("b", 200, body={}))
    monkeypatch.setattr(os, "write", real_write)
    writer.write(BatchResult("c", 200, body={}))  # space freed: the run goes on
    writer.close()
    assert [json.loads(line)["custom_id"] for line in out.read_text().splitlines()] == ["a", "c"]


def test_an_output_of_another_input_is_refused_unless_forced(
    local_server: LocalServer, tmp_path: Path, capsys: Any
) -> None:
    source = _input(tmp_path / "in.jsonl", ["a", "b"])
    out = tmp_path / "out.jsonl"
    out.write_text(_result("zzz") + "\n")
    before = out.read_bytes()
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 2
    err = capsys.readouterr().err
    assert f"{out}:1: custom_id 'zzz' is not in the input" in err and "--force" in err
    assert out.read_bytes() == before and not local_server.requests
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url, "--force") == 0
    assert sorted(_sent(local_server)) == ["a", "b"]


def test_a_200_with_an_invalid_response_error_is_a_failure_that_retry_failed_sends_again(
    local_server: LocalServer, tmp_path: Path
) -> None:
    source = _input(tmp_path / "in.jsonl", ["a", "b"])
    out = tmp_path / "out.jsonl"
    invalid = {"code": "invalid_response", "message": "not a chat completion"}
    out.write_text(_result("a") + "\n" + _result("b", 200, invalid) + "\n")
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 1  # b counts as failed
    assert _sent(local_server) == []
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url, "--retry-failed") == 0
    assert _sent(local_server) == ["b"]


def test_a_second_run_on_the_same_output_is_refused(
    local_server: LocalServer, tmp_path: Path, capsys: Any
) -> None:
    source = _input(tmp_path / "in.jsonl", ["a"])
    out = tmp_path / "out.jsonl"
    held = OutputLock(out)  # another run is writing to it
    try:
        assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 2
        assert "is being written by another holyclient batch run" in capsys.readouterr().err
        assert not local_server.requests and not out.exists()
        with pytest.raises(OutputError):
            OutputLock(out)
    finally:
        held.release()
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    assert not (tmp_path / "out.jsonl.lock").exists()


def test_dry_run_on_a_finished_output_has_nothing_to_send(tmp_path: Path, capsys: Any) -> None:
    source = _input(tmp_path / "in.jsonl", ["a", "b", "c"])
    out = tmp_path / "out.jsonl"
    out.write_text(_result("a") + "\n" + _result("b") + "\n")
    assert _run(str(source), "-o", str(out), "--dry-run") == 0
    assert "3 valid requests: 1 to send, 2 already done" in capsys.readouterr().out
    out.write_text(_result("a") + "\n" + _result("b") + "\n" + _result("c") + "\n")
    assert _run(str(source), "-o", str(out), "--dry-run", "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["to_send"] == 0 and document["already_done"] == 3 and document["max_cost_usd"] == 0
    assert _run(str(source), "-o", str(out), "--dry-run") == 0
    assert "3 valid requests: 0 to send, 3 already done" in capsys.readouterr().out


def test_bare_bodies_keep_their_ids_when_a_blank_line_is_inserted(
    local_server: LocalServer, tmp_path: Path
) -> None:
    bodies = [json.loads(_line(i))["body"] for i in ("a", "b", "c")]
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(bodies[0]) + "\n" + json.dumps(bodies[1]) + "\n")
    out = tmp_path / "out.jsonl"
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    source.write_text(
        "\n" + json.dumps(bodies[0]) + "\n\n" + json.dumps(bodies[1]) + "\n" + json.dumps(bodies[2]) + "\n"
    )
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    assert _sent(local_server) == ["a", "b", "c"]  # only c was sent the second time
    assert sorted(json.loads(line)["custom_id"] for line in out.read_text().splitlines()) == ["1", "2", "3"]


def test_a_changed_input_is_detected_on_resume(
    local_server: LocalServer, tmp_path: Path, capsys: Any
) -> None:
    bodies = [json.loads(_line(i))["body"] for i in ("a", "b", "c")]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(body) + "\n" for body in bodies[:2]))
    out = tmp_path / "out.jsonl"
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    edited = {
        **bodies[1],
        "messages": [{"role": "user", "content": "prompt B"}],
    }  # same position, new request
    source.write_text("".join(json.dumps(body) + "\n" for body in (bodies[0], edited, bodies[2])))
    before = out.read_bytes()
    capsys.readouterr()
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 2
    err = capsys.readouterr().err
    assert f"{out}:" in err and "custom_id '2' was made from a different request" in err and "--force" in err
    assert out.read_bytes() == before and _sent(local_server) == ["a", "b"]
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url, "--force") == 0
    assert _sent(local_server) == ["a", "b", "c"]


def test_output_lines_of_other_tools_are_not_taken_for_a_changed_input(
    local_server: LocalServer, tmp_path: Path
) -> None:
    source = _input(tmp_path / "in.jsonl", ["a", "b"])
    out = tmp_path / "out.jsonl"
    out.write_text(_result("a") + "\n")  # an id without a fingerprint (OpenAI's, or an older holyclient)
    assert _run(str(source), "-o", str(out), "--base-url", local_server.base_url) == 0
    assert _sent(local_server) == ["b"]
