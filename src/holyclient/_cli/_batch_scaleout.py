"""``holyclient batch`` past one machine: ``--shard``, ``--limiter redis://``, ``--workers``, ``--window``.

Kept apart from ``batch.py`` so that module stays about one run in one process.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser, positive_int: Any, positive_float: Any) -> None:
    group = parser.add_argument_group("more than one worker")
    group.add_argument(
        "--shard",
        metavar="K/N",
        help="send only shard K of N (0 <= K < N; by custom_id hash) and write OUTPUT.shard-K-of-N; "
        "auto/N takes K from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID. Merge with `holyclient batch merge`",
    )
    group.add_argument(
        "--limiter",
        metavar="URL",
        help="share --rpm/--tpm with every worker using the same key: redis://HOST:PORT/DB "
        "(needs `pip install 'holyclient[redis]'`); with --shard, also leases the shard so a second "
        "worker on it exits 2 (one restarted after a crash waits for the dead worker's lease to lapse)",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help="workers sharing the limit: while Redis is unreachable each keeps to limit / N (default: 1)",
    )
    group.add_argument(
        "--window",
        type=positive_float,
        default=60.0,
        metavar="S",
        help="the window of --rpm/--tpm in seconds (default: 60, i.e. per minute)",
    )


def resolve(args: argparse.Namespace) -> str | None:
    """Check the scale-out flags and point ``args.output`` at the shard's file; the problem, or ``None``."""
    args.shard_spec = None
    if args.shard is not None:
        from ..batch import ShardError, parse_shard, shard_path

        try:
            args.shard_spec = parse_shard(args.shard)
        except ShardError as exc:
            return str(exc)
        if args.output is not None:
            args.output = shard_path(args.output, *args.shard_spec)
    if args.limiter is not None:
        from ..ratelimit import check_url, safe_url

        if (problem := check_url(args.limiter)) is not None:
            return f"--limiter {safe_url(args.limiter)!r}: {problem}"
        try:
            import redis  # noqa: F401
        except ImportError:
            return "--limiter redis:// needs the redis package: pip install 'holyclient[redis]'"
    return None


def in_shard(args: argparse.Namespace, custom_id: str) -> bool:
    if args.shard_spec is None:
        return True
    from ..batch import shard_of

    shard, count = args.shard_spec
    return bool(shard_of(custom_id, count) == shard)


def make_limiter(args: argparse.Namespace, client: Any) -> Any:
    """The runner's limiter: shared through Redis with ``--limiter``, else local (``None``: no limits)."""
    from ..ratelimit import LocalLimiter, RedisLimiter

    if args.limiter is not None:
        return RedisLimiter(
            args.limiter,
            rpm=args.rpm,
            tpm=args.tpm,
            window=args.window,
            api_key=client.api_key,
            workers=args.workers,
            on_event=lambda message: print(f"holyclient batch: {message}", file=sys.stderr),
        )
    if args.rpm or args.tpm:
        return LocalLimiter(args.rpm, args.tpm, window=args.window)
    return None


@asynccontextmanager
async def shard_lease(args: argparse.Namespace, limiter: Any, api_key: str) -> AsyncIterator[None]:
    """Hold the shard's lease in Redis while the run goes (only with ``--shard`` and ``--limiter``).

    A lease held by a worker that died (it stopped renewing) is waited out, at most its time to live,
    saying so on stderr, then taken over.

    Raises:
        LeaseHeldError: a live worker holds it (it renews it while this one waits).
        LeaseLostError: the lease was lost part-way (another worker took it): the run is cancelled at
            once, so that two workers never send the same shard.
    """
    import anyio

    from ..ratelimit import _lease, redis_errors

    output: Path = args.output
    if args.shard_spec is None or args.limiter is None:
        yield
        return
    # Named by the shard's file name and its requests (ids and bodies): the same batch run from two
    # hosts (other paths, same input) shares a lease; an unrelated batch with the same -o name does not.
    lease = _lease.ShardLease(
        await limiter.connection(),
        api_key,
        f"{output.name}:{args.batch_digest}",
        seconds=_lease.LEASE_SECONDS,
    )

    def waiting(seconds: float) -> None:
        print(
            f"holyclient batch: shard {args.shard}: another worker holds its lease; waiting up to "
            f"{math.ceil(seconds)} s for it to lapse (a worker that died stops renewing it) before taking over",
            file=sys.stderr,
        )

    try:
        if await lease.take(on_wait=waiting):
            print(
                f"holyclient batch: shard {args.shard}: the lease lapsed: took over the shard",
                file=sys.stderr,
            )
    except redis_errors() as exc:
        print(
            f"holyclient batch: warning: shard lease not taken, Redis unreachable ({type(exc).__name__}); "
            "nothing stops a second worker on this shard",
            file=sys.stderr,
        )
        yield
        return

    async def renew() -> None:
        while True:
            await anyio.sleep(_lease.RENEW_EVERY)
            try:
                if not await lease.renew():
                    # Another worker sends this shard now: stop ours at once (raising cancels the run).
                    raise _lease.LeaseLostError(
                        "the shard lease was lost (it lapsed and another worker took it over): stopped sending"
                    )
            except redis_errors():
                pass  # Redis away for a while: try again at the next renewal

    async with anyio.create_task_group() as tg:
        tg.start_soon(renew)
        try:
            yield
        finally:
            tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                try:
                    await lease.release()
                except redis_errors():
                    pass
