"""What the run tells the user: every skipped path with its reason (stderr and --json), and bare
``api.openai.com`` hosts in prose or comments listed for review instead of rewritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from migrate_support import git_repo

from holyclient._cli import main
from holyclient.migrate import _walk, migrate, process

URL = b"https://api.openai.com/v1\n"
REVIEW = ("host", "review")


def skipped_tree(root: Path) -> None:
    (root / "keep.md").write_bytes(URL)
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.js").write_bytes(URL)
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "x.md").write_bytes(URL)
    (root / "data.txt").write_bytes(b"\x89PNG\x00" + URL)
    (root / "image.png").write_bytes(b"\x89PNG\x00" + URL)
    (root / "link.md").symlink_to(root / "keep.md")
    (root / "build.log").write_bytes(URL)
    (root / ".gitignore").write_bytes(b"# caf\xe9 (latin-1)\n*.log\n")
    (root / "myenv" / "lib").mkdir(parents=True)
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "myenv" / "lib" / "x.md").write_bytes(URL)


def test_every_skipped_path_is_named_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skipped_tree(tmp_path)
    assert main(["migrate", "--check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "1 would change, 0 failed, 5 skipped" in err
    for rel, reason in [
        ("build.log", "ignored by .gitignore"),
        ("data.txt", "binary content (NUL bytes)"),
        ("link.md", "symbolic link, not followed"),
        ("myenv", "vendored tree, virtual environment or package cache"),
        ("node_modules", "vendored tree, virtual environment or package cache"),
    ]:
        assert f"  {tmp_path / rel}: skipped: {reason}\n" in err
    assert "__pycache__" not in err and "image.png" not in err  # caches and known binary types: not listed


def test_json_report_lists_skipped_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skipped_tree(tmp_path)
    assert main(["migrate", "--check", "--json", str(tmp_path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    skipped = {os.path.relpath(s["path"], tmp_path): s["reason"] for s in doc["skipped"]}
    assert skipped == {
        "build.log": "ignored by .gitignore",
        "data.txt": "binary content (NUL bytes)",
        "link.md": "symbolic link, not followed",
        "myenv": "vendored tree, virtual environment or package cache",
        "node_modules": "vendored tree, virtual environment or package cache",
    }
    assert doc["summary"]["files_skipped"] == 5


def test_vendored_tree_committed_to_git_is_named_once(tmp_path: Path) -> None:
    (tmp_path / "app.md").write_bytes(URL)
    for i in range(3):
        (tmp_path / ".venv" / "lib").mkdir(parents=True, exist_ok=True)
        (tmp_path / ".venv" / "lib" / f"m{i}.py").write_bytes(b'U = "https://api.openai.com/v1"\n')
    git_repo(tmp_path)
    report = migrate([tmp_path], write=False)
    assert [(os.path.relpath(s.path, tmp_path), s.reason) for s in report.skipped] == [
        (".venv", "vendored tree, virtual environment or package cache")
    ]


def test_unreadable_file_is_named_with_the_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.md"
    path.write_bytes(URL)
    real_open = os.open

    def deny(name: str, flags: int, *args: int) -> int:
        if name == str(path):  # root reads every file, so the refusal is simulated
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, flags, *args)

    monkeypatch.setattr(_walk.os, "open", deny)
    report = migrate([tmp_path], write=False)
    assert [(s.path, s.reason) for s in report.skipped] == [(str(path), "cannot be read: Permission denied")]


def test_fifo_named_explicitly_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    report = migrate([fifo], write=False)
    assert [s.reason for s in report.skipped] == ["not a regular file"]


@pytest.mark.parametrize(
    ("name", "src"),
    [
        ("notes.md", b"We used to call api.openai.com directly.\n"),
        ("guide.rst", b"The old host (``api.openai.com``) is gone.\n"),
        ("a.py", b"import openai\n# talks to api.openai.com\n"),
        ("a.py", b'"""Talks to api.openai.com."""\nimport openai\n'),
        ("a.py", b'import openai\n\ndef f():\n    """Calls api.openai.com."""\n'),
        ("settings.yaml", b"# host: api.openai.com\nmodel: gpt-4o\n"),
        ("app.ts", b"const x = 1; // api.openai.com\n"),
        ("run.sh", b"curl $URL  # was api.openai.com\n"),
        ("setup.cfg", b"; api.openai.com\n"),
    ],
    ids=["markdown", "rst", "py-comment", "py-module-docstring", "py-docstring", "yaml", "ts", "sh", "ini"],
)
def test_bare_host_in_prose_or_a_comment_is_listed_for_review(name: str, src: bytes) -> None:
    result = process(name, src)
    assert result.status == "unchanged"
    assert [(s.kind, s.action) for s in result.sites] == [REVIEW]
    assert "api.holysheep.ai" in result.sites[0].message


@pytest.mark.parametrize(
    ("name", "src", "after"),
    [
        ("settings.yaml", b"host: api.openai.com\n", b"host: api.holysheep.ai\n"),
        ("a.py", b'HOST = "api.openai.com"\n', b'HOST = "api.holysheep.ai"\n'),
        (".env", b"OPENAI_HOST=api.openai.com\n", b"OPENAI_HOST=api.holysheep.ai\n"),
        (
            "notes.md",
            b"curl https://api.openai.com/v1/models\n",
            b"curl https://api.holysheep.ai/v1/models\n",
        ),
        ("a.py", b"# see https://api.openai.com/v1\n", b"# see https://api.holysheep.ai/v1\n"),
    ],
    ids=["yaml-value", "py-string", "dotenv", "url-in-prose", "url-in-comment"],
)
def test_configured_hosts_and_full_urls_are_still_rewritten(name: str, src: bytes, after: bytes) -> None:
    assert process(name, src).after == after


def test_bare_host_in_a_notebook_markdown_cell_is_listed_for_review() -> None:
    nb = json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": ["Calls api.openai.com\n"]},
                {
                    "cell_type": "code",
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                    "source": ['HOST = "api.openai.com"\n'],
                },
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    ).encode()
    result = process("nb.ipynb", nb)
    assert b"Calls api.openai.com" in result.after and b'HOST = \\"api.holysheep.ai\\"' in result.after
    assert [(s.kind, s.action) for s in result.sites] == [REVIEW, ("url", "rewrite")]


def test_review_hosts_appear_in_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "README.md").write_bytes(b"Built on api.openai.com.\n")
    assert main(["migrate", "--check", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "needs review: 1 (host 1)" in err
    assert f"{tmp_path / 'README.md'}:1: host: OpenAI API host named in prose" in err
