"""``holyclient compare``: replay a sample on the old and the new endpoint, report the difference, gate on it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .._core import write_atomically
from ..compare import METRICS
from ._compare_costs import add_embedding_cost, local_tokens, price, worst_case

DESCRIPTION = """\
Replay SAMPLE.jsonl (the Batch API input format, as for `holyclient batch`; "stream": true is
allowed and measures time to first token) against --old and --new, and report per request and in
aggregate: status and errors, attempts and retries, latency p50/p95 (with a bootstrap 95% interval
for the new/old ratio), prompt tokens on each side against a local count, cost (USD and CNY) and how
alike the answers are (exact, JSON structure, or a fuzzy ratio for prose). Old and new are replayed at
the same time, so load on this machine or the network weighs on both alike.

Latency is the whole call, as your application waits for it: from the first attempt to the final
answer, failed attempts and the waits between them included (a request is retried up to twice on a
429, 5xx, timeout or dropped connection). retry_rate is the share of a side's attempts that were
retries: 14 retries in 32 attempts is 0.44.

--repeat 2 asks the old endpoint twice: how much it disagrees with itself is the noise floor that
old-vs-new similarity is judged against (gate similarity>=noise-0.05).

Gates: METRIC OP VALUE, one argument quoted for the shell (--gate "p95_ratio<=1.3", not
--gate p95_ratio "<=" 1.3), with OP one of <= >= < > ==; VALUE a number or noise[+-N]. Metrics:
""" + "\n".join(f"  {name:<20}  {text}" for name, text in METRICS.items())

#: Seconds between progress lines on stderr.
PROGRESS_SECONDS = 5.0

EPILOG = (
    "exit codes: 0 every gate passes; 1 a gate fails, or the estimated cost exceeds --budget (nothing "
    "sent); 2 usage or input error (bad gate, bad sample line, bad URL), nothing sent or written"
    """

Keys are read from HOLYSHEEP_API_KEY, or from the variables named by --old-key-env/--new-key-env;
they are never written to the report.

examples:
    holyclient compare sample.jsonl --repeat 2 \\
        --old https://api.openai.com/v1 \\
        --old-key-env OPENAI_API_KEY \\
        --new https://api.holysheep.ai/v1 \\
        --gate "p95_ratio<=1.3" \\
        --gate "retry_rate<=0.05" \\
        --gate "similarity>=noise-0.05"
