"""The two real-world failures of issue 31, reproduced: an OpenAI key left beside a HolySheep URL, and a
half migration (``OpenAI(**kwargs)``, shell_gpt's shape) that exited 0. A site migrate cannot complete
makes the run exit 3, is listed first with file:line and the fix, fails ``--check``, and is never
silently skipped by ``--base-url-env``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.migrate import process

INCOMPLETE = 3
SECRET = "sk-proj-" + "Q2xhdWRlU2F5c0hlbGxvV29ybGQx" + "abcdEFGH1234"
ENV_PAIR = f"OPENAI_API_KEY={SECRET}\nOPENAI_BASE_URL=https://api.openai.com/v1\n"

HANDLER = """\
from openai import OpenAI

from .config import cfg


class Handler:
    def __init__(self) -> None:
        kwargs = {"api_key": cfg.get("OPENAI_API_KEY"), "timeout": 60}
        if cfg.get("API_BASE_URL") != "default":
            kwargs["base_url"] = cfg.get("API_BASE_URL")
        self.client = OpenAI(**kwargs)
"""


def test_env_pair_never_leaves_an_openai_key_beside_a_holysheep_url(tmp_path: Path) -> None:
    result = process(".env", ENV_PAIR.encode())
    assert b"holysheep" not in result.after  # the URL stays OpenAI's while OpenAI's key is beside it
    assert result.after == ENV_PAIR.encode()
    incomplete = [s for s in result.sites if s.action == "incomplete"]
    assert [(s.line, s.kind) for s in incomplete] == [(1, "openai-key-beside-url")]
    assert "line 2" in incomplete[0].message and "HOLYSHEEP_API_KEY" in incomplete[0].message
    assert SECRET not in "".join(s.message for s in result.sites)


def test_env_pair_run_exits_3_and_names_the_key_line_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".env").write_text(ENV_PAIR)
    assert main(["migrate", "--force", str(tmp_path)]) == INCOMPLETE
    assert (tmp_path / ".env").read_text() == ENV_PAIR
    err = capsys.readouterr().err
    assert SECRET not in err
    sites = [line.strip() for line in err.splitlines()[1:] if line.startswith("  ") and ":" in line]
    assert sites[0].startswith("incomplete:")
    assert ".env:1: openai-key-beside-url:" in sites[1]
    assert main(["migrate", "--check", str(tmp_path)]) == INCOMPLETE


def test_a_placeholder_key_beside_the_url_is_migrated_whole() -> None:
    result = process(".env", b"OPENAI_API_KEY=your-key-here\nOPENAI_BASE_URL=https://api.openai.com/v1\n")
    assert result.after.startswith(
        b"HOLYSHEEP_API_KEY=your-key-here\nOPENAI_BASE_URL=https://api.holysheep.ai/v1\n"
    )
    assert not [s for s in result.sites if s.action == "incomplete"]


def test_python_literal_key_blocks_the_constructor_rewrite() -> None:
    src = f'from openai import OpenAI\n\nclient = OpenAI(api_key="{SECRET}")\n'.encode()
    result = process("app.py", src)
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [
        (3, "openai-key-beside-url")
    ]


def test_kwargs_constructor_is_incomplete_with_file_line_and_the_fix() -> None:
    result = process("handler.py", HANDLER.encode())
    incomplete = [s for s in result.sites if s.action == "incomplete"]
    assert [(s.line, s.kind) for s in incomplete] == [(11, "kwargs-constructor")]
    assert "fix:" in incomplete[0].message and "base_url=" in incomplete[0].message


def test_kwargs_constructor_makes_check_and_write_exit_3_listed_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = tmp_path / "sgpt"
    app.mkdir()
    (app / "handler.py").write_text(HANDLER)
    (app / "config.py").write_text('import os\ncfg = {"OPENAI_API_KEY": os.getenv("OPENAI_API_KEY")}\n')
    assert main(["migrate", "--check", str(tmp_path)]) == INCOMPLETE
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[1].strip().startswith("incomplete: 1")
    assert "handler.py:11: kwargs-constructor:" in lines[2]
    assert main(["migrate", "--force", str(tmp_path)]) == INCOMPLETE
    assert "handler.py:11" in capsys.readouterr().err


def test_base_url_env_is_not_silently_ignored_on_a_kwargs_constructor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "handler.py").write_text(HANDLER)
    code = main(["migrate", "--check", "--base-url-env", "HOLYSHEEP_BASE_URL", str(tmp_path)])
    assert code == INCOMPLETE
    err = capsys.readouterr().err
    assert "--base-url-env HOLYSHEEP_BASE_URL could not be applied" in err


def test_a_site_finished_by_hand_can_be_marked_and_no_longer_fails_the_run(tmp_path: Path) -> None:
    marked = HANDLER.replace("OpenAI(**kwargs)", "OpenAI(**kwargs)  # holyclient-migrate: ok")
    (tmp_path / "handler.py").write_text(marked)
    assert main(["migrate", "--force", str(tmp_path)]) == 0  # the key names are renamed, nothing is left
    assert main(["migrate", "--check", str(tmp_path)]) == 0


def test_a_computed_base_url_is_incomplete() -> None:
    src = b'import os\nfrom openai import OpenAI\nc = OpenAI(base_url=os.environ["OPENAI_BASE_URL"])\n'
    result = process("a.py", src)
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [(3, "runtime-url")]


def test_exit_code_3_is_documented_everywhere_exit_codes_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from holyclient._cli import build_parser

    monkeypatch.setenv("COLUMNS", "100")
    parser = build_parser()
    assert "\n  3   migrate: a site it could not complete" in parser.format_help()
    sub = next(a for a in parser._actions if a.dest == "command").choices["migrate"]  # type: ignore[attr-defined]
    assert "\n  3   a site migrate could not complete" in sub.format_help()
    root = Path(__file__).resolve().parents[2]
    assert "| 3 | a site migrate could not complete" in (root / "docs/guides/migrating.md").read_text()
    for page in ("README.md", "CONTRIBUTING.md", "docs/reference/cli.md"):
        text = " ".join((root / page).read_text().split())
        assert (
            "3 a site it could not complete" in text or "exits 3 for a site it could not complete" in text
        ), page


def test_the_migration_guide_says_what_exit_0_means_beside_an_unchanged_exit_code_table() -> None:
    """The guarantee in one paragraph, and the table it sits beside still saying what each code meant
    before the proof (exit 3 wins over every other outcome; 0 is everything written and proven)."""
    guide = (Path(__file__).resolve().parents[2] / "docs/guides/migrating.md").read_text()
    section = guide.split("\n## What exit 0 means\n", 1)[1].split("\n## ", 1)[0]
    paragraph = " ".join(section.strip().split("\n\n")[0].split())
    assert paragraph.startswith(
        "Exit 0 means migrate has proven, on the files as rewritten, that every client"
    )
    for said in ("with a HolySheep key", "no HolySheep key can reach api.openai.com", "incomplete (exit 3)"):
        assert said in paragraph, said
    assert "--check` and every rerun run the same proof" in paragraph
    table = re.findall(r"^\| (\d) \| (.+) \|$", guide, re.M)
    assert table == [
        ("0", "nothing to change, or every change written and nothing failed"),
        ("1", "`--check` / `--diff` found changes, or a file could not be parsed or written"),
        ("2", "bad usage, a missing path, or files git could not restore (nothing written)"),
        (
            "3",
            "a site migrate could not complete: listed first, with `file:line` and the fix, whatever else happened",
        ),
    ]
