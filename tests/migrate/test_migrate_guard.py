"""The guard before writing fails closed: only files git can give back are rewritten without --force.

Every test runs a real ``git`` in a scratch directory; failures are made real too (a repository owned by
another user, a ``git`` on PATH that fails, no ``git`` at all), never by patching the guard.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from migrate_support import git, git_repo

from holyclient._cli import main
from holyclient.migrate import DirtyTreeError, GitError, migrate

URL = "https://api.openai.com/v1\n"
NEW = "https://api.holysheep.ai/v1\n"


@pytest.fixture(autouse=True)
def isolated_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No global ``safe.directory = *`` or system config may hide what git really says."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Put a ``git`` first on PATH that runs ``script`` (sh) with the real git reachable as $REAL."""
    real = next(
        (
            os.path.join(d, "git")
            for d in os.environ.get("PATH", "").split(os.pathsep)
            if os.access(os.path.join(d, "git"), os.X_OK)
        ),
        None,
    )
    if real is None:
        pytest.skip("git is not installed")
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    exe = bindir / "git"
    exe.write_text(f'#!/bin/sh\nREAL="{real}"\n{script}\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")


def repo_with(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return git_repo(root)


def test_directory_not_under_git_is_refused_with_advice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text(URL)
    assert main(["migrate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holyclient migrate: refusing to write: 1 file(s) to rewrite are not under git")
    assert "nothing can undo the rewrite" in err and "--diff" in err and "--force" in err
    assert (tmp_path / "a.md").read_text() == URL
    assert main(["migrate", "--force", str(tmp_path)]) == 0
    assert (tmp_path / "a.md").read_text() == NEW


def test_dubious_ownership_refuses_instead_of_treating_files_as_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to hand the repository to another user")
    root = repo_with(tmp_path, {"a.md": "old\n"})
    (root / "a.md").write_text("uncommitted " + URL)
    for path in [root, *root.rglob("*")]:
        os.lchown(path, 54321, 54321)
    with pytest.raises(GitError, match="dubious ownership"):
        migrate([root])
    assert main(["migrate", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holyclient migrate: refusing to write: git failed in")
    assert "dubious ownership" in err and "nothing was written" in err
    assert (root / "a.md").read_text() == "uncommitted " + URL


def test_git_failing_on_status_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo_with(tmp_path, {"a.md": URL})
    fake_git(
        tmp_path,
        monkeypatch,
        'for a in "$@"; do [ "$a" = status ] && { echo "fatal: index file corrupt" >&2; exit 128; }; done\n'
        'exec "$REAL" "$@"',
    )
    assert main(["migrate", str(root)]) == 2
    assert "index file corrupt" in capsys.readouterr().err
    assert (root / "a.md").read_text() == URL


def test_git_that_fails_with_empty_output_is_not_read_as_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo_with(tmp_path, {"a.md": "old\n"})
    (root / "a.md").write_text(URL)  # dirty
    fake_git(
        tmp_path,
        monkeypatch,
        'for a in "$@"; do [ "$a" = rev-parse ] && exec "$REAL" "$@"; done\nexit 1',
    )
    with pytest.raises(GitError, match="exit status 1"):
        migrate([root])
    assert (root / "a.md").read_text() == URL


def test_missing_git_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text(URL)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitError, match="git is not installed"):
        migrate([tmp_path])
    assert (tmp_path / "a.md").read_text() == URL


def test_broken_git_dir_counts_as_not_under_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo_with(tmp_path, {"a.md": URL})
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nonexistent"))
    with pytest.raises(DirtyTreeError) as info:
        migrate([root])
    assert info.value.outside_git
    assert (root / "a.md").read_text() == URL


def test_ignored_and_untracked_files_named_explicitly_are_refused(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {".gitignore": "secret/\n*.local.md\n", "tracked.md": URL})
    (root / "secret").mkdir()
    (root / "secret" / "notes.md").write_text(URL)
    (root / "x.local.md").write_text(URL)
    (root / "new.md").write_text(URL)
    names = ["secret/notes.md", "x.local.md", "new.md", "tracked.md"]
    with pytest.raises(DirtyTreeError) as info:
        migrate([root / n for n in names])
    reasons = {os.path.relpath(p, root): why for p, why in info.value.reasons.items()}
    assert reasons == {
        "new.md": "untracked: git has no copy of it",
        "secret/notes.md": "ignored by git: git has no copy of it",
        "x.local.md": "ignored by git: git has no copy of it",
    }
    assert not info.value.outside_git
    assert all((root / n).read_text() == URL for n in names)  # nothing written, not even tracked.md
    report = migrate([root / n for n in names], force=True)
    assert len(report.changed) == 4 and all((root / n).read_text() == NEW for n in names)


def test_staged_change_and_clean_subdirectory_file(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {"sub/clean.md": URL, "staged.md": "old\n"})
    (root / "staged.md").write_text(URL)
    git(root, "add", "staged.md")
    with pytest.raises(DirtyTreeError) as info:
        migrate([root])
    assert [os.path.relpath(p, root) for p in info.value.paths] == ["staged.md"]
    git(root, "commit", "-q", "-m", "staged")
    migrate([root])
    assert (root / "sub" / "clean.md").read_text() == NEW


def test_refusal_lists_each_file_once_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo_with(tmp_path, {f"f{i}.md": "old\n" for i in range(7)})
    for i in range(7):
        (root / f"f{i}.md").write_text(URL)
    assert main(["migrate", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        "holyclient migrate: refusing to write: 7 file(s) to rewrite are not committed, "
        "so git cannot undo the rewrite"
    )
    for i in range(7):
        assert err.count(f"f{i}.md") == 1
    assert f"{root / 'f3.md'}: uncommitted changes" in err
    assert "nothing was written; commit them" in err


def test_git_error_in_another_encoding_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text(URL)
    fake_git(tmp_path, monkeypatch, "printf 'fatal: d\\351p\\364t introuvable\\n' >&2\nexit 128")
    with pytest.raises(GitError, match="fatal: d\ufffdp\ufffdt introuvable"):
        migrate([tmp_path])


def test_not_a_repository_is_recognised_whatever_the_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git translates its messages; the guard runs it with LC_ALL=C to read "not a git repository"."""
    (tmp_path / "a.md").write_text(URL)
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    fake_git(
        tmp_path,
        monkeypatch,
        '[ "$LC_ALL" = C ] || { echo "fatal: Kein Git-Repository" >&2; exit 128; }\nexec "$REAL" "$@"',
    )
    with pytest.raises(DirtyTreeError) as info:
        migrate([tmp_path / "a.md"])
    assert info.value.outside_git


def test_git_info_exclude_is_honoured_when_listing_files(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {"a.md": URL})
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("private.md\n")
    (root / "private.md").write_text(URL)  # only git knows it is excluded
    report = migrate([root], write=False)
    assert [os.path.basename(f.path) for f in report.changed] == ["a.md"]
