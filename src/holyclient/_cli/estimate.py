"""``holyclient estimate``: what a workload will cost, counted offline, before anything is sent."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from typing import IO, Any

from ._argtypes import non_negative_float, positive_float, token_count
from ._estimate_report import Entry, State, print_json, print_table, spool_row, state_exit

DESCRIPTION = """\
Count the input tokens of requests offline and price them from holyclient's price table.

FILE is a JSON array of chat messages, one chat request body, a JSONL file of request bodies, or an
OpenAI Batch API input file ({"custom_id", "method", "url", "body"} per line); "-" reads stdin.
JSONL is streamed: memory does not grow with the file.

Output tokens are assumed: max_completion_tokens or max_tokens (times n) when the request sets one,
else --output-tokens (default 512). Assumed outputs are marked *. Every input count says how good
it is: exact (the model's own tokenizer), or ~estimate (low-high), a range that holds the billed
count: models whose tokenizer holyclient does not have (Claude, Gemini...) are counted with
o200k_base and corrected by published ratios for the model family and content kind (approximate),
or by --calibration FILE, fitted from what the relay billed (calibrated). HolySheep bills in CNY at 1 CNY per 1 USD of list price (--cny-rate to change).

A model with no price (a preview, a new snapshot) is still counted with its family's tokenizer; its
cost is shown as ? (null in --json). Fine-tuned names (ft:gpt-4o-mini:org::id) are priced as their
base model. A request that cannot fit a model -- its prompt exceeds the context window, or its
max_tokens the model's output limit -- is marked ! and left out of that model's total; with
--compare such models rank last."""

EPILOG = """\
exit codes:
  0  estimated (models with no price are counted, their cost shown as ?, with a warning)
  1  the total exceeds --max-cost (with --compare: even the cheapest model does)
  2  usage or input error (bad JSON, wrong shape, bad flag); nothing printed to stdout

examples:
    holyclient estimate requests.jsonl
    holyclient estimate requests.jsonl --compare gpt-4.1,o3
    holyclient estimate batch.jsonl --summary --max-cost 20
    # "-" reads stdin: here a JSON array of messages
    echo '[{"role": "user", "content": "hi"}]' \\
        | holyclient estimate -"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "estimate",
        help="count tokens and estimate the cost of requests, offline",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help='requests (JSON or JSONL); "-" for stdin')
    # Groups a reader can scan: what is priced, what is assumed, what is printed (then the two money
    # modes, which add their own groups).
    which = parser.add_argument_group("which models")
    which.add_argument(
        "--model", metavar="M", help="price every request on this model (default: each request's)"
    )
    which.add_argument(
        "--compare",
        metavar="M1,M2|all",
        help="price the same workload on several models (comma-separated, or all), cheapest first",
    )
    assumed = parser.add_argument_group("assumptions and prices")
    assumed.add_argument(
        "--output-tokens",
        type=token_count,
        default=None,
        metavar="N",
        help="output tokens assumed for requests that set no max_tokens (default: 512)",
    )
    assumed.add_argument(
        "--image-size",
        type=_image_size,
        metavar="WxH",
        help="size assumed for images given by URL (default: 1024x1024; data: URIs are measured)",
    )
    assumed.add_argument(
        "--prices", metavar="FILE", help="extra/override price table (JSON; default: $HOLYSHEEP_PRICES)"
    )
    assumed.add_argument(
        "--cny-rate",
        type=positive_float,
        default=None,
        metavar="R",
        help="CNY per USD of list price (default: 1.0)",
    )
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="token-count corrections fitted from billed usage (written by holyclient calibrate)",
    )
    output = parser.add_argument_group("output and exit status")
    shape = output.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    shape.add_argument(
        "--summary", action="store_true", help="print the totals only, not one row per request (table only)"
    )
    output.add_argument(
        "--max-cost", type=non_negative_float, metavar="USD", help="exit 1 if the total exceeds this"
    )
    from . import _estimate_money

    _estimate_money.add_arguments(parser)
    parser.set_defaults(func=run, format_usage=parser.format_usage)


def _image_size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) == 0 or int(h) == 0:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, e.g. 1024x768, got {text!r}")
    return int(w), int(h)


