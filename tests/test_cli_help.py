"""Every subcommand's ``--help`` reads as a newcomer needs it: grouped options, lists kept as lists,
and an "examples:" section at the end with commands to copy."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from holyclient._cli import build_parser
from holyclient.compare._gates import METRICS

ROOT = Path(__file__).resolve().parents[1]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = dict(action.choices)
            found["batch merge"] = found["batch"].merge  # a subcommand of batch
            return found
    raise AssertionError("no subcommands")


SUBPARSERS = _subparsers()


def _help(name: str, monkeypatch: pytest.MonkeyPatch, columns: int = 80) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    return SUBPARSERS[name].format_help()


@pytest.mark.parametrize("name", sorted(SUBPARSERS))
def test_every_subcommand_help_ends_with_examples_of_that_command(name, monkeypatch):
    text = _help(name, monkeypatch)
    sections = text.rstrip().split("\n\n")
    last = sections[-1].splitlines()
    assert last[0] == "examples:", f"holyclient {name} --help ends with {last[0]!r}, not examples:"
    prog = SUBPARSERS[name].prog
    commands = [line.strip() for line in last[1:] if line.strip().startswith("holyclient ")]
    assert commands and all(command.startswith(prog) for command in commands), last


@pytest.mark.parametrize(("name", "groups"), [("estimate", 5), ("batch", 6)])
def test_long_helps_group_their_options(name, groups, monkeypatch):
    parser = SUBPARSERS[name]
    titled = [g for g in parser._action_groups if g.title not in ("positional arguments", "options")]
    assert len(titled) >= groups, [g.title for g in titled]
    assert all(g._group_actions for g in titled)
    text = _help(name, monkeypatch)
    for group in titled:
        assert f"\n{group.title}:\n" in text


def _compare_help_keeps_one_metric_a_line(text: str) -> None:
    lines = text.splitlines()
    for metric in METRICS:
        assert any(line.startswith(f"  {metric}  ") for line in lines), metric


def test_compare_help_lists_one_metric_a_line(monkeypatch):
    _compare_help_keeps_one_metric_a_line(_help("compare", monkeypatch, columns=64))


def test_the_cli_reference_page_lists_one_metric_a_line():
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "docs" / "_hooks" / "cli_reference.py"
    )
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.render()
    _compare_help_keeps_one_metric_a_line(page[page.index("## holyclient compare") :])


def test_keys_note_is_its_own_paragraph_not_an_exit_code(monkeypatch):
    text = _help("compare", monkeypatch)
    codes = text[text.index("exit codes:") :].split("\n\n")[0]
    assert "Keys are read" not in codes
    assert "\n\nKeys are read from HOLYSHEEP_API_KEY" in text


def test_building_the_command_line_imports_no_feature_package() -> None:
    """Every command (``holyclient chat``, ``--help``...) builds the whole parser first: it must not pay
    for importing the batch runner, compare's engine or the router (about 0.3 s of CPU)."""
    import subprocess
    import sys

    code = (
        "import sys; from holyclient._cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith(('holyclient.batch', 'holyclient.router')) "
        "or (m.startswith('holyclient.compare.') and m != 'holyclient.compare._gates')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
