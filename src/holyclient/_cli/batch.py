"""``holyclient batch``: run an OpenAI Batch API input file against the API, resumably.

The input is validated in full before anything is sent or any file is created; results are appended
to OUTPUT as they arrive; running the same command again finishes what a killed or interrupted run
left. A run whose attempts all fail the same hopeless way (key refused, server unreachable) stops
early, leaving OUTPUT resumable.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._batch_args import DEFAULT_PACK_INPUTS, DEFAULT_PACK_TOKENS, add_arguments, check_paths
from ._batch_merge import BatchParser, merge_parser
from ._batch_scaleout import in_shard, make_limiter, resolve, shard_lease
from ._server_args import SettingsError, client_settings

DESCRIPTION = """\
Send every request of INPUT (OpenAI Batch API input: one {"custom_id", "method": "POST",
"url": "/v1/chat/completions", "body": {...}} per line; a bare chat request body is accepted too,
with its position among the non-blank lines as custom_id) and append one OpenAI Batch API output
line per custom_id to OUTPUT as results arrive. The url may be any Batch API endpoint --
/v1/chat/completions, /v1/embeddings, /v1/completions, /v1/responses, /v1/moderations -- and one
file may mix them.

With --pack, embedding lines with the same model and parameters are sent together, up to
--pack-inputs inputs and --pack-tokens tokens a request, and OUTPUT still gets one line per
custom_id with its own vectors and its share of the usage.

INPUT is checked in full first, as strictly as `holyclient estimate`: JSON, fields, numbers (finite,
in range), models known to the price table, prompts that fit the model's context window. Any problem
is reported as FILE:LINE and nothing is sent.

Run the same command again to resume: custom_ids already in OUTPUT are skipped (a torn last line
left by a crash is cut off first). --retry-failed sends again only the requests whose recorded
result is a failure. Failed requests are in OUTPUT with their error; they do not stop the batch,
except when 5 attempts in a row fail the same hopeless way (HTTP 401/403/404, no connection to the
server): then the run stops (exit 2) without recording them, and a rerun sends them.

Progress goes to stderr: a live bar on a terminal, otherwise a plain line every --progress-every
seconds. A summary (requests, failures, tokens and cost per model) is printed to stderr at the end,
or to stdout as one JSON document with --json. The API key is read from HOLYSHEEP_API_KEY (or
--api-key)."""

EPILOG = """\
exit codes:
  0    every request succeeded
  1    some requests failed (they are in OUTPUT with their error)
  2    usage or input error (nothing sent), the run was stopped early (rerun to resume), or
       a live worker holds this --shard's lease in Redis (one that died is waited for, at most
       the lease's 15 s, then taken over), or took it over part-way (the run stops sending at once)
  130  interrupted (rerun to resume)

