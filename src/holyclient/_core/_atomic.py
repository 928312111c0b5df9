"""Writing a whole file atomically: readers see the old file or the new one, never a half-written one.

Shared by ``holyclient compare --output`` and ``holyclient batch merge``. (``holyclient migrate`` has its
own writer: it must also keep the permission bits, owner and links of the files it rewrites.)
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def write_atomically(path: Path, chunks: Iterable[str]) -> None:
    """Write ``chunks`` (UTF-8) to a temporary file beside ``path``, then rename it over ``path``.

    The temporary file is removed if anything fails, even an interrupt.
    """
    # Opened by name, not with ``tempfile.mkstemp``: mkstemp's files are 0600, and the result should get
    # the mode any new file gets under the user's umask.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as file:
            file.writelines(chunks)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
