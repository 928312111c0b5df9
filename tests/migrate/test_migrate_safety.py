"""What a run reads and how it writes: skipped trees, symlinks, binaries, .gitignore, atomic writes
under failure, file modes, the process pool, and the import boundary of the codemod."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from migrate_support import git_repo, install

import holyclient.migrate as hm
from holyclient.migrate import _runner, _writer, migrate

URL = b"https://api.openai.com/v1\n"


def build_skip_tree(root: Path) -> None:
    (root / "keep.md").write_bytes(URL)
    for rel in (
        "node_modules/pkg/index.js",
        ".git-not/x.md",
        "venv/lib/x.py",
        ".venv/x.py",
        "ignored/x.md",
        "build.log",
        "__pycache__/x.md",
    ):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(URL)
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "image.bin").write_bytes(b"\x00\x01" + URL)
    (root / "mod.pyc").write_bytes(URL)
    (root / "data.txt").write_bytes(b"\x89PNG\x00" + URL)
    (root / ".gitignore").write_text("ignored/\n*.log\n")
    (root / "link.md").symlink_to(root / "keep.md")


@pytest.mark.parametrize("in_git", [False, True], ids=["plain-walk", "git-ls-files"])
def test_only_real_source_files_are_rewritten(tmp_path: Path, in_git: bool) -> None:
    build_skip_tree(tmp_path)
    if in_git:
        (tmp_path / ".git-not").rename(tmp_path / "sub")
        git_repo(tmp_path)
    report = migrate([tmp_path], write=False)
    changed = sorted(os.path.relpath(f.path, tmp_path) for f in report.changed)
    assert changed == (["keep.md", "sub/x.md"] if in_git else [".git-not/x.md", "keep.md"])


def test_interrupted_run_leaves_each_file_old_or_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(4):
        (tmp_path / f"f{i}.md").write_bytes(URL)
    real_replace = os.replace
    calls = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise KeyboardInterrupt  # the user hits Ctrl-C during the third write
        real_replace(src, dst)

    monkeypatch.setattr(_writer.os, "replace", failing_replace)
    with pytest.raises(KeyboardInterrupt):
        migrate([tmp_path], force=True)
    contents = [(tmp_path / f"f{i}.md").read_bytes() for i in range(4)]
    assert contents == [b"https://api.holysheep.ai/v1\n"] * 2 + [URL] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"f{i}.md" for i in range(4)]  # no temp files left


def test_write_error_is_reported_and_other_files_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        (tmp_path / f"f{i}.md").write_bytes(URL)
    real_replace = os.replace

    def flaky(src: str, dst: str) -> None:
        if dst.endswith("f1.md"):
            raise PermissionError(13, "read-only")
        real_replace(src, dst)

    monkeypatch.setattr(_writer.os, "replace", flaky)
    report = migrate([tmp_path], force=True)
    assert [os.path.basename(f.path) for f in report.failed] == ["f1.md"]
    assert (tmp_path / "f1.md").read_bytes() == URL
    assert (tmp_path / "f2.md").read_bytes() == b"https://api.holysheep.ai/v1\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_file_mode_is_kept(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\ncurl https://api.openai.com/v1/models\n")
    script.chmod(0o751)
    migrate([tmp_path], force=True)
    assert script.stat().st_mode & 0o7777 == 0o751
    assert b"api.holysheep.ai" in script.read_bytes()


def test_file_changed_between_read_and_write_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(b"new content\n")
    with pytest.raises(_writer.FileChangedError):
        _writer.atomic_write(str(path), URL, b"rewritten\n")
    assert path.read_bytes() == b"new content\n"


def test_process_pool_gives_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path)
    serial = migrate([tmp_path], write=False, jobs=1)
    monkeypatch.setattr(_runner, "PARALLEL_BYTES", 0)
    parallel = migrate([tmp_path], write=False, jobs=2)
    assert [(f.path, f.after, f.sites) for f in parallel.files] == [
        (f.path, f.after, f.sites) for f in serial.files
    ]


def test_clean_git_tree_is_written(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(URL)
    git_repo(tmp_path)
    report = migrate([tmp_path])
    assert report.wrote and [f.written for f in report.changed] == [True]


def test_codemod_never_imports_the_http_client() -> None:
    package = Path(hm.__file__).parent
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            )
            relative = node.module or "" if isinstance(node, ast.ImportFrom) and node.level > 1 else ""
            for name in [*names, relative]:
                assert not name.startswith(("httpx", "pydantic", "holyclient", "tiktoken", "_client")), (
                    source,
                    name,
                )


def test_public_api_is_exported() -> None:
    assert sorted(hm.__all__) == hm.__all__
    for name in hm.__all__:
        assert hasattr(hm, name)


def test_overlapping_paths_process_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(URL)
    report = migrate([tmp_path, tmp_path / "a.md", str(tmp_path) + "/./"], force=True)
    assert len(report.files) == 1 and not report.failed
    assert (tmp_path / "a.md").read_bytes() == b"https://api.holysheep.ai/v1\n"


def test_internal_error_in_one_file_skips_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_bytes(URL)
    (tmp_path / "b.py").write_bytes(b'U = "https://api.openai.com/v1"\n')
    from holyclient.migrate import _text

    def boom(*args: object, **kwargs: object) -> None:
        raise TypeError("bug")

    monkeypatch.setattr(_text, "rewrite", boom)
    report = migrate([tmp_path], force=True)
    assert [(os.path.basename(f.path), f.sites[0].kind) for f in report.failed] == [
        ("a.md", "internal-error")
    ]
    assert (tmp_path / "a.md").read_bytes() == URL
    assert (tmp_path / "b.py").read_bytes() == b'U = "https://api.holysheep.ai/v1"\n'


def test_progress_callback_reports_between_phases(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(URL)
    (tmp_path / "b.md").write_bytes(b"nothing here\n")
    messages: list[str] = []
    migrate([tmp_path], write=False, progress=messages.append)
    assert messages == ["scanned 2 files, 1 mention OpenAI; rewriting"]
