"""Writing results: atomic replacement, ``git apply``-able diffs and the dirty-tree guard.

Each file is written to a temporary file in its own directory and moved over the original with
``os.replace``, so an interrupted run leaves every file either old or new, never half-written.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile


class FileChangedError(OSError):
    """The file changed on disk between our read and our write; we leave it alone."""


def atomic_write(path: str, before: bytes, after: bytes) -> None:
    """Replace ``path`` with ``after`` if it still holds ``before``; keep its permission bits."""
    st = os.stat(path)
    with open(path, "rb") as current:
        if current.read() != before:
            raise FileChangedError(f"{path} changed during the run; not written")
    directory, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".holyclient-tmp", dir=directory or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(after)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
