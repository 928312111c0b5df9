"""``holyclient batch``'s options: their types, their registration and the checks of INPUT/OUTPUT paths.

Split from :mod:`holyclient._cli.batch` so that module reads as the run itself. Nothing here imports
the library: ``holyclient batch --help`` stays light.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ._argtypes import non_negative_float, positive_float, positive_int
from ._batch_scaleout import add_arguments as add_scaleout_arguments
from ._server_args import add_server_arguments

DEFAULT_PACK_INPUTS = 256  # holyclient.batch._pack.DEFAULT_PACK_INPUTS (not imported: --help stays light)
DEFAULT_PACK_TOKENS = 100_000
MAX_PACK_INPUTS = 2048


def _pack_inputs(text: str) -> int:
    value = positive_int(text)
    if value > MAX_PACK_INPUTS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_PACK_INPUTS} (the API's limit), got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of ``holyclient batch`` (``holyclient batch merge`` has its own parser)."""
    # Groups a reader can scan (the scale-out options add their own at the end).
    parser.add_argument("input", type=Path, metavar="INPUT.jsonl", help="requests, one JSON object per line")
    files = parser.add_argument_group("input and output")
    files.add_argument("-o", "--output", type=Path, metavar="OUTPUT.jsonl", help="results file (appended to)")
    files.add_argument("--model", metavar="M", help="model for the lines whose body sets none")
    files.add_argument(
        "--retry-failed",
        action="store_true",
        help="send again the requests whose result in OUTPUT is a failure",
    )
    files.add_argument(
        "--force",
        action="store_true",
        help="append to an OUTPUT that holds results for custom_ids not in INPUT, or made from an earlier "
        "version of INPUT",
    )
    files.add_argument(
        "--fsync", action="store_true", help="fsync OUTPUT after each line (survives a power cut; slower)"
    )
    files.add_argument(
        "--dry-run", action="store_true", help="validate INPUT and print the cost estimate; send nothing"
    )
    files.add_argument(
        "--allow-unknown-models",
        action="store_true",
        help="send requests for models not in the price table (a warning; their cost is not counted)",
    )
    speed = parser.add_argument_group("speed, rate limits and retries")
    speed.add_argument(
        "--concurrency",
        type=positive_int,
        default=64,
        metavar="N",
        help="most requests in flight (default: 64; lowered automatically on sustained 429s)",
    )
    speed.add_argument("--rpm", type=positive_float, metavar="N", help="requests per minute not to exceed")
    speed.add_argument(
        "--tpm",
        type=positive_float,
        metavar="N",
        help="tokens per minute not to exceed (prompt estimate + max_tokens)",
    )
    speed.add_argument(
        "--max-retries",
        type=int,
        default=None,
        metavar="N",
        help="retries per request after the first attempt (default: 8)",
    )
    speed.add_argument(
        "--timeout", type=positive_float, metavar="S", help="seconds per attempt (default: 600)"
    )
    endpoint = parser.add_argument_group("endpoint")
    add_server_arguments(endpoint)  # --api-key, --base-url, --allow-insecure-http
    packing = parser.add_argument_group("embedding input packing")
    packing.add_argument(
        "--pack",
        action="store_true",
        help="send embedding lines with the same model and parameters as one request (one OUTPUT line "
        "per custom_id still); cuts the requests, and the RPM they spend, up to 256-fold",
    )
    packing.add_argument(
        "--pack-inputs",
        type=_pack_inputs,
        default=None,
        metavar="N",
        help=f"most inputs in one packed request (default: {DEFAULT_PACK_INPUTS}; at most {MAX_PACK_INPUTS})",
    )
    packing.add_argument(
        "--pack-tokens",
        type=positive_int,
        default=None,
        metavar="T",
        help=f"most tokens in one packed request (default: {DEFAULT_PACK_TOKENS:,})",
    )
    report = parser.add_argument_group("progress and summary")
    report.add_argument(
        "--progress-every",
        type=non_negative_float,
        default=10.0,
        metavar="S",
        help="when stderr is not a terminal, print a progress line every S seconds (default: 10; 0: off)",
    )
    report.add_argument(
        "--json",
        action="store_true",
        help="print the final summary (or the dry-run estimate) as JSON on stdout",
    )
    add_scaleout_arguments(parser, positive_int, positive_float)


def check_paths(args: argparse.Namespace) -> str | None:
    """What is wrong with INPUT or OUTPUT as paths, before reading or writing anything."""
    source: Path = args.input
    if source.is_dir():
        return f"{source}: is a directory"
    if not source.exists():
        return f"{source}: no such file"
    if not os.access(source, os.R_OK):
        return f"{source}: permission denied"
    out: Path | None = args.output
    if out is None:
        return None
    if out.is_dir():
        return f"{out}: is a directory (-o takes a file)"
    if out.exists() and out.resolve() == source.resolve():
        return "OUTPUT must not be the INPUT file"
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        return f"{out}: no such directory {str(parent)!r}"
    if args.dry_run:
        return None
    if (out.exists() and not os.access(out, os.W_OK)) or (
        not out.exists() and not os.access(parent, os.W_OK)
    ):
        return f"{out}: permission denied (cannot write OUTPUT)"
    return None
