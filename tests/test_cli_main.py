"""The command line's shared contract: help, version, exit codes, broken pipes."""

from __future__ import annotations

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


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_closed_pipe_is_not_an_error():
    result = subprocess.run(
        f"{sys.executable} -m holyclient models | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
