"""The ``holyclient`` command line: ``main(argv) -> int`` and one module per subcommand.

Exit codes follow ruff's contract, for every subcommand:

* 0 -- success, nothing to report;
* 1 -- the command ran and found something (changes, failed requests, over budget, an API error);
* 2 -- bad usage, bad input or an internal error;
* 3 -- ``migrate`` only: a site it could not complete (the app would still reach OpenAI).

stdout carries data (tables, one JSON document for ``--json``, JSONL); progress, warnings and
summaries go to stderr. Help text is plain text re-flowed to the terminal by
:class:`._help.HelpFormatter`; an unknown option prints the usage of the subcommand it was given to.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .._version import __version__
from ._help import HelpFormatter

#: Subcommand modules, in the order ``--help`` lists them. Each module exposes
#: ``register(subparsers) -> None``, which adds its parser and sets ``func`` to a
#: ``run(args) -> int`` callable. Modules import their heavy dependencies inside ``run``.
SUBCOMMANDS = (
    "tour",
    "chat",
    "serve",
    "estimate",
    "calibrate",
    "models",
    "batch",
    "migrate",
    "doctor",
    "compare",
)

EPILOG = """\
exit codes:
  0  success
  1  findings, changes, failed requests or an API error
  2  usage or input error
  3  migrate: a site it could not complete (listed first, with the fix)

"holyclient COMMAND --help" describes each command."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holyclient",
        description="OpenAI-compatible SDK and tools for the HolySheep relay.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"holyclient {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(subparsers)
    for sub in subparsers.choices.values():  # one look for every command's help, whatever it registered
        sub.formatter_class = HelpFormatter
        nested = getattr(sub, "merge", None)  # `batch merge`
        if nested is not None:
            nested.formatter_class = HelpFormatter
    return parser


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser | None = action.choices.get(command)
            return found
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code (never raises ``SystemExit`` for usage errors)."""
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
        if unknown:
            # The top-level parser would report these with its own usage; the subcommand's usage is
            # the one that lists the options the user was looking for.
            command = getattr(args, "command", None)
            target = _subparser(parser, command) if command else None
            # A subcommand may explain a likely cause (``--gate p95_ratio "<=" 1.3`` needs quotes).
            explain = getattr(args, "explain_unknown", None)
            hint = explain(args, unknown) if explain is not None else None
            (target or parser).error(
                f"unrecognized arguments: {' '.join(unknown)}" + (f" ({hint})" if hint else "")
            )
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code) if isinstance(exc.code, int) else 2
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``holyclient models | head``): not a failure of ours. Point stdout at
        # devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # a bug or an unexpected environment: exit 2 with one line, not a traceback
        if os.environ.get("HOLYCLIENT_DEBUG"):
            raise
        print(f"holyclient {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("(set HOLYCLIENT_DEBUG=1 for the traceback)", file=sys.stderr)
        return 2


def console_main() -> None:
    """Entry point of the ``holyclient`` console script."""
    sys.exit(main())