"""
)


_OPERATORS = ("<=", ">=", "==", "<", ">")


def explain_unknown(args: argparse.Namespace, unknown: list[str]) -> str | None:
    """``--gate p95_ratio "<=" 1.3`` leaves ``<= 1.3`` unrecognised: show the one-argument form."""
    if not args.gate or not unknown:
        return None
    if not (unknown[0].startswith(_OPERATORS) or args.gate[-1].endswith(_OPERATORS)):
        return None
    operands = []
    for token in unknown:  # the operator and its value, in one or two words
        operands.append(token)
        if token not in _OPERATORS:
            break
    return f'a gate is one argument: quote it, --gate "{args.gate[-1]}{"".join(operands)}"'


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="replay a sample on the old and new endpoint and gate on the difference",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("sample", type=Path, metavar="SAMPLE.jsonl", help="requests, Batch API input format")
    parser.add_argument("--old", required=True, metavar="URL", help="base URL of the endpoint you use now")
    parser.add_argument("--new", required=True, metavar="URL", help="base URL of the endpoint to move to")
    parser.add_argument(
        "--old-model", metavar="M", help="send every request to the old endpoint with model M"
    )
    parser.add_argument(
        "--new-model", metavar="M", help="send every request to the new endpoint with model M"
    )
    parser.add_argument("--old-key-env", metavar="VAR", help="read the old endpoint's key from $VAR")
    parser.add_argument("--new-key-env", metavar="VAR", help="read the new endpoint's key from $VAR")
    parser.add_argument("--repeat", default="1", metavar="K", help="ask the old endpoint K times (default 1)")
    parser.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="EXPR",
        help='one argument, quoted: --gate "p95_ratio<=1.3" (repeatable)',
    )
    parser.add_argument("--budget", metavar="USD", help="refuse to start if the worst-case cost exceeds it")
    parser.add_argument(
        "--concurrency", default="8", metavar="N", help="requests in flight per side (default 8)"
    )
    parser.add_argument("--rpm", metavar="N", help="requests per minute per side")
    parser.add_argument(
        "--embedding-model",
        metavar="M",
        help="also compare prose answers by embedding cosine, embedded by the old endpoint with model M",
    )
    parser.add_argument(
        "--cny-rate", default="1.0", metavar="R", help="CNY per USD of list price (default 1.0)"
    )
    parser.add_argument(
        "--state",
        type=Path,
        metavar="FILE",
        help="keep each answer in FILE as it arrives; a rerun after a crash sends only what is missing "
        "(a FILE recorded against another --old/--new URL is refused)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON document")
    parser.add_argument(
        "-o", "--output", type=Path, metavar="REPORT", help="write REPORT.html (a page) or REPORT.json"
    )
    parser.set_defaults(func=run, explain_unknown=explain_unknown)


class _Usage(Exception):
    """A usage or input error: one line on stderr, exit 2."""


def _number(text: str | None, option: str, *, minimum: float, integer: bool = False) -> Any:
    if text is None:
        return None
    try:
        value: float = int(text) if integer else float(text)
    except ValueError:
        raise _Usage(f"{option}: expected {'an integer' if integer else 'a number'}, got {text!r}") from None
    if not value >= minimum or value == float("inf"):
        raise _Usage(f"{option}: must be >= {minimum:g}, got {text}")
    return value


def _key(variable: str | None, option: str) -> str | None:
    from .._config import key_from_variable, resolve_api_key
    from .._exceptions import ConfigurationError

    if variable is None:
        try:
            return resolve_api_key(None)  # checked now: a missing key is a usage error, before anything runs
        except ConfigurationError as exc:
            raise _Usage(f"{option}: not given, and {exc}") from None
    key = key_from_variable(variable)
    if key is None:
        raise _Usage(f"{option}: the variable {variable} is not set")
    return key


def _read_sample(path: Path) -> tuple[list[Any], set[str]]:
    from ..compare import SampleError, read_sample

    try:
        return read_sample(path)
    except SampleError as exc:
        raise _Usage(str(exc)) from None


def _with_model(requests: list[Any], model: str | None) -> list[Any]:
    from ..batch import BatchRequest

    if model is None:
        return requests
    return [BatchRequest(r.custom_id, {**r.body, "model": model}, r.url) for r in requests]


def _check_args(args: argparse.Namespace) -> dict[str, Any]:
    from .._config import check_transport_security
    from .._exceptions import ConfigurationError
    from ..compare import GateError, parse_gate

    checked: dict[str, Any] = {}
    try:
        checked["gates"] = [parse_gate(text) for text in args.gate]
    except GateError as exc:
        raise _Usage(f"--gate: {exc}") from None
    checked["repeat"] = _number(args.repeat, "--repeat", minimum=1, integer=True)
    checked["budget"] = _number(args.budget, "--budget", minimum=0)
    checked["concurrency"] = _number(args.concurrency, "--concurrency", minimum=1, integer=True)
    checked["rpm"] = _number(args.rpm, "--rpm", minimum=1)
    checked["cny_rate"] = _number(args.cny_rate, "--cny-rate", minimum=0)
    for option, url in (("--old", args.old), ("--new", args.new)):
        try:
            check_transport_security(url, allow_insecure_http=False)
        except ConfigurationError as exc:
            raise _Usage(f"{option}: {exc}") from None
    if any(g.metric.startswith("embedding_") for g in checked["gates"]) and not args.embedding_model:
        raise _Usage("--gate: a gate on embedding similarity needs --embedding-model")
    if (
        any(g.relative_to_noise or g.metric in ("noise", "embedding_noise") for g in checked["gates"])
        and checked["repeat"] < 2
    ):
        raise _Usage("--gate: a gate on the noise floor needs --repeat 2 or more")
    if args.output is not None:
        if args.output.suffix.lower() not in (".html", ".json"):
            raise _Usage(f"-o {args.output}: the report must end in .html or .json")
        if not args.output.parent.is_dir() and str(args.output.parent):
            raise _Usage(f"-o {args.output}: directory {args.output.parent} does not exist")
    if args.state is not None:
        if not args.state.parent.is_dir() and str(args.state.parent):
            raise _Usage(f"--state {args.state}: directory {args.state.parent} does not exist")
        if args.state.exists() and not args.state.is_file():
            raise _Usage(f"--state {args.state}: not a file")
        if args.output is not None and args.output.resolve() == args.state.resolve():
            raise _Usage(f"--state {args.state}: the same file as -o")
    checked["old_key"] = _key(args.old_key_env, "--old-key-env")
    checked["new_key"] = _key(args.new_key_env, "--new-key-env")
    return checked


def _fail(message: str, code: int = 2) -> int:
    print(f"holyclient compare: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from .._exceptions import ConfigurationError

    try:
        checked = _check_args(args)
        requests, streams = _read_sample(args.sample)
    except _Usage as exc:
        return _fail(str(exc))
    old_requests = _with_model(requests, args.old_model)
    new_requests = _with_model(requests, args.new_model)
    repeat = checked["repeat"]
    passes = _passes(old_requests, new_requests, repeat)
    try:
        done = _load_state(args.state, passes, args.old, args.new)
    except _Usage as exc:
        return _fail(str(exc))
    remaining = [
        r
        for name, reqs in passes.items()
        for r in reqs
        if name not in done or r.custom_id not in done[name].results
    ]
    worst = worst_case(remaining)
    if worst is not None and args.embedding_model:
        worst = add_embedding_cost(worst, remaining, args.embedding_model)
    budget = checked["budget"]
    if worst is not None:
        resumed = sum(len(run.results) for run in done.values())
        print(
            f"holyclient compare: {len(requests)} requests x {repeat + 1} passes"
            + (f" ({resumed} answers kept from {args.state})" if resumed else "")
            + f"; worst-case cost ${worst:.4f} (CNY {worst * checked['cny_rate']:.4f})",
            file=sys.stderr,
        )
        if budget is not None and worst > budget:
            return _fail(
                f"the worst-case cost ${worst:.4f} exceeds --budget ${budget:.4f}: nothing sent "
                "(raise --budget, shorten the sample or set max_tokens)",
                1,
            )
    elif budget is not None:
        return _fail("--budget: a model of the sample has no price, so the budget cannot be kept")
    try:
        report = _compare(args, checked, requests, streams, passes, done)
    except ConfigurationError as exc:
        return _fail(str(exc))
    return _emit(args, report)


def _passes(old_requests: list[Any], new_requests: list[Any], repeat: int) -> dict[str, list[Any]]:
    """The passes over the sample, by name: ``old``, ``new``, then ``old#2`` ... for ``--repeat``."""
    passes = {"old": old_requests, "new": new_requests}
    passes.update({f"old#{i}": old_requests for i in range(2, repeat + 1)})
    return passes


