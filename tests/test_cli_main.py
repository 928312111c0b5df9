"""The command line's shared contract: help, version, exit codes, broken pipes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from holyclient import __version__
from holyclient._cli import SUBCOMMANDS, main


def test_help_lists_every_subcommand_and_the_exit_codes(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert name in out
    assert "exit codes" in out


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_is_plain_text_wrapped_to_the_terminal_with_exit_codes_as_a_list(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "64")
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if len(line) > 64] == []
    for markup in ("``", ":class:", ":func:", ":meth:", ":data:"):
        assert markup not in out
    codes = out[out.index("exit codes:") :].splitlines()[1:]
    assert codes[0].startswith("  0 ") and any(line.startswith("  2 ") for line in codes)


def test_an_unknown_option_prints_the_subcommands_usage(capsys):
    assert main(["estimate", "requests.jsonl", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: holyclient estimate ")
    assert "holyclient estimate: error: unrecognized arguments: --no-such-flag" in err


def test_an_unknown_command_prints_the_top_level_usage(capsys):
    assert main(["nosuch"]) == 2
    assert capsys.readouterr().err.startswith("usage: holyclient [-h]")


def test_version(capsys):
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out


def test_no_command_or_unknown_option_is_a_usage_error(capsys):
    assert main([]) == 2
    assert main(["estimate", "--no-such-flag"]) == 2


def test_an_unexpected_exception_exits_2_without_a_traceback(monkeypatch, capsys):
    from holyclient._cli import models

    def boom(args):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(models, "run", boom)
    monkeypatch.delenv("HOLYCLIENT_DEBUG", raising=False)
    assert main(["models"]) == 2
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: disk on fire" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_closed_pipe_is_not_an_error(tmp_path, capsys):
    # Far more output than a pipe buffers (64 KiB on Linux), so the reader's close really breaks it.
    requests = tmp_path / "many.jsonl"
    line = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]}
    requests.write_text("\n".join(json.dumps(line) for _ in range(4000)) + "\n")
    assert main(["estimate", str(requests)]) == 0
    assert len(capsys.readouterr().out) > 4 * 65536

    with subprocess.Popen(
        [sys.executable, "-m", "holyclient", "estimate", str(requests)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()  # like `| head -1`: read a line, then go away
        process.stdout.close()
        err = process.stderr.read().decode()
        code = process.wait(timeout=120)
    assert first.startswith(b"REQUEST")
    assert code == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_a_one_line_exit_code_epilog_becomes_a_list():
    from holyclient._cli._help import exit_code_list

    assert exit_code_list("exit codes: 0 done, 1 found x; 2 usage, or bad\n130 interrupted") == (
        "exit codes:\n  0   done\n  1   found x\n  2   usage, or bad\n  130 interrupted"
    )
    assert exit_code_list("exit codes are documented elsewhere") == "exit codes are documented elsewhere"
