"""``holyclient batch``: run an OpenAI Batch API input file against the API, resumably.

The input is validated in full before anything is sent; results are appended to OUTPUT as they
arrive; running the same command again finishes what a killed or interrupted run left.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Send every request of INPUT (OpenAI Batch API input: one {"custom_id", "method": "POST",
"url": "/v1/chat/completions", "body": {...}} per line; a bare chat request body is accepted too,
with its line number as custom_id) and append one OpenAI Batch API output line per custom_id to
OUTPUT as results arrive.

Run the same command again to resume: custom_ids already in OUTPUT are skipped (a torn last line
left by a crash is cut off first). --retry-failed sends again only the requests whose recorded
result is a failure. Failed requests are in OUTPUT with their error; they never stop the batch.

Progress goes to stderr when it is a terminal; a summary (requests, failures, tokens and cost per
model) is printed to stderr at the end. The API key is read from HOLYSHEEP_API_KEY."""

EPILOG = (
    "exit codes: 0 every request succeeded, 1 some requests failed (they are in OUTPUT with their error), "
    "2 usage or input error (nothing sent), 130 interrupted (rerun to resume)"
)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "batch",
        help="run a JSONL batch of chat requests: fast, rate-limit aware, resumable",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", type=Path, metavar="INPUT.jsonl", help="requests, one JSON object per line")
    parser.add_argument(
        "-o", "--output", type=Path, metavar="OUTPUT.jsonl", help="results file (appended to)"
    )
    parser.add_argument(
        "--concurrency",
        type=_positive_int,
        default=64,
        metavar="N",
        help="most requests in flight (default: 64; lowered automatically on sustained 429s)",
    )
    parser.add_argument("--rpm", type=_positive_float, metavar="N", help="requests per minute not to exceed")
    parser.add_argument(
        "--tpm",
        type=_positive_float,
        metavar="N",
        help="tokens per minute not to exceed (prompt estimate + max_tokens)",
    )
    parser.add_argument(
        "--max-retries",
        type=int,
        default=None,
        metavar="N",
        help="retries per request after the first attempt (default: 8)",
    )
    parser.add_argument(
        "--timeout", type=_positive_float, metavar="S", help="seconds per attempt (default: 600)"
    )
    parser.add_argument("--model", metavar="M", help="model for the lines whose body sets none")
    parser.add_argument(
        "--base-url", metavar="URL", help="API base URL (default: HOLYSHEEP_BASE_URL or HolySheep)"
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="send again the requests whose result in OUTPUT is a failure",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="validate INPUT and print the cost estimate; send nothing"
    )
    parser.add_argument(
        "--fsync", action="store_true", help="fsync OUTPUT after each line (survives a power cut; slower)"
    )
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"holyclient batch: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from ..batch import OutputError, validate_input
    from ..batch._report import DryRunEstimate

    if args.max_retries is not None and args.max_retries < 0:
        return _fail("--max-retries must not be negative")
    if not args.dry_run and args.output is None:
        return _fail("-o/--output OUTPUT.jsonl is required (or use --dry-run)")
    if not args.input.is_file():
        return _fail(f"{args.input}: no such file")
    if args.output is not None and args.output.resolve() == args.input.resolve():
        return _fail("OUTPUT must not be the INPUT file")
    estimate = DryRunEstimate() if args.dry_run else None
    try:
        report = validate_input(
            args.input, args.model, on_request=(lambda r: estimate.add(r.body)) if estimate else None
        )
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"{args.input}: {exc}")
    if report.problem_count:
        for line, message in report.problems:
            print(f"{args.input}:{line}: {message}", file=sys.stderr)
        if report.problem_count > len(report.problems):
            print(f"... and {report.problem_count - len(report.problems)} more problems", file=sys.stderr)
        return _fail(f"{report.problem_count} invalid lines in {args.input}; nothing was sent")
    if estimate is not None:
        print(estimate.render(str(args.input)))
        return 0
    try:
        return _send(args, report.requests)
    except (OutputError, OSError) as exc:  # OUTPUT unreadable, unwritable, or not a results file
        return _fail(str(exc))


def _send(args: argparse.Namespace, total_input: int) -> int:
    import anyio

    from .._client import AsyncClient
    from .._exceptions import ConfigurationError
    from ..batch import BatchResult, BatchRunner, OutputWriter, iter_requests, prepare_output
    from ..batch._report import CostTally, progress_line, summary
    from ..batch._runner import DEFAULT_BATCH_MAX_RETRIES

    try:
        client = AsyncClient(base_url=args.base_url, timeout=args.timeout, max_retries=0)
    except ConfigurationError as exc:
        return _fail(str(exc))
    state = prepare_output(args.output, retry_failed=args.retry_failed)
    if state.torn_bytes:
        print(
            f"{args.output}: cut off a torn last line ({state.torn_bytes} bytes) left by an interrupted run",
            file=sys.stderr,
        )
    if state.dropped_failures:
        print(
            f"{args.output}: {state.dropped_failures} failed results removed, to be sent again",
            file=sys.stderr,
        )
    already = min(total_input, len(state.done))
    runner = BatchRunner(
        client,
        concurrency=args.concurrency,
        rpm=args.rpm,
        tpm=args.tpm,
        max_retries=DEFAULT_BATCH_MAX_RETRIES if args.max_retries is None else args.max_retries,
    )
    costs = CostTally()
    show_progress = sys.stderr.isatty()
    writer = OutputWriter(args.output, fsync=args.fsync)

    write_errors: list[OSError] = []
    stop: list[anyio.CancelScope] = []

    def on_result(result: BatchResult) -> None:
        try:
            writer.write(result)
        except OSError as exc:  # disk full, file removed...: stop sending; what was written stays valid
            write_errors.append(exc)
            stop[0].cancel()
            return
        costs.add(result)

    async def progress(started: float) -> None:
        while True:
            await anyio.sleep(0.5)
            line = progress_line(runner.stats, costs, total_input - already, time.monotonic() - started)
            print(f"\r\x1b[K{line}", end="", file=sys.stderr, flush=True)

    skipped = 0

    def pending() -> Any:
        nonlocal skipped
        for request in iter_requests(args.input, args.model):
            if request.custom_id in state.done:
                skipped += 1
            else:
                yield request

    async def main() -> None:
        async with client, anyio.create_task_group() as tg:
            if show_progress:
                tg.start_soon(progress, time.monotonic())
            with anyio.CancelScope() as scope:
                stop.append(scope)
                await runner.run(pending(), on_result)
            tg.cancel_scope.cancel()

    interrupted = False
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        writer.close()
        if show_progress:
            print("\r\x1b[K", end="", file=sys.stderr)
    print(summary(runner.stats, costs, skipped=skipped, interrupted=interrupted), file=sys.stderr)
    if write_errors:
        return _fail(
            f"cannot write {args.output}: {write_errors[0]}; fix it and run the same command to resume"
        )
    if interrupted:
        print(
            f"interrupted: {writer.written} results written to {args.output}; "
            "run the same command again to finish",
            file=sys.stderr,
        )
        return 130
    earlier = 0 if args.retry_failed else state.failed
    if earlier:
        print(
            f"{earlier} failed results from earlier runs are in {args.output} "
            "(--retry-failed sends them again)",
            file=sys.stderr,
        )
    return 1 if runner.stats.failed or earlier else 0