def _fail(message: str) -> int:
    print(f"holyclient estimate: {message}", file=sys.stderr)
    return 2


def _warn(message: str) -> None:
    print(f"holyclient estimate: warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from ..pricing import DEFAULT_CNY_RATE, PriceFileError, PriceTable

    rate = DEFAULT_CNY_RATE if args.cny_rate is None else args.cny_rate
    if args.model is not None and not args.model.strip():
        return _fail("--model is empty: give a model name, or leave --model out to use each request's")
    try:
        table = PriceTable.load(args.prices)
    except PriceFileError as exc:
        return _fail(str(exc))
    compare: list[str] | None = None
    if args.compare is not None:
        if args.compare.strip() == "all":  # every chat model (embedding models have no output)
            names = [n for n, m in table.models.items() if m.max_output_tokens > 0]
        else:
            names = [n.strip() for n in args.compare.split(",") if n.strip()]
        if not names:
            return _fail("--compare needs at least one model name (comma-separated), or all")
        compare = list(dict.fromkeys(_model_name(table, n) for n in names))

    from . import _estimate_money

    state = State(rate, compare)
    if args.calibration is not None:
        from ..tokens import Calibration, CalibrationFileError

        try:
            state.calibration = Calibration.load(args.calibration)
        except CalibrationFileError as exc:
            return _fail(str(exc))
    if _estimate_money.wants_money(args):
        if args.files and args.self_host is not None and not args.usage:  # the requests are the workload
            with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8") as spool:
                error = _read_all(args, table, state, spool)
            if error is not None:
                return _fail(error)
            return _estimate_money.run(args, table, rate, compare, requests=state)
        return _estimate_money.run(args, table, rate, compare)
    if not args.files:  # argparse's own shape: the usage line, then the error
        sys.stderr.write(args.format_usage())
        return _fail("give request FILEs, --usage FILEs or --self-host GPU (see --help)")
    # Rows are spooled (RAM up to 1 MB, then a temporary file) and printed only once every
    # request has been read: bad input at line 90,000 must not leave half a document on stdout.
    with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8") as spool:
        error = _read_all(args, table, state, spool)
        if error is not None:
            return _fail(error)
        spool.seek(0)
        out = sys.stdout
        if args.json:
            print_json(state, spool, out)
        else:
            print_table(state, spool, out, summary=args.summary)
    return state_exit(state, args.max_cost)


def _read_all(args: argparse.Namespace, table: Any, state: State, spool: IO[str]) -> str | None:
    """Estimate every request FILE into ``state``; the input error that stops the run, if any."""
    from ._request_files import InputError

    try:
        for path in args.files:
            _estimate_file(path, args, table, state, spool)
    except InputError as exc:
        return str(exc)
    finally:
        _clear_progress()
    return None


def _model_name(table: Any, requested: str) -> str:
    """The table's name for a model, or the name as given when it has no price."""
    info = table.get(requested)
    return str(info.name) if info is not None else requested


def _unpriced(table: Any, model: str, encoding: str, state: State) -> None:
    """Warn once per run about a model with no price: its tokens are still counted."""
    if model in state.warned:
        return
    state.warned.add(model)
    from ._suggest import did_you_mean

    _warn(
        f"no price for model {model!r}{did_you_mean(table, model)}: tokens counted with {encoding}, cost shown as ?; "
        "add a price with --prices FILE or HOLYSHEEP_PRICES"
    )


def _estimate_file(path: str, args: argparse.Namespace, table: Any, state: State, spool: IO[str]) -> None:
    from ..pricing import DEFAULT_OUTPUT_TOKENS, requested_output_tokens
    from ._request_files import InputError, file_size, read_requests

    assumed_default = DEFAULT_OUTPUT_TOKENS if args.output_tokens is None else args.output_tokens
    progress = _progress(path, file_size(path), state) if sys.stderr.isatty() else None
    for request in read_requests(path, progress):
        body = request.body
        requested = args.model or body.get("model")
        if not requested and not state.compare:
            raise InputError(f"{request.source}: no model: the request sets no 'model'; pass --model")
        models: list[str] = state.compare or [str(requested)]
        cap = requested_output_tokens(body) if "messages" in body else None  # embeddings have no output
        n_value = body.get("n")
        n = n_value if isinstance(n_value, int) and n_value > 0 else 1
        counted: dict[tuple[str, bool], Any] = {}
        entries = []
        for model in models:
            entry = _price_one(body, model, table, state, counted, cap, n, assumed_default, args.image_size)
            if isinstance(entry, str):
                raise InputError(f"{request.source}: {entry}")
            entries.append(entry)
            state.add(entry)
        state.count += 1
        if args.json or not args.summary:
            spool_row(state, request, entries, spool, as_json=args.json)


def _price_one(
    body: dict[str, Any],
    model: str,
    table: Any,
    state: State,
    counted: dict[tuple[str, bool], Any],
    cap: int | None,
    n: int,
    assumed_default: int,
    image_size: tuple[int, int] | None,
) -> Entry | str:
    """One request on one model, or the message of the input error that stops the run."""
    from ..pricing import estimate_cost
    from ..tokens import encoding_name_for_model, profile_request, qualify_profile

    info = table.get(model)
    # No price: the model family's encoding (gpt-4-1106-preview -> cl100k_base). A user alias the
    # tokenizer does not know (my-gpt for gpt-4.1) is counted as the table entry it stands for.
    exact = not encoding_name_for_model(model)[1]
    counting = model if info is None or exact else info.name
    key = encoding_name_for_model(counting)
    if info is None:
        _unpriced(table, model, key[0], state)
    if key not in counted:
        try:
            counted[key] = profile_request(body, model=counting, image_size=image_size)
        except (TypeError, ValueError) as exc:
            return str(exc)
        except RecursionError:
            return "the request is nested too deeply to count"
    raw, weights = counted[key]
    count = raw
    if raw.approximate:  # one stand-in count, corrected per model family (and calibration)
        count = qualify_profile(raw._replace(model=counting), weights, state.calibration)
    prompt = count.tokens
    chat = "messages" in body
    output = 0
    if chat and cap is not None:
        output = cap * n
    elif chat:
        # An assumption never exceeds what the model can write: the server stops there.
        room = (
            assumed_default
            if info is None
            else max(min(info.max_output_tokens, info.context_window - prompt), 0)
        )
        output = min(assumed_default, room) * n
    approximate = count.approximate or (info is not None and info.approximate)
    method, input_range = count.count_method, count.input_tokens_range
    if info is None:
        return Entry(
            model, prompt, output, chat and cap is None, approximate, None, None, method, input_range
        )
    est = estimate_cost(
        model, prompt, output, output_assumed=chat and cap is None, approximate=approximate, table=table
    )
    return Entry(
        est.model,
        prompt,
        output,
        est.output_assumed,
        approximate,
        est.cost_usd,
        _misfit(info, prompt, cap, chat=chat),
        method,
        input_range,
    )


def _misfit(info: Any, prompt: int, cap: int | None, *, chat: bool) -> str | None:
    """Why a request cannot be served by a model (the server would refuse it), or None."""
    window, most = info.context_window, info.max_output_tokens
    if chat and most == 0:
        return "an embeddings model, it cannot answer a chat request"
    if prompt > window:
        return f"{prompt:,} input tokens, context window {window:,}"
    if cap is not None and cap > most:
        return f"max_tokens {cap:,}, output limit {most:,}"
    if cap is not None and prompt + cap > window:
        return f"{prompt:,} input + {cap:,} max_tokens, context window {window:,}"
    return None


_progress_shown = False


def _progress(path: str, size: int | None, state: State) -> Callable[[int], None]:
    last = [0.0]

    def show(consumed: int) -> None:
        global _progress_shown
        now = time.monotonic()
        if now - last[0] < 0.2:
            return
        last[0] = now
        share = f" {min(consumed / size, 1.0):.0%}" if size else ""
        sys.stderr.write(f"\rholyclient estimate: {path}{share}, {state.count:,} requests ")
        sys.stderr.flush()
        _progress_shown = True

    return show


def _clear_progress() -> None:
    global _progress_shown
    if _progress_shown:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
        _progress_shown = False
