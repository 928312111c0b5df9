"""The one atomic writer (``batch merge``, ``compare --output``): all or nothing, no debris."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from holyclient._core._atomic import write_atomically


def test_a_write_that_fails_midway_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "merged.jsonl"
    target.write_text("old\n")

    def lines() -> Iterator[str]:
        yield "new 1\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, lines())
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["merged.jsonl"]


def test_a_finished_write_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "merged.jsonl"
    write_atomically(target, ["a\n", "b\n"])
    assert target.read_text() == "a\nb\n"
    assert [p.name for p in tmp_path.iterdir()] == ["merged.jsonl"]
