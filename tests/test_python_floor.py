"""The supported Python versions are stated once and agree everywhere (pyproject, tools, docs)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_requires_python_classifiers_tools_and_docs_agree_on_3_11():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["requires-python"] == ">=3.11"
    versions = [
        c.rsplit(" :: ", 1)[1]
        for c in project["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert min(versions, key=lambda v: tuple(map(int, v.split(".")))) == "3.11"
    assert project["tool"]["ruff"]["target-version"] == "py311"
    assert project["tool"]["mypy"]["python_version"] == "3.11"
    for doc in ("README.md", "DEVELOPERS.md"):
        text = (ROOT / doc).read_text()
        assert "Python 3.11+" in text and "3.10+" not in text, doc


def test_the_running_interpreter_is_supported():
    assert sys.version_info >= (3, 11)