def _load_state(path: Path | None, passes: dict[str, list[Any]], old: str, new: str) -> dict[str, Any]:
    from ..compare import StateError, endpoint_of, fingerprint, load_state

    if path is None:
        return {}
    prints = {name: {r.custom_id: fingerprint(r.body) for r in reqs} for name, reqs in passes.items()}
    try:
        endpoints = {name: endpoint_of(name, old, new) for name in passes}
        runs = load_state(path, prints, endpoints)
    except StateError as exc:
        raise _Usage(str(exc)) from None
    except OSError as exc:
        raise _Usage(f"--state {path}: cannot read ({exc.strerror})") from None
    return {name: run for name, run in runs.items()}


def _compare(
    args: argparse.Namespace,
    checked: dict[str, Any],
    requests: list[Any],
    streams: set[str],
    passes: dict[str, list[Any]],
    done: dict[str, Any],
) -> Any:
    import anyio

    from ..compare import Endpoint, build_pairs, embed_texts, make_report, prose_texts, run_passes

    counted = local_tokens(passes["old"])

    def log(line: str) -> None:
        print(f"holyclient compare: {line}", file=sys.stderr)

    old, new, again = anyio.run(
        lambda: run_passes(
            Endpoint(args.old, checked["old_key"]),
            Endpoint(args.new, checked["new_key"]),
            passes,
            streams,
            done,
            budget=checked["budget"],
            concurrency=checked["concurrency"],
            rpm=checked["rpm"],
            state=args.state,
            log=log,
            progress_seconds=PROGRESS_SECONDS,
        )
    )
    pairs = build_pairs(requests, streams, counted, old, new, again, price)
    vectors = None
    if args.embedding_model:
        texts = prose_texts(pairs)
        old_endpoint = Endpoint(args.old, checked["old_key"])
        vectors = anyio.run(embed_texts, old_endpoint, args.embedding_model, texts, log) if texts else {}
    return make_report(
        embeddings=vectors,
        old_url=args.old,
        new_url=args.new,
        old_model=args.old_model,
        new_model=args.new_model,
        repeat=checked["repeat"],
        cny_rate=checked["cny_rate"],
        pairs=pairs,
        gates=checked["gates"],
    )


def _emit(args: argparse.Namespace, report: Any) -> int:
    from ..compare import render_text

    data = report.as_dict()
    if args.output is not None:
        if args.output.suffix.lower() == ".json":
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        else:
            from ..compare import render_html

            text = render_html(report)
        write_atomically(args.output, [text])
        print(f"holyclient compare: wrote {args.output}", file=sys.stderr)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        sys.stdout.write(render_text(report))
    return 0 if report.passed else 1
