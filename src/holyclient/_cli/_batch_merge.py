"""``holyclient batch merge``: the shards of a sharded batch back into one OUTPUT, exactly once each.

Spelled ``holyclient batch merge INPUT SHARD... -o OUTPUT``: a subcommand of ``batch`` (whose own first
argument is a file, so the batch parser hands over to this one; see :class:`BatchParser`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Merge the results of a sharded batch (`holyclient batch INPUT -o OUTPUT --shard K/N` on each worker)
into OUTPUT, in INPUT's order. Every custom_id of INPUT must appear exactly once across the shard
files: missing ids (a shard not finished, or not given), duplicates, ids not in INPUT and results
made from an earlier version of INPUT (its request edited since the shard ran) are reported and
nothing is written (exit 1). Failed results count as present: rerun their shard with
--retry-failed first if you want them sent again."""

EPILOG = """\
exit codes:
  0    merged: every custom_id exactly once
  1    missing, duplicate, foreign or outdated results (reported; nothing written)
  2    usage or input error

examples:
    holyclient batch merge requests.jsonl \\
        results.jsonl.shard-* -o results.jsonl"""

#: ids listed per kind of problem before "... and N more".
SHOWN = 10


def wants_merge(args: Sequence[str]) -> bool:
    """Whether ``batch ARGS`` means ``batch merge``: ``merge`` comes first, unless a file named ``merge``
    exists and no more than one positional argument follows it (``batch merge -o out.jsonl`` then runs
    the file ``merge``; write ``./merge`` to be explicit either way)."""
    if not args or args[0] != "merge":
        return False
    positional = [arg for arg in args[1:] if not arg.startswith("-")]
    return not (Path("merge").is_file() and len(positional) <= 1)


class BatchParser(argparse.ArgumentParser):
    """The ``batch`` command's parser, with ``merge`` as its subcommand.

    argparse cannot give one parser both a positional INPUT and subcommands, so ``merge`` is a parser of
    its own that this one hands the rest of the line to when :func:`wants_merge` says so.
    """

    merge: argparse.ArgumentParser | None = None

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.merge is not None and args is not None and wants_merge(list(args)):
            return self.merge.parse_known_args(list(args)[1:], namespace)
        return super().parse_known_args(args, namespace)


def merge_parser(formatter_class: Any) -> argparse.ArgumentParser:
    """The ``batch merge`` parser (attached to the ``batch`` parser as :attr:`BatchParser.merge`)."""
    parser = argparse.ArgumentParser(
        prog="holyclient batch merge",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter_class,
    )
    parser.add_argument("input", type=Path, metavar="INPUT.jsonl", help="the batch's requests")
    parser.add_argument("shards", type=Path, nargs="+", metavar="SHARD", help="OUTPUT.shard-K-of-N files")
    parser.add_argument(
        "-o", "--output", type=Path, required=True, metavar="OUTPUT.jsonl", help="merged file"
    )
    parser.add_argument("--model", metavar="M", help="as given to `holyclient batch` (bare request bodies)")
    parser.set_defaults(func=run)
    return parser


def _fail(message: str) -> int:
    print(f"holyclient batch merge: {message}", file=sys.stderr)
    return 2


def _listed(ids: list[str]) -> str:
    more = f" ... and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(repr(i) for i in ids[:SHOWN]) + more


def run(args: argparse.Namespace) -> int:
    from ..batch import MergeInputError, iter_requests, merge_shards, request_fingerprint, validate_input

    for path in (args.input, *args.shards):
        if not path.is_file():
            return _fail(f"{path}: no such file")
    resolved = [path.resolve() for path in args.shards]
    if len(set(resolved)) < len(resolved):
        twice = next(
            path for path, real in zip(args.shards, resolved, strict=True) if resolved.count(real) > 1
        )
        return _fail(f"{twice}: shard given twice")
    if args.output.resolve() in {args.input.resolve(), *resolved}:
        return _fail("OUTPUT must not be INPUT or one of the shards")
    try:
        report = validate_input(args.input, args.model)
    except OSError as exc:
        return _fail(f"{args.input}: {exc.strerror or exc}")
    if report.problem_count:
        line, message = report.problems[0]
        lines = "line" if report.problem_count == 1 else "lines"
        return _fail(f"{args.input}:{line}: {message} ({report.problem_count} invalid {lines})")
    try:
        fingerprints = {
            request.custom_id: request_fingerprint(request.body)
            for request in iter_requests(args.input, args.model)
        }
        merged = merge_shards(fingerprints, args.shards, args.output, fingerprints=fingerprints)
    except MergeInputError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.filename or args.output}: {exc.strerror or exc}")
    if merged.ok:
        failed = f" ({merged.failed} of them failed results)" if merged.failed else ""
        print(
            f"merged {merged.lines} results from {len(args.shards)} shards into {args.output}{failed}",
            file=sys.stderr,
        )
        return 0
    if merged.missing:
        print(
            f"{len(merged.missing)} custom_ids of {args.input} in no shard: {_listed(merged.missing)}",
            file=sys.stderr,
        )
    for custom_id, places in list(merged.duplicates.items())[:SHOWN]:
        print(f"duplicate custom_id {custom_id!r}: {', '.join(places)}", file=sys.stderr)
    if len(merged.duplicates) > SHOWN:
        print(f"... and {len(merged.duplicates) - SHOWN} more duplicated custom_ids", file=sys.stderr)
    for place, custom_id in merged.foreign[:SHOWN]:
        print(f"{place}: custom_id {custom_id!r} is not in {args.input}", file=sys.stderr)
    if len(merged.foreign) > SHOWN:
        print(
            f"... and {len(merged.foreign) - SHOWN} more results for custom_ids not in the input",
            file=sys.stderr,
        )
    if merged.changed:
        place, custom_id = merged.changed[0]
        print(
            f"{place}: the result for custom_id {custom_id!r} was made from an earlier version of its "
            f"request in {args.input}: {len(merged.changed)} results were made from an earlier version of "
            f"{args.input} (it was edited after their shard ran); run those shards again into fresh files",
            file=sys.stderr,
        )
    print(f"holyclient batch merge: {args.output} not written", file=sys.stderr)
    return 1
