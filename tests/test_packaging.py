"""Packaging metadata agrees with the files: the declared licence ships, contributing is self-contained."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_declared_licence_has_its_file():
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_contributing_needs_nothing_outside_the_clone():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "../shared" not in text and "STYLE.md" not in text
    assert "bash .ci/run" in text


def test_no_tracked_file_holds_a_merge_conflict_marker() -> None:
    """A merge resolved in a hurry once left ``<<<<<<<`` / ``>>>>>>>`` blocks in CHANGELOG.md for two
    rounds: every text file git tracks is checked for them."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    marked = []
    for name in listed.stdout.splitlines():
        path = root / name
        if path.suffix in {".gz", ".png", ".ico"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in text.splitlines()):
            marked.append(name)
    assert not marked, f"merge conflict markers in {marked}"
