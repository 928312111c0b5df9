"""The guard before writing: only files git can give back are rewritten without ``--force``.

A file is safe to rewrite in place when ``git checkout`` can undo the rewrite: it is tracked and has
no uncommitted change. Everything else is refused, each with the reason: changed since the last
commit, untracked or git-ignored (git has no copy), or outside any git work tree (nothing has a copy).

The guard fails closed. Whenever git cannot answer (not installed, "dubious ownership", a broken
repository, a timeout) the run stops with :class:`GitError` rather than guessing that files are
clean; only a plain "not a git repository" counts as "not under git". Git runs with ``LC_ALL=C`` so
that this one message can be recognised in any locale.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable

MODIFIED = "uncommitted changes"
UNTRACKED = "untracked: git has no copy of it"
IGNORED = "ignored by git: git has no copy of it"
NOT_GIT = "not under git: nothing can undo the rewrite"

_ENV_OVERRIDES = {"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}


class MigrateError(Exception):
    """The run was refused before writing anything (missing path, files git cannot restore)."""


class GitError(MigrateError):
    """Git could not say whether the files to rewrite are committed, so nothing is written."""


class DirtyTreeError(MigrateError):
    """Files to rewrite could not be restored by git afterwards; commit them, or pass ``force=True``.

    ``reasons`` maps each refused path (once) to why: uncommitted changes, untracked, ignored, or
    not under git at all.
    """

    def __init__(self, reasons: dict[str, str]) -> None:
        self.reasons = dict(reasons)
        self.paths = list(self.reasons)
        #: True when no refused file is in a git work tree (then "commit them" is no advice)
        self.outside_git = set(self.reasons.values()) == {NOT_GIT}
        if self.outside_git:
            what = "not under git, so nothing can undo the rewrite"
        else:
            what = "not committed, so git cannot undo the rewrite"
        super().__init__(f"{len(self.paths)} file(s) to rewrite are {what}")


def _git(top: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-C", top, *args],
            input=stdin,
            capture_output=True,
            check=False,
            timeout=300,
            env={**os.environ, **_ENV_OVERRIDES},
        )
    except FileNotFoundError as exc:
        raise GitError(
            "git is not installed, so nothing can tell whether the files to rewrite are committed"
        ) from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run in {top}: {exc}") from exc


def _failure(top: str, out: subprocess.CompletedProcess[bytes]) -> GitError:
    lines = out.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = lines[0] if lines else f"exit status {out.returncode}"
    return GitError(f"git failed in {top} ({detail}), so it cannot tell whether the files are committed")


def toplevel(directory: str) -> str | None:
    """The work tree containing ``directory``, None when it is not in one; GitError for anything else."""
    out = _git(directory, "rev-parse", "--show-toplevel")
    if out.returncode == 0 and out.stdout.strip():
        return os.fsdecode(out.stdout.strip())
    if out.returncode != 0 and b"not a git repository" in out.stderr:
        return None
    raise _failure(directory, out)


def git_dir(directory: str) -> str | None:
    """The ``.git`` directory of the work tree holding ``directory`` (None outside git or when git fails):
    where backups of files git cannot restore are kept, out of the work tree and of every commit."""
    try:
        out = _git(directory, "rev-parse", "--absolute-git-dir")
    except GitError:
        return None
    return os.fsdecode(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def _entries(top: str, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)) -> list[bytes]:
    out = _git(top, *args, stdin=stdin)
    if out.returncode not in ok:
        raise _failure(top, out)
    return [e for e in out.stdout.split(b"\0") if e]


def _modified(top: str) -> set[bytes]:
    """Tracked paths with a staged or unstaged change (rename sources included)."""
    changed: set[bytes] = set()
    entries = _entries(top, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames")
    for entry in entries:
        if len(entry) > 3:
            changed.add(entry[3:])
    return changed


def unrecoverable(paths: Iterable[str]) -> dict[str, str]:
    """Those of ``paths`` that git could not give back after a rewrite, each with the reason.

    Raises:
        GitError: git failed for a directory holding one of the paths.
    """
    reasons: dict[str, str] = {}
    tops: dict[str, str | None] = {}
    by_top: dict[str, list[tuple[str, bytes]]] = {}
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in tops:
            tops[directory] = toplevel(directory)
        top = tops[directory]
        if top is None:
            reasons[path] = NOT_GIT
            continue
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
        by_top.setdefault(top, []).append((path, os.fsencode(rel.replace(os.sep, "/"))))
    for top, members in by_top.items():
        tracked = set(_entries(top, "ls-files", "-z", "--cached", "--full-name"))
        modified = _modified(top)
        outside = [name for _, name in members if name not in tracked]
        ignored: set[bytes] = set()
        if outside:
            # exit 1 means "none of them is ignored"
            ignored = set(
                _entries(top, "check-ignore", "-z", "--stdin", stdin=b"\0".join(outside) + b"\0", ok=(0, 1))
            )
        for member, name in members:
            if name in ignored:
                reasons[member] = IGNORED
            elif name not in tracked:
                reasons[member] = UNTRACKED
            elif name in modified:
                reasons[member] = MODIFIED
    return dict(sorted(reasons.items()))
