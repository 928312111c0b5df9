"""Text from a server or a model, made safe to print on a terminal.

An answer or an error message may hold control characters: ANSI escape sequences that recolour,
move the cursor, rewrite earlier lines or set the window title, carriage returns that overwrite a
line, and bidirectional overrides that reorder what is shown. ``compare``'s text report and
``doctor``'s table print such text; each line goes through :func:`printable` first, so what the
terminal shows is what was received, spelled out (``\\x1b[31m``), never obeyed.
"""

from __future__ import annotations

import re

#: C0 and C1 controls, DEL, and the Unicode bidirectional controls (marks, embeddings, overrides,
#: isolates). Printable text, tabs included, is left alone.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(line: str) -> str:
    """``line`` with every control character written out as an escape (``\\x1b``, ``\\n``-as-``\\x0a``,
    ``\\u202e``), so that printing it cannot drive the terminal."""
    return _UNSAFE.sub(_escape, line)
