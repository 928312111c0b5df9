"""``holyclient serve``: run the local OpenAI-compatible server until interrupted.

The first line on stdout is the base URL (``http://127.0.0.1:PORT/v1``), flushed at once, so a
script or a benchmark can start the server as a subprocess and read where it listens. The next two
lines are the ``export`` lines a newcomer pastes into another shell to point holyclient (and the
tools) at it; they never carry the ``--api-key`` value, because no key is ever printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import signal
import sys
from typing import Any

from ._argtypes import non_negative_float, port, positive_float, positive_int, probability

DESCRIPTION = """\
Run a local OpenAI-compatible server (chat completions with streaming, embeddings, models) with
programmable latency, faults and rate limits -- for demos, tests and benchmarks. Prints the base
URL as the first line of stdout, then the two export lines that point holyclient at it, and serves
until SIGINT or SIGTERM. Any non-empty bearer key is accepted, unless --api-key names the only one
(then any other key gets 401 invalid_api_key, as the real API answers a wrong key). GET
/_holyclient/stats returns the server's counters.

fault kinds for --faults and --fault-at: any status 400..599 (429 carries Retry-After: 1, or
--retry-after S), insufficient_quota, drop, malformed, stream_cut, stream_error, hang, delay

--fault-at N=KIND injects exactly one fault, at the N-th API request (counted from 1 among the
requests that passed routing, auth and validation); repeat it for several.

With tools, the model calls a tool until a tool result is in the conversation, then gives the final
answer (under tool_choice "required": the output tool, final_result* / final_answer, or the last tool
not yet called); under tool_choice "auto" it calls a tool only when the last user message names it.
JSON mode answers an instance of the JSON schema the prompt carries, json_schema one of the request's.

--profile holysheep plays the HolySheep relay: GET /v1/models lists the models of
holyclient's price table (GPT, Claude, Gemini, DeepSeek), any other model gets 404
model_not_found, each model family answers as holyclient's dated, sourced capabilities
table says (DeepSeek refuses response_format json_schema, Claude ignores it ...), and only the
key of the export line (sk-local) is accepted unless --api-key or --no-auth says otherwise."""

EPILOG = """\
exit codes: 0 stopped by a signal, 2 usage error or the port could not be bound

