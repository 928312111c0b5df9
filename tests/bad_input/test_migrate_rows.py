"""Bad inputs for ``holyclient migrate``: wrong paths and flags, files it cannot or must not rewrite.

Rows that need a git repository (or a failing git) name a ``prepare`` step in :data:`PREPARE`; git runs
with a scratch ``HOME`` so no global ``safe.directory`` or config changes what it says.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bad_input.table import Row, check_row

OPENAI = "https://api.openai.com/v1\n"
USAGE = "usage: holyclient migrate"
SUMMARY = "migrate: scanned "
REFUSED = "holyclient migrate: refusing to write: "


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _repo(root: Path) -> None:
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "init", "--allow-empty")


def _dirty(root: Path) -> None:
    _repo(root)
    (root / "a.md").write_text("edited, not committed: " + OPENAI)


def _untracked(root: Path) -> None:
    (root / "new.md").unlink()
    _repo(root)
    (root / "new.md").write_text(OPENAI)


def _ignored(root: Path) -> None:
    _repo(root)
    (root / "local.md").write_text(OPENAI)


def _failing_git(root: Path) -> None:
    _repo(root)
    bindir = root / ".bin"
    bindir.mkdir()
    real = shutil.which("git")
    fake = bindir / "git"
    fake.write_text(
        f'#!/bin/sh\nfor a in "$@"; do [ "$a" = status ] && {{ echo "fatal: bad index file" >&2; exit 128; }}; done\n'
        f'exec "{real}" "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"  # restored by the fixture


def _fifo(root: Path) -> None:
    os.mkfifo(root / "pipe.md")


def _symlink(root: Path) -> None:
    (root / "link.md").symlink_to(root / "real.md")


def _hard_link(root: Path) -> None:
    os.link(root / "a.md", root / "b.md")


NEEDS_GIT = {"dirty-file", "untracked-file", "ignored-file-named", "git-fails", "clean-git-tree"}
PREPARE: dict[str, Callable[[Path], None]] = {
    "dirty-file": _dirty,
    "untracked-file": _untracked,
    "ignored-file-named": _ignored,
    "git-fails": _failing_git,
    "clean-git-tree": _repo,
    "fifo-named": _fifo,
    "symlink-named": _symlink,
    "hard-linked-file": _hard_link,
}

ROWS = [
    Row("missing-path", ("migrate", "nope"), stderr="holyclient migrate: no such file or directory: nope"),
    Row("empty-path", ("migrate", ""), stderr="holyclient migrate: no such file or directory: ''"),
    Row("jobs-zero", ("migrate", "--jobs", "0", "."), stderr=USAGE),
    Row(
        "base-url-env-not-a-name",
        ("migrate", "--base-url-env", "MY-URL", "."),
        stderr="holyclient migrate: --base-url-env: 'MY-URL' is not an environment variable name",
    ),
    Row(
        "base-url-env-starts-with-a-digit",
        ("migrate", "--base-url-env", "1URL", "."),
        stderr="holyclient migrate: --base-url-env: '1URL' is not an environment variable name",
    ),
    Row("base-url-env-without-name", ("migrate", ".", "--base-url-env"), stderr=USAGE),
    Row("jobs-negative", ("migrate", "--jobs", "-1", "."), stderr=USAGE),
    Row("jobs-not-a-number", ("migrate", "--jobs", "two", "."), stderr=USAGE),
    Row("keys-unknown", ("migrate", "--keys", "drop", "."), stderr=USAGE),
    # the subcommand's usage once the CLI's parser reports unknown flags per command (issue 10)
    Row("unknown-flag", ("migrate", "--frobnicate"), stderr="usage: holyclient"),
    Row("check-and-diff", ("migrate", "--check", "--diff", "."), stderr=USAGE),
    Row(
        "json-and-diff",
        ("migrate", "--json", "--diff", "."),
        stderr="holyclient migrate: --json and --diff both write to stdout; pick one",
        files={"a.md": OPENAI},
    ),
    Row(
        "not-under-git",
        ("migrate", "."),
        stderr=REFUSED + r"1 file\(s\) to rewrite are not under git, so nothing can undo the rewrite",
        files={"a.md": OPENAI},
    ),
    Row(
        "dirty-file",
        ("migrate", "."),
        stderr=REFUSED + r"1 file\(s\) to rewrite are not committed, so git cannot undo the rewrite",
        files={"a.md": "old\n"},
    ),
    Row(
        "untracked-file",
        ("migrate", "."),
        stderr=REFUSED + r"1 file\(s\) to rewrite are not committed",
        files={"new.md": ""},
    ),
    Row(
        "ignored-file-named",
        ("migrate", "local.md"),
        stderr=REFUSED + r"1 file\(s\) to rewrite are not committed",
        files={".gitignore": "local.md\n"},
    ),
    Row(
        "git-fails",
        ("migrate", "a.md"),
        stderr=REFUSED + r"git failed in .* \(fatal: bad index file\)",
        files={"a.md": OPENAI},
    ),
    Row(
        "clean-git-tree",
        ("migrate", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 1 changed",
        exit=0,
        files={"a.md": OPENAI},
        writes=frozenset({"a.md"}),
    ),
    Row(
        "binary-file-named",
        ("migrate", "--force", "data.txt"),
        stderr=SUMMARY + "1 files, 0 mention OpenAI, 0 changed, 0 failed, 1 skipped",
        exit=0,
        files={"data.txt": b"\x89PNG\x00\x01" + OPENAI.encode()},
    ),
    Row(
        "fifo-named",
        ("migrate", "--force", "pipe.md"),
        stderr=SUMMARY + "0 files, 0 mention OpenAI, 0 changed, 0 failed, 1 skipped",
        exit=0,
    ),
    Row(
        "symlink-named",
        ("migrate", "--force", "link.md"),
        stderr=SUMMARY + "0 files, 0 mention OpenAI, 0 changed, 0 failed, 1 skipped",
        exit=0,
        files={"real.md": OPENAI},
    ),
    Row(
        "hard-linked-file",
        ("migrate", "--force", "a.md"),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 0 changed, 1 failed",
        exit=1,
        files={"a.md": OPENAI},
    ),
    Row(
        "python-that-does-not-parse",
        ("migrate", "--force", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 0 changed, 1 failed",
        exit=1,
        files={"bad.py": "import openai\nprint 'python 2'\n"},
    ),
    Row(
        "python-not-utf8",
        ("migrate", "--force", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 0 changed, 1 failed",
        exit=1,
        files={"latin.py": b"import openai\nNAME = 'caf\xe9'\n"},
    ),
    Row(
        "check-with-changes",
        ("migrate", "--check", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 1 would change",
        exit=1,
        files={"a.md": OPENAI},
    ),
    # issue 31: a site migrate cannot complete exits 3, in --check and in place, and writes nothing there
    Row(
        "kwargs-constructor-check",
        ("migrate", "--check", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 0 would change",
        exit=3,
        files={"h.py": "from openai import OpenAI\nc = OpenAI(**kwargs)\n"},
    ),
    Row(
        "openai-key-beside-openai-url",
        ("migrate", "--force", "."),
        stderr=SUMMARY + "1 files, 1 mention OpenAI, 0 changed",
        exit=3,
        files={
            ".env": "OPENAI_API_KEY=sk-proj-a1b2c3d4e5f6g7h8i9j0\nOPENAI_BASE_URL=https://api.openai.com/v1\n"
        },
    ),
    Row(
        "empty-directory",
        ("migrate", "."),
        stderr=SUMMARY + "0 files, 0 mention OpenAI, 0 changed",
        exit=0,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_migrate_row(
    row: Row,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if row.id in NEEDS_GIT and shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", os.environ["PATH"])  # a prepare step may prepend to it
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    check_row(row, tmp_path, capsys, monkeypatch, prepare=PREPARE.get(row.id))


def test_there_are_enough_rows() -> None:
    assert len(ROWS) >= 12
    assert len({row.id for row in ROWS}) == len(ROWS)
