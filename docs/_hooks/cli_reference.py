"""MkDocs hook: fill ``<!-- cli-reference -->`` with ``--help`` of every subcommand.

The CLI reference is generated from the argument parsers at build time, so the page cannot drift from
what ``holyclient COMMAND --help`` prints.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

MARKER = "<!-- cli-reference -->"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def render() -> str:
    from holyclient._cli import build_parser

    os.environ["COLUMNS"] = "100"  # help wraps to the terminal; the page gets a fixed, readable width
    parser = build_parser()
    parts = ["## holyclient", "", "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in _subparsers(parser).items():
        parts += [f"## holyclient {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, render())
    return markdown