examples:
    # then paste the two export lines into another shell
    holyclient serve
    # refuse every other key (doctor's bad-key probe passes)
    holyclient serve --api-key sk-local
    # slow and flaky, to test retries
    holyclient serve --latency 0.2 --fault-rate 0.2
    # exactly one 429 (no wait asked), at the 2nd request
    holyclient serve --fault-at 2=429 --retry-after 0
    # a dropped connection at the 5th request
    holyclient serve --fault-at 5=drop
    # the relay's models, each answering as its family does
    holyclient serve --profile holysheep"""

#: The key the export line suggests when the server accepts any key: obviously not a real one.
ANY_KEY = "sk-local"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the local OpenAI-compatible test server",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    parser.add_argument("--port", type=port, default=0, help="TCP port (default: 0, a free port)")
    parser.add_argument(
        "--latency", type=non_negative_float, default=0.0, metavar="S", help="seconds before each answer"
    )
    parser.add_argument(
        "--jitter",
        type=non_negative_float,
        default=0.0,
        metavar="S",
        help="extra random latency, uniform in [0, S)",
    )
    parser.add_argument(
        "--chunk-delay",
        type=non_negative_float,
        default=0.0,
        metavar="S",
        help="seconds between streamed events",
    )
    parser.add_argument(
        "--fault-rate",
        type=probability,
        default=0.0,
        metavar="R",
        help="probability in [0, 1] that a request gets a fault",
    )
    parser.add_argument(
        "--faults",
        default=None,
        metavar="KIND=WEIGHT,...",
        help="fault mix weights (default: 429=3,500=1,502=1,503=1,drop=1,malformed=1,hang=1)",
    )
    parser.add_argument(
        "--fault-at",
        action="append",
        default=[],
        metavar="N=KIND",
        help="exactly one fault of KIND at the N-th request (repeatable)",
    )
    parser.add_argument(
        "--retry-after",
        type=non_negative_float,
        default=1.0,
        metavar="S",
        help="Retry-After seconds on injected 429s (default: 1; 0 asks for no wait)",
    )
    parser.add_argument(
        "--hang-seconds",
        type=non_negative_float,
        default=30.0,
        metavar="S",
        help="how long 'hang' faults stay silent (default: 30)",
    )
    parser.add_argument(
        "--rpm", type=positive_int, default=None, metavar="N", help="requests-per-minute limit"
    )
    parser.add_argument("--tpm", type=positive_int, default=None, metavar="N", help="tokens-per-minute limit")
    parser.add_argument(
        "--rate-window",
        type=positive_float,
        default=60.0,
        metavar="S",
        help="rate-limit window in seconds (default: 60)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed for faults and jitter")
    parser.add_argument("--no-auth", action="store_true", help="do not require an Authorization header")
    parser.add_argument(
        "--api-key",
        default=None,
        metavar="KEY",
        help="accept only this bearer key; any other gets 401 invalid_api_key (default: any non-empty key)",
    )
    parser.add_argument("--no-log", action="store_true", help="keep no request log (for benchmarks)")
    parser.add_argument(
        "--billing",
        choices=("chars", "foreign"),
        default="chars",
        help="how chat prompt_tokens are billed: chars (characters/4 + 3 per message, default) or foreign "
        "(a tokenizer holyclient does not have, at Claude-like ratios: to try estimate and calibrate)",
    )
    parser.add_argument(
        "--profile",
        choices=("default", "holysheep"),
        default="default",
        help="default: any model, answered as OpenAI's API; holysheep: the relay's model catalogue, "
        "each model family answering as it does behind the relay",
    )
    parser.set_defaults(func=run)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def export_lines(url: str, api_key: str | None) -> list[str]:
    """The shell lines that point holyclient at this server; the ``--api-key`` value is never echoed."""
    key = "'<the key given to --api-key>'" if api_key is not None else ANY_KEY
    return [f"export HOLYSHEEP_BASE_URL={url}", f"export HOLYSHEEP_API_KEY={key}"]


def _config(args: argparse.Namespace) -> Any:
    if not args.host.strip():
        # An empty host binds every interface: never by accident.
        raise ValueError("--host is empty (use 0.0.0.0 to listen on every interface)")
    if args.api_key is not None and not args.api_key.strip():
        raise ValueError("--api-key is empty (omit it to accept any non-empty key)")
    if args.api_key is not None and args.no_auth:
        raise ValueError("--api-key and --no-auth contradict each other: choose one")
    from ..testing import FaultMix, RateLimits, ServerConfig, parse_kinds

    mix = None
    if args.fault_rate > 0 or args.faults:
        kinds = parse_kinds(args.faults) if args.faults else None
        mix = FaultMix(
            rate=args.fault_rate,
            kinds=kinds,
            seed=args.seed,
            retry_after=args.retry_after,
            hang_seconds=args.hang_seconds,
        )
    limits = RateLimits(rpm=args.rpm, tpm=args.tpm, window=args.rate_window) if args.rpm or args.tpm else None
    api_key = args.api_key
    if api_key is None and args.profile == "holysheep" and not args.no_auth:
        # A relay refuses keys that are not its own (doctor's bad-key probe checks it): the relay profile
        # accepts only the key its export line shows, which is a published local key, not a secret.
        api_key = ANY_KEY
    return ServerConfig(
        latency=args.latency,
        jitter=args.jitter,
        chunk_delay=args.chunk_delay,
        faults=mix,
        rate_limits=limits,
        require_key=not args.no_auth,
        api_key=api_key,
        seed=args.seed,
        log_requests=not args.no_log,
        max_hang=max(args.hang_seconds, 0.0),
        billing=args.billing,
        profile=args.profile,
        faults_at=_faults_at(args.fault_at, args.retry_after, args.hang_seconds),
    )


def _faults_at(specs: list[str], retry_after: float, hang_seconds: float) -> dict[int, Any]:
    """``--fault-at N=KIND`` values as {request number: fault}.

    Raises:
        ValueError: a value that is not ``N=KIND`` with N a whole number from 1, an unknown kind, or a
            request number given twice.
    """
    from ..testing import fault_from_name

    faults: dict[int, Any] = {}
    for spec in specs:
        number, sep, kind = spec.partition("=")
        number, kind = number.strip(), kind.strip()
        if not sep or not number.isdigit() or int(number) < 1 or not kind:
            raise ValueError(f"--fault-at {spec!r}: expected N=KIND, N the request's number from 1 (2=429)")
        if int(number) in faults:
            raise ValueError(f"--fault-at {spec!r}: request {number} already has a fault")
        try:
            faults[int(number)] = fault_from_name(kind, retry_after=retry_after, hang_seconds=hang_seconds)
        except ValueError as exc:
            raise ValueError(f"--fault-at {spec!r}: {exc}") from None
    return faults


async def _serve(args: argparse.Namespace, config: Any) -> int:
    from ..testing import App, base_url_of, close_app_server, start_app_server

    app = App(config)
    try:
        server = await start_app_server(app, args.host, args.port)
    except OSError as exc:
        print(
            f"holyclient serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # e.g. Windows
            loop.add_signal_handler(sig, stop.set)
    url = base_url_of(server, args.host)
    print(url, *export_lines(url, args.api_key), sep="\n", flush=True)
    if args.faults and args.fault_rate <= 0:
        print("holyclient serve: warning: --faults has no effect without --fault-rate", file=sys.stderr)
    if not _is_loopback(args.host):
        print(f"holyclient serve: warning: listening on non-loopback address {args.host}", file=sys.stderr)
    try:
        await stop.wait()
    finally:
        await close_app_server(app, server)
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
    except ValueError as exc:
        print(f"holyclient serve: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(args, config))
    except KeyboardInterrupt:  # a signal that arrived before the handlers were installed
        return 0
