"""Packaging metadata agrees with the files: the declared licence ships, contributing is self-contained."""

from __future__ import annotations

import tomllib
from pathlib import Path

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