examples:
    holyclient batch requests.jsonl -o results.jsonl --rpm 3000
    # again after a crash or Ctrl-C: sends only what is missing
    holyclient batch requests.jsonl -o results.jsonl
    holyclient batch requests.jsonl --dry-run
    holyclient batch chunks.jsonl -o vectors.jsonl --pack"""


class _PackCount:
    """How many requests a --pack run would send (the dry run's count)."""

    def __init__(self, packer: Any) -> None:
        self.packer = packer
        self.sent = 0

    def add(self, request: Any) -> None:
        self.sent += len(self.packer.add(request))

    def total(self) -> int:
        return self.sent + len(self.packer.flush())


def _dry_run_packing(args: argparse.Namespace) -> _PackCount | None:
    if not (args.dry_run and args.pack):
        return None
    from ..batch import Packer

    return _PackCount(
        Packer(args.pack_inputs or DEFAULT_PACK_INPUTS, args.pack_tokens or DEFAULT_PACK_TOKENS)
    )


def register(subparsers: Any) -> None:
    # `batch` takes a file and has a subcommand: its parser is a BatchParser (argparse makes each
    # subcommand's parser with the class given to add_subparsers, so it is swapped in for this one).
    parser_class, subparsers._parser_class = subparsers._parser_class, BatchParser
    try:
        parser = subparsers.add_parser(
            "batch",
            help="run a JSONL batch of API requests (chat, embeddings...): fast, rate-limit aware, resumable;"
            " `batch merge` joins the shards of a sharded batch",
            description=DESCRIPTION,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    finally:
        subparsers._parser_class = parser_class
    add_arguments(parser)
    parser.set_defaults(func=run)
    parser.merge = merge_parser(argparse.RawDescriptionHelpFormatter)


def _fail(message: str) -> int:
    print(f"holyclient batch: {message}", file=sys.stderr)
    return 2


def _warn(message: str) -> None:
    print(f"holyclient batch: warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from ..batch import (
        DryRunEstimate,
        IdSet,
        ModelCheck,
        OutputError,
        digest,
        request_fingerprint,
        scan_output,
        validate_input,
        version_key,
    )

    if args.max_retries is not None and args.max_retries < 0:
        return _fail("--max-retries must not be negative")
    if not args.dry_run and args.output is None:
        return _fail("-o/--output OUTPUT.jsonl is required (or use --dry-run)")
    if args.model is not None and not args.model.strip():
        return _fail("--model must not be empty")
    if (problem := resolve(args)) is not None:  # --shard, --limiter
        return _fail(problem)
    if not args.pack and (args.pack_inputs is not None or args.pack_tokens is not None):
        return _fail("--pack-inputs and --pack-tokens need --pack")
    if (problem := check_paths(args)) is not None:
        return _fail(problem)
    done = None
    if args.dry_run and args.output is not None:
        try:  # read only: what a real run would skip
            done = scan_output(args.output, retry_failed=args.retry_failed).done
        except (OutputError, OSError) as exc:
            return _fail(str(exc))
    estimate = DryRunEstimate() if args.dry_run else None
    already = 0
    packing = _dry_run_packing(args)

    shard_ids: list[int] = []
    shard_versions: list[int] = []

    def on_request(request: Any) -> None:
        nonlocal already
        if not in_shard(args, request.custom_id):
            return
        if args.shard_spec is not None:
            shard_ids.append(digest(request.custom_id))
            shard_versions.append(digest(version_key(request.custom_id, request_fingerprint(request.body))))
        if done is not None and request.custom_id in done:
            already += 1
        elif estimate is not None:
            estimate.add(request.body, request.url)
            if packing is not None:
                packing.add(request)

    from ._jsonl_hint import not_jsonl

    if (hint := not_jsonl(args.input)) is not None:
        print(hint, file=sys.stderr)
        return _fail(f"{args.input} is not JSONL; nothing was sent")
    check = ModelCheck(allow_unknown=args.allow_unknown_models)
    try:
        report = validate_input(args.input, args.model, on_request=on_request, check=check, versions=False)
    except OSError as exc:
        return _fail(f"{args.input}: {exc.strerror or exc}")
    if report.problem_count:
        for line, message in report.problems:
            print(f"{args.input}:{line}: {message}", file=sys.stderr)
        if report.problem_count > len(report.problems):
            print(f"... and {report.problem_count - len(report.problems)} more problems", file=sys.stderr)
        lines = "line" if report.problem_count == 1 else "lines"
        return _fail(f"{report.problem_count} invalid {lines} in {args.input}; nothing was sent")
    if not report.requests:
        return _fail(f"{args.input}: no requests (the file is empty or has only blank lines)")
    if args.shard_spec is not None:
        report.ids, report.versions, report.requests = IdSet(shard_ids), IdSet(shard_versions), len(shard_ids)
        args.batch_digest = report.versions.digest()  # names the shard lease
        if not report.requests:
            print(
                f"holyclient batch: shard {args.shard}: no requests of {args.input} fall in it",
                file=sys.stderr,
            )
            return 0
    for model, count in sorted(check.unknown.items()):
        _warn(
            f"model {model!r} is not in the price table ({count} requests): sent anyway, its cost not counted"
        )
    if estimate is not None:
        if args.json:
            document = estimate.as_json(str(args.input), already)
            if packing is not None:
                document["requests_with_pack"] = packing.total()
            print(json.dumps(document, indent=2))
        else:
            print(estimate.render(str(args.input), already))
            if packing is not None:
                print(f"with --pack: {packing.total()} requests sent for {estimate.requests} lines")
        return 0
    try:
        return _send(args, report)
    except (OutputError, OSError) as exc:  # OUTPUT unreadable, unwritable, in use, or not ours
        return _fail(str(exc))


def _send(args: argparse.Namespace, report: Any) -> int:
    from .._client import AsyncClient
    from .._exceptions import ConfigurationError
    from ..batch import OutputLock, input_versions, prepare_output

    try:  # command-line advice ("set HOLYSHEEP_API_KEY or pass --api-key"), not the library's
        settings = client_settings(args)
    except SettingsError as exc:
        return _fail(str(exc))
    try:
        client = AsyncClient(**settings.as_kwargs(), timeout=args.timeout, max_retries=0)
    except ConfigurationError as exc:
        return _fail(str(exc))
    lock = OutputLock(args.output)
    try:
        versions = report.versions or (lambda: input_versions(args.input, args.model))  # if resuming
        state = prepare_output(
            args.output,
            retry_failed=args.retry_failed,
            known=report.ids,
            versions=versions,
            force=args.force,
        )
        return _run(args, client, state, report.requests)
    finally:
        lock.release()


def _run(args: argparse.Namespace, client: Any, state: Any, total_input: int) -> int:
    import anyio

    from ..batch import (
        DEFAULT_BATCH_MAX_RETRIES,
        DEFAULT_STOP_AFTER,
        BatchResult,
        BatchRunner,
        BatchStoppedError,
        CostTally,
        OutputWriter,
        iter_requests,
        progress_line,
        summary,
        summary_json,
        unwrapped,
    )
    from ..ratelimit import LeaseHeldError, LeaseLostError
    from ._batch_progress import show

    if state.torn_bytes:
        _warn(
            f"{args.output}: cut off a torn last line ({state.torn_bytes} bytes) left by an interrupted run"
        )
    if state.foreign:
        _warn(f"{args.output}: {state.foreign} results for custom_ids not in {args.input} (--force)")
    if state.changed:
        _warn(
            f"{args.output}: {state.changed} results made from an earlier version of {args.input} (--force)"
        )
    if state.dropped_failures:
        print(
            f"{args.output}: {state.dropped_failures} failed results removed, to be sent again",
            file=sys.stderr,
        )
    already = min(total_input, len(state.done))
    limiter = make_limiter(args, client)
    runner = BatchRunner(
        client,
        concurrency=args.concurrency,
        limiter=limiter,
        max_retries=DEFAULT_BATCH_MAX_RETRIES if args.max_retries is None else args.max_retries,
        stop_after=DEFAULT_STOP_AFTER,
        pack_inputs=(args.pack_inputs or DEFAULT_PACK_INPUTS) if args.pack else None,
        pack_tokens=args.pack_tokens or DEFAULT_PACK_TOKENS,
    )
    costs = CostTally()
    created = not args.output.exists()
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

    skipped = 0

    def pending() -> Any:
        nonlocal skipped
        sharded, done = args.shard_spec is not None, state.done if len(state.done) else None
        for request in iter_requests(args.input, args.model, validated=True):
            if sharded and not in_shard(args, request.custom_id):
                continue
            if done is not None and request.custom_id in done:
                skipped += 1
            else:
                yield request

    to_send = total_input - already

    def line(elapsed: float) -> str:
        return progress_line(runner.stats, costs, to_send, elapsed)

    tty = sys.stderr.isatty()

    async def main() -> None:
        with unwrapped():  # the run's own errors (BatchStoppedError) come out as themselves
            async with client, anyio.create_task_group() as tg:
                tg.start_soon(
                    lambda: show(to_send, lambda: runner.stats.done, line, every=args.progress_every, tty=tty)
                )
                try:
                    with anyio.CancelScope() as scope:
                        stop.append(scope)
                        async with shard_lease(args, limiter, client.api_key):
                            await runner.run(pending(), on_result)
                finally:
                    tg.cancel_scope.cancel()
                    if hasattr(limiter, "aclose"):  # shielded: the scope is cancelled by now
                        with anyio.CancelScope(shield=True):
                            await limiter.aclose()

    interrupted = False
    stopped: str | None = None
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        interrupted = True
    except BatchStoppedError as exc:
        stopped = str(exc)
    except LeaseHeldError as exc:
        writer.close()
        if created and not writer.written:
            args.output.unlink(missing_ok=True)
        if isinstance(exc, LeaseLostError):
            return _fail(
                f"shard {args.shard}: {exc} ({writer.written} results written to {args.output}; "
                "the worker holding the lease now finishes the shard)"
            )
        return _fail(f"shard {args.shard}: {exc}")
    finally:
        writer.close()
        if created and not writer.written:  # stopped before any result: leave no empty OUTPUT behind
            args.output.unlink(missing_ok=True)
    if args.json:
        document = summary_json(
            runner.stats,
            costs,
            skipped=skipped,
            interrupted=interrupted,
            stopped=stopped,
            output=str(args.output),
        )
        print(json.dumps(document, indent=2))
    if stopped is not None:
        return _fail(
            f"{stopped}; nothing more was sent ({writer.written} results written to {args.output}); "
            "fix it and run the same command again to resume"
        )
    if not args.json:
        print(summary(runner.stats, costs, skipped=skipped, interrupted=interrupted), file=sys.stderr)
    if write_errors:
        return _fail(
            f"cannot write {args.output}: {write_errors[0]}; fix it and run the same command to resume"
        )
    if interrupted:
        print(
            f"interrupted: {writer.written} results written to {args.output}; run the same command again to finish",
            file=sys.stderr,
        )
        return 130
    earlier = 0 if args.retry_failed else state.failed
    if earlier:
        print(
            f"{earlier} failed results from earlier runs are in {args.output} (--retry-failed sends them again)",
            file=sys.stderr,
        )
    return 1 if runner.stats.failed or earlier else 0
