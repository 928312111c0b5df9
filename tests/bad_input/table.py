"""The bad-input table: one row per hostile or ordinary-but-wrong input, run through ``main(argv)``.

Each command keeps its rows in its own ``test_<command>_rows.py`` module and runs them with
:func:`check_row`, so anyone can add a case by adding a row. A row names the files the command starts
with, the argv, the exit code and the first line of stderr, and which files may exist afterwards. The
harness also proves what every row promises: no traceback, no "internal error", a documented exit code,
nothing on stdout for a failure, and no file written or half-written that the row did not expect.

Commands that send (``batch``) run their rows with a ``relay``: a local server that records requests,
which ``HOLYSHEEP_BASE_URL`` points at. A row then also proves "nothing sent" -- and a regression that
sends goes to 127.0.0.1, never to the real relay.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.testing import LocalServer

DOCUMENTED_EXIT_CODES = {0, 1, 2, 3, 130}  # 3: migrate's incomplete site


@dataclass(frozen=True)
class Row:
    """One bad input. ``{tmp}`` in argv and ``stderr`` is replaced by the row's scratch directory."""

    id: str
    argv: tuple[str, ...]
    #: First line of stderr, as a regular expression matched at its start (after ``{tmp}`` is filled in;
    #: ``{tmp}`` is escaped for you).
    stderr: str
    exit: int = 2
    #: Files (relative path -> text or bytes) present before the run.
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    #: Relative paths that may appear or change; any other change to the scratch directory fails the row.
    writes: frozenset[str] = frozenset()
    #: Text fed to stdin (for ``-`` inputs); None leaves stdin alone.
    stdin: str | None = None
    #: Environment variables for the run (value None removes the variable).
    env: Mapping[str, str | None] = field(default_factory=dict)

    def __str__(self) -> str:  # pytest ids
        return self.id


def _snapshot(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
        elif path.is_dir():
            out[rel + "/"] = b""
    return out


def check_row(
    row: Row,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *,
    prepare: Callable[[Path], None] | None = None,
    relay: LocalServer | None = None,
) -> tuple[str, str]:
    """Run one row and assert everything the table promises; returns (stdout, stderr) for extra checks.

    With ``relay``, ``HOLYSHEEP_BASE_URL`` points at it (unless the row sets it) and the row must send
    it nothing.
    """
    root = tmp_path / "row"
    root.mkdir()
    for rel, content in row.files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if prepare is not None:
        prepare(root)
    monkeypatch.chdir(root)
    if relay is not None:
        monkeypatch.setenv("HOLYSHEEP_BASE_URL", relay.base_url)
    for name, value in row.env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    if row.stdin is not None:
        import io
        import sys

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(row.stdin.encode()), encoding="utf-8"))
    before = _snapshot(root)
    argv = [arg.replace("{tmp}", str(root)) for arg in row.argv]
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    after = _snapshot(root)

    assert code in DOCUMENTED_EXIT_CODES, f"undocumented exit code {code}: {err}"
    assert code == row.exit, f"exit {code}, expected {row.exit}; stderr:\n{err}"
    assert "Traceback" not in err and "internal error" not in err, err
    first = err.splitlines()[0] if err.strip() else ""
    pattern = re.escape(str(root)).join(row.stderr.split("{tmp}"))
    assert re.match(pattern, first), f"first stderr line {first!r} does not match {pattern!r}"
    if code == 2:
        assert out == "", f"stdout on a usage/input error: {out!r}"
    changed = {rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel)}
    unexpected = {rel for rel in changed if rel.rstrip("/") not in row.writes}
    assert not unexpected, f"files written that the row does not allow: {sorted(unexpected)}"
    if relay is not None:
        sent = [f"{r.method} {r.path}" for r in relay.requests]
        assert sent == [] and relay.stats["requests"] == 0, f"requests sent for a bad input: {sent}"
    return out, err
