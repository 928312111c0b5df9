"""Helpers for the codemod tests: fixture pairs and throwaway git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def target_name(stem: str) -> str:
    """The file name a fixture is installed as: ``compose.docker-compose.yml`` -> ``docker-compose.yml``,
    ``dotenv.env.example`` -> ``.env.example``; Python and notebook fixtures keep their name."""
    if stem.startswith(("python_", "notebook")):
        return stem
    kind, _, name = stem.partition(".")
    return "." + name if kind == "dotenv" else name


def pairs() -> list[tuple[str, bytes, bytes]]:
    out = []
    for before in sorted(FIXTURES.glob("*.before")):
        stem = before.name[: -len(".before")]
        after = FIXTURES / f"{stem}.after"
        out.append((target_name(stem), before.read_bytes(), after.read_bytes()))
    return out


def install(root: Path, which: str = "before") -> dict[str, bytes]:
    """Write every fixture's before (or after) side into ``root``; returns name -> expected after."""
    expected = {}
    for name, before, after in pairs():
        (root / name).write_bytes(before if which == "before" else after)
        expected[name] = after
    return expected


def git(root: Path, *args: str) -> str:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    out = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-C", str(root), *args],
        capture_output=True,
        check=True,
        env=env,
        timeout=60,
    )
    return out.stdout.decode()


def git_repo(root: Path) -> Path:
    """``root`` as a git repository with everything in it committed."""
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init", "--allow-empty")
    return root
