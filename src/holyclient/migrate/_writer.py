"""Writing results: atomic replacement and ``git apply``-able diffs.

Each file is written to a temporary file in its own directory and moved over the original with
``os.replace``, so an interrupted run leaves every file either old or new, never half-written. The
replacement keeps what ``os.replace`` alone would lose: the permission bits, the owner and group, and
(after the rename) the directory entry on disk. What a rename cannot keep is refused instead: a file with
other hard links (they would go on holding the old text), and a path that became a symbolic link or
another file after the scan (we would replace the link, not edit what it points to).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile

from . import _walk
from ._guard import git_dir, toplevel

_READ_FLAGS = _walk.READ_FLAGS  # O_NOFOLLOW: a symlink swapped in since the scan is not followed


class NotWrittenError(OSError):
    """The file was left as it is; ``kind`` names why in the report."""

    kind = "write-error"


class FileChangedError(NotWrittenError):
    """The file changed on disk between our read and our write (content, inode, or now a symlink)."""

    kind = "changed-on-disk"


class HardLinkError(NotWrittenError):
    """The file has other hard links, which a rename would leave holding the old text."""

    kind = "hard-link"


class OwnerError(NotWrittenError):
    """The new file could not be given the old one's owner and group."""

    kind = "owner"


def _read_checked(path: str, before: bytes) -> os.stat_result:
    """The file's stat, after checking it is still the regular file we read, holding ``before``."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if os.path.islink(path):
            raise FileChangedError(f"{path} became a symbolic link during the run; not written") from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileChangedError(f"{path} is no longer a regular file; not written")
        if st.st_nlink > 1:
            raise HardLinkError(
                f"{path} has {st.st_nlink} hard links that a rewrite would split; not written "
                "(edit it by hand, see --diff)"
            )
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    if b"".join(chunks) != before:
        raise FileChangedError(f"{path} changed during the run; not written")
    return st


def _keep_owner(fd: int, path: str, st: os.stat_result) -> None:
    if not hasattr(os, "fchown"):
        return
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) == (st.st_uid, st.st_gid):
        return
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError as exc:
        raise OwnerError(
            f"{path} belongs to uid {st.st_uid} gid {st.st_gid}, which this user cannot give the "
            "rewritten file; not written"
        ) from exc


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable; the data was fsynced before it."""
    if not hasattr(os, "O_DIRECTORY"):
        return  # Windows: directories cannot be opened, and NTFS journals the rename
    # the file is already replaced: a failure here must not report it as "not written"
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write(path: str, before: bytes, after: bytes) -> None:
    """Replace ``path`` with ``after`` if it is still the regular file holding ``before``.

    Keeps the permission bits, owner and group, and fsyncs the file and then its directory.

    Raises:
        NotWrittenError: the file was left untouched: it changed since it was read
            (:class:`FileChangedError`, also when it became a symlink), it has other hard links
            (:class:`HardLinkError`), or its owner cannot be kept (:class:`OwnerError`).
        OSError: writing failed; the original is untouched and no temporary file is left.
    """
    st = _read_checked(path, before)
    directory, name = os.path.split(path)
    directory = directory or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".holyclient-tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(after)
            out.flush()
            _keep_owner(out.fileno(), path, st)
            os.chmod(tmp, st.st_mode & 0o7777)  # after the chown, which clears set-id bits
            os.fsync(out.fileno())
        # last look before the rename: a symlink or another file swapped in since the read is left alone
        now = os.lstat(path)
        if (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) != (
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
        ):
            kind = "became a symbolic link" if stat.S_ISLNK(now.st_mode) else "changed"
            raise FileChangedError(f"{path} {kind} during the run; not written")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def backup(path: str, data: bytes, stamp: str) -> str:
    """Keep ``data`` (the file as it was) before a rewrite git cannot undo (a git-ignored file): under
    ``.git/holyclient-migrate/STAMP/`` at the file's path in the work tree, readable by its owner only;
    beside the file as ``NAME.holyclient-backup`` outside git. Returns where it went.

    Raises:
        OSError: the backup could not be written (the caller then does not rewrite the file).
    """
    directory = os.path.dirname(os.path.abspath(path))
    where = git_dir(directory)
    top = toplevel(directory) if where else None
    if where and top:
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
        dest = os.path.join(where, "holyclient-migrate", stamp, rel)
    else:
        dest = os.path.abspath(path) + ".holyclient-backup"
    os.makedirs(os.path.dirname(dest), mode=0o700, exist_ok=True)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    return dest


def _lines(data: bytes) -> list[bytes]:
    """Split at ``\\n`` only, as git does; a ``\\r`` stays part of its line."""
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(path: str, before: bytes, after: bytes, context: int = 3) -> bytes:
    """A git-style unified diff of the exact bytes, including ``\\ No newline at end of file``."""
    a, b = _lines(before), _lines(after)
    name = path.replace(os.sep, "/").encode("utf-8", "surrogateescape")
    a_name, b_name = _quote(b"a/" + name), _quote(b"b/" + name)
    out = [
        b"diff --git " + a_name + b" " + b_name + b"\n",
        b"--- " + a_name + b"\n",
        b"+++ " + b_name + b"\n",
    ]
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(b"@@ -%s +%s @@\n" % (_range(i1, i2 - i1), _range(j1, j2 - j1)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_mark(b" ", line) for line in a[a1:a2])
                continue
            out.extend(_mark(b"-", line) for line in a[a1:a2])
            out.extend(_mark(b"+", line) for line in b[b1:b2])
    return b"".join(out)


def _quote(name: bytes) -> bytes:
    """Git's C-style quoting, for names with quotes, backslashes or control characters."""
    if not any(c < 0x20 or c in (0x22, 0x5C, 0x7F) for c in name):
        return name
    escapes = {0x22: b'\\"', 0x5C: b"\\\\", 0x09: b"\\t", 0x0A: b"\\n"}
    body = b"".join(escapes.get(c, b"\\%03o" % c if c < 0x20 or c == 0x7F else bytes([c])) for c in name)
    return b'"' + body + b'"'


def _range(start: int, length: int) -> bytes:
    first = start + 1 if length else start
    return b"%d" % first if length == 1 else b"%d,%d" % (first, length)


def _mark(prefix: bytes, line: bytes) -> bytes:
    return prefix + line if line.endswith(b"\n") else prefix + line + b"\n\\ No newline at end of file\n"
