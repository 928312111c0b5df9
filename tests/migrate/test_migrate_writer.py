"""``atomic_write`` keeps what a rename would lose (owner, group, hard links, the directory entry on disk)
and leaves alone a path that became a symlink after the scan."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.migrate import _writer, migrate

URL = b"https://api.openai.com/v1\n"
NEW = b"https://api.holysheep.ai/v1\n"


def test_owner_and_group_are_kept(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file another owner")
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    os.chown(path, 54321, 54322)
    path.chmod(0o640)
    migrate([tmp_path], force=True)
    st = path.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (54321, 54322, 0o640)
    assert path.read_bytes() == NEW


def test_owner_that_cannot_be_kept_leaves_the_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    real_fstat = os.fstat

    def other_owner(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_size == len(URL):  # the original, as opened for the check
            fields = list(st)
            fields[stat.ST_UID] = st.st_uid + 1
            return os.stat_result(fields)
        return st

    def refuse(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(_writer.os, "fstat", other_owner)
    monkeypatch.setattr(_writer.os, "fchown", refuse)
    report = migrate([tmp_path], force=True)
    assert [s.kind for s in report.failed[0].sites if s.action == "error"] == ["owner"]
    assert path.read_bytes() == URL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]  # no temporary file left


def test_hard_linked_file_is_refused_and_stays_linked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    outside = tmp_path.parent / f"{tmp_path.name}-link.md"
    os.link(path, outside)
    try:
        assert main(["migrate", "--force", str(tmp_path)]) == 1
        assert path.read_bytes() == URL
        assert os.path.samefile(path, outside)
        assert f"{path}:1: hard-link: {path} has 2 hard links" in capsys.readouterr().err
    finally:
        outside.unlink()


def test_symlink_swapped_in_after_the_scan_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    target = tmp_path / "target.md"
    target.write_bytes(URL)
    path.symlink_to(target)  # was a regular file holding URL when the run read it
    with pytest.raises(_writer.FileChangedError, match="symbolic link"):
        _writer.atomic_write(str(path), URL, NEW)
    assert path.is_symlink() and target.read_bytes() == URL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "target.md"]


def test_symlink_swapped_in_while_writing_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    target = tmp_path / "elsewhere.md"
    target.write_bytes(URL)
    real_fsync = os.fsync

    def swap_then_fsync(fd: int) -> None:
        if not path.is_symlink():
            path.unlink()
            path.symlink_to(target)
        real_fsync(fd)

    monkeypatch.setattr(_writer.os, "fsync", swap_then_fsync)
    with pytest.raises(_writer.FileChangedError, match="became a symbolic link"):
        _writer.atomic_write(str(path), URL, NEW)
    assert path.is_symlink() and target.read_bytes() == URL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "elsewhere.md"]


def test_file_rewritten_by_someone_else_while_writing_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    real_fsync = os.fsync

    def edit_then_fsync(fd: int) -> None:
        if path.read_bytes() == URL:
            path.write_bytes(b"edited by hand meanwhile\n")
        real_fsync(fd)

    monkeypatch.setattr(_writer.os, "fsync", edit_then_fsync)
    with pytest.raises(_writer.FileChangedError):
        _writer.atomic_write(str(path), URL, NEW)
    assert path.read_bytes() == b"edited by hand meanwhile\n"


def test_directory_is_fsynced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(URL)
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        events.append("fsync-dir" if stat.S_ISDIR(st.st_mode) else "fsync-file")
        if stat.S_ISDIR(st.st_mode):
            assert os.fstat(fd).st_ino == tmp_path.stat().st_ino
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        events.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(_writer.os, "fsync", fsync)
    monkeypatch.setattr(_writer.os, "replace", replace)
    _writer.atomic_write(str(path), URL, NEW)
    assert events == ["fsync-file", "replace", "fsync-dir"]
    assert path.read_bytes() == NEW


def test_relative_path_in_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.md").write_bytes(URL)
    _writer.atomic_write("a.md", URL, NEW)
    assert Path("a.md").read_bytes() == NEW
