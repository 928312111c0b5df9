"""Help text as plain text wrapped to the terminal: paragraphs re-flowed, lists kept as lists.

argparse's default formatter joins every line of a description into one paragraph, and
``RawDescriptionHelpFormatter`` wraps nothing, so a description written for 100 columns breaks on an
80-column terminal. :class:`HelpFormatter` re-flows each paragraph to the terminal width but keeps
list items (``- item``, ``* item``, ``0  meaning``, ``  term  meaning``) on their own lines with a
hanging indent, keeps lines indented by four spaces verbatim (commands to copy), and turns a one-line ``exit codes: 0 a, 1 b, 2 c``
into a short list, so every subcommand's exit codes read the same way.
"""

from __future__ import annotations

import argparse
import re
import textwrap

# A list item: "- item", "* item", "0  meaning", or a definition "  term    meaning" (two spaces before
# the term, at least two after it), each wrapped with a hanging indent under its text.
_ITEM = re.compile(r"^(\s*)(?:[-*]|\d{1,3}(?=\s))\s+|^  \S+ {2,}")
_EXIT_CODES = re.compile(r"^exit codes:\s*", re.IGNORECASE)
_EXIT_SPLIT = re.compile(r"(?:[;,]\s+|\s*\n\s*)(?=(?:0|1|2|3|130)\s)")


def exit_code_list(text: str) -> str:
    """``exit codes: 0 a, 1 b; 2 c`` -> one ``  N  meaning`` line per code (other text unchanged)."""
    match = _EXIT_CODES.match(text)
    if not match:
        return text
    items = _EXIT_SPLIT.split(text[match.end() :].strip())
    if len(items) < 2 or not all(re.match(r"(?:0|1|2|3|130)\s", item) for item in items):
        return text
    lines = []
    for item in items:
        code, _, meaning = item.partition(" ")
        lines.append(f"  {code:<3} {' '.join(meaning.split())}")
    return "exit codes:\n" + "\n".join(lines)


class HelpFormatter(argparse.HelpFormatter):
    """Wraps descriptions and epilogs to the terminal width; see the module docstring."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        width = max(width, 40)
        out: list[str] = []
        for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
            if out:
                out.append("")
            out.extend(_fill_paragraph(exit_code_list(paragraph), width, indent))
        return "\n".join(out)


def _fill_paragraph(paragraph: str, width: int, indent: str) -> list[str]:
    # Blocks of [first-line prefix, hanging prefix, words]; None prefix marks a verbatim line.
    blocks: list[tuple[str | None, str, list[str]]] = []
    for line in paragraph.splitlines():
        if line.startswith("    "):
            blocks.append((None, "", [line]))
            continue
        match = _ITEM.match(line)
        if match:
            prefix = line[: match.end()]
            blocks.append((prefix, " " * len(prefix), line[match.end() :].split()))
        elif blocks and blocks[-1][0] is not None:
            blocks[-1][2].extend(line.split())
        else:
            blocks.append(("", "", line.split()))
    lines: list[str] = []
    for first, hanging, words in blocks:
        if first is None:
            lines.append(indent + words[0])
            continue
        lines.extend(
            textwrap.wrap(
                " ".join(words),
                width,
                initial_indent=indent + first,
                subsequent_indent=indent + hanging,
                break_on_hyphens=False,
                break_long_words=False,
            )
            or [indent + first.rstrip()]
        )
    return lines
