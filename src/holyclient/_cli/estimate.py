"""``holyclient estimate``: what a workload will cost, counted offline, before anything is sent."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

DESCRIPTION = """\
Count the input tokens of requests offline and price them from holyclient's price table.

FILE is a JSON array of chat messages, one chat request body, a JSONL file of request bodies, or an
OpenAI Batch API input file ({"custom_id", "method", "url", "body"} per line); "-" reads stdin.
JSONL is streamed: memory does not grow with the file.

Output tokens are assumed: max_completion_tokens or max_tokens (times n) when the request sets one,
else --output-tokens (default 512). Assumed outputs are marked *. Claude, Gemini, DeepSeek and
other non-OpenAI models are counted with o200k_base as a stand-in: their counts are marked ~
(approximate). HolySheep bills in CNY at 1 CNY per 1 USD of list price (--cny-rate to change)."""

EPILOG = (
    "exit codes: 0 estimated; 1 the total exceeds --max-cost (with --compare: even the cheapest "
    "model does); 2 usage or input error (bad JSON, wrong shape, unknown model), nothing printed to stdout"
)

_ROW = "{:<28} {:<22} {:>12} {:>12} {:>12} {:>12}"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "estimate",
        help="count tokens and estimate the cost of requests, offline",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help='requests (JSON or JSONL); "-" for stdin')
    parser.add_argument(
        "--model", metavar="M", help="price every request on this model (default: each request's)"
    )
    parser.add_argument(
        "--compare",
        metavar="M1,M2|all",
        help="price the same workload on several models (comma-separated, or all), cheapest first",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument(
        "--summary", action="store_true", help="print the totals only, not one row per request"
    )
    parser.add_argument(
        "--output-tokens",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="output tokens assumed for requests that set no max_tokens (default: 512)",
    )
    parser.add_argument(
        "--image-size",
        type=_image_size,
        metavar="WxH",
        help="size assumed for images given by URL (default: 1024x1024; data: URIs are measured)",
    )
    parser.add_argument(
        "--prices", metavar="FILE", help="extra/override price table (JSON; default: $HOLYSHEEP_PRICES)"
    )
    parser.add_argument(
        "--cny-rate",
        type=_non_negative_float,
        default=None,
        metavar="R",
        help="CNY per USD of list price (default: 1.0)",
    )
    parser.add_argument(
        "--max-cost", type=_non_negative_float, metavar="USD", help="exit 1 if the total exceeds this"
    )
    parser.set_defaults(func=run)


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _image_size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) == 0 or int(h) == 0:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, e.g. 1024x768, got {text!r}")
    return int(w), int(h)


@dataclass
class _Total:
    model: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    approximate: bool = False
    assumed: bool = False

    def add(self, est: Any) -> None:
        self.requests += 1
        self.input_tokens += est.input_tokens
        self.output_tokens += est.output_tokens
        self.cost_usd += est.cost_usd
        self.approximate = self.approximate or est.approximate
        self.assumed = self.assumed or est.output_assumed

    def as_dict(self, rate: float) -> dict[str, Any]:
        return {
            "model": self.model,
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 10),
            "cost_cny": round(self.cost_usd * rate, 10),
            "approximate": self.approximate,
        }


@dataclass
class _State:
    rate: float
    compare: list[str] | None
    totals: dict[str, _Total] = field(default_factory=dict)
    count: int = 0


def _fail(message: str) -> int:
    print(f"holyclient estimate: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from ..pricing import DEFAULT_CNY_RATE, PriceFileError, PriceTable, UnknownModelError
    from ._request_files import InputError

    rate = DEFAULT_CNY_RATE if args.cny_rate is None else args.cny_rate
    try:
        table = PriceTable.load(args.prices)
    except PriceFileError as exc:
        return _fail(str(exc))
    compare: list[str] | None = None
    try:
        if args.model:
            table.lookup(args.model)
        if args.compare:
            if args.compare.strip() == "all":  # every chat model (embedding models have no output)
                names = [n for n, m in table.models.items() if m.max_output_tokens > 0]
            else:
                names = args.compare.split(",")
            compare = list(dict.fromkeys(table.lookup(n.strip()).name for n in names if n.strip()))
            if not compare:
                return _fail("--compare needs at least one model name, or all")
    except UnknownModelError as exc:
        return _fail(str(exc))

    state = _State(rate, compare)
    # Rows are spooled (RAM up to 1 MB, then a temporary file) and printed only once every
    # request has been read: bad input at line 90,000 must not leave half a document on stdout.
    with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8") as spool:
        try:
            for path in args.files:
                _estimate_file(path, args, table, state, spool)
        except InputError as exc:
            _clear_progress()
            return _fail(str(exc))
        _clear_progress()
        spool.seek(0)
        out = sys.stdout
        if args.json:
            _print_json(state, spool, out)
        else:
            _print_table(state, spool, out, summary=args.summary)
    return _exit_code(state, args.max_cost)


def _estimate_file(path: str, args: argparse.Namespace, table: Any, state: _State, spool: IO[str]) -> None:
    from ..pricing import DEFAULT_OUTPUT_TOKENS, UnknownModelError, estimate_cost, requested_output_tokens
    from ..tokens import count_request, encoding_name_for_model
    from ._request_files import InputError, file_size, read_requests

    assumed_default = DEFAULT_OUTPUT_TOKENS if args.output_tokens is None else args.output_tokens
    progress = _progress(path, file_size(path), state) if sys.stderr.isatty() else None
    for request in read_requests(path, progress):
        body = request.body
        requested = args.model or body.get("model")
        if not requested and not state.compare:
            raise InputError(f"{request.source}: no model: the request sets no 'model'; pass --model")
        models: list[str] = state.compare or [str(requested)]
        chat = "messages" in body
        cap = requested_output_tokens(body)
        n_value = body.get("n")
        n = n_value if isinstance(n_value, int) and n_value > 0 else 1
        output = ((cap if cap is not None else assumed_default) * n) if chat else 0
        counted: dict[tuple[str, bool], Any] = {}
        estimates = []
        for model in models:
            try:
                info = table.lookup(model)
            except UnknownModelError as exc:
                raise InputError(f"{request.source}: {exc}") from None
            counting = model if not encoding_name_for_model(model)[1] else info.name
            key = encoding_name_for_model(counting)
            if key not in counted:
                try:
                    counted[key] = count_request(body, model=counting, image_size=args.image_size)
                except (TypeError, ValueError) as exc:
                    raise InputError(f"{request.source}: {exc}") from None
            tokens = counted[key]
            est = estimate_cost(
                model,
                tokens.tokens,
                output,
                output_assumed=chat and cap is None,
                approximate=tokens.approximate or info.approximate,
                table=table,
            )
            estimates.append(est)
            total = state.totals.get(est.model)
            if total is None:
                total = state.totals[est.model] = _Total(est.model)
            total.add(est)
        state.count += 1
        if args.json or not args.summary:
            _spool_row(state, request, estimates, spool, as_json=args.json)


def _spool_row(state: _State, request: Any, estimates: list[Any], spool: IO[str], *, as_json: bool) -> None:
    if as_json:
        entries = [
            {
                "model": e.model,
                "input_tokens": e.input_tokens,
                "output_tokens": e.output_tokens,
                "output_assumed": e.output_assumed,
                "cost_usd": round(e.cost_usd, 10),
                "cost_cny": round(e.cost_usd * state.rate, 10),
                "approximate": e.approximate,
            }
            for e in estimates
        ]
        row: dict[str, Any] = {"index": state.count, "source": request.source, "custom_id": request.custom_id}
        if state.compare is None:
            row.update(entries[0])
        else:
            row["estimates"] = entries
        spool.write(json.dumps(row) + "\n")
    elif state.compare is None:
        e = estimates[0]
        spool.write(
            _ROW.format(
                _clip(request.custom_id or request.source, 28),
                _clip(e.model, 22),
                _tokens(e.input_tokens, e.approximate),
                _tokens(e.output_tokens, False, e.output_assumed),
                f"{e.cost_usd:.6f}",
                f"{e.cost_usd * state.rate:.6f}",
            )
            + "\n"
        )


def _print_json(state: _State, spool: IO[str], out: IO[str]) -> None:
    out.write('{"requests": [')
    for i, line in enumerate(spool):
        out.write(("\n  " if i == 0 else ",\n  ") + line.rstrip("\n"))
    ranked = sorted(state.totals.values(), key=lambda t: t.cost_usd)
    if state.compare is None:
        total: dict[str, Any] = {
            "requests": state.count,
            "input_tokens": sum(t.input_tokens for t in ranked),
            "output_tokens": sum(t.output_tokens for t in ranked),
            "cost_usd": round(sum(t.cost_usd for t in ranked), 10),
            "cost_cny": round(sum(t.cost_usd for t in ranked) * state.rate, 10),
            "approximate": any(t.approximate for t in ranked),
            "cny_rate": state.rate,
            "by_model": {t.model: t.as_dict(state.rate) for t in state.totals.values()},
        }
    else:
        total = {
            "requests": state.count,
            "cny_rate": state.rate,
            "models": [t.as_dict(state.rate) for t in ranked],
        }
    out.write('\n], "total": ' + json.dumps(total, indent=2) + "}\n")


def _print_table(state: _State, spool: IO[str], out: IO[str], *, summary: bool) -> None:
    header = _ROW.format("REQUEST", "MODEL", "INPUT", "OUTPUT", "COST USD", "COST CNY")
    if state.compare is None:
        if not summary:
            out.write(header + "\n")
            for line in spool:
                out.write(line)
            out.write("-" * len(header) + "\n")
        for t in sorted(state.totals.values(), key=lambda t: -t.cost_usd):
            label = f"total ({t.requests} request{'s' * (t.requests != 1)})"
            out.write(_total_row(label, t, state.rate) + "\n")
        if len(state.totals) > 1:
            cost = sum(t.cost_usd for t in state.totals.values())
            out.write(f"all models: {state.count} requests, ${cost:.6f} = ¥{cost * state.rate:.6f}\n")
    else:
        ranked = sorted(state.totals.values(), key=lambda t: t.cost_usd)
        out.write(
            _ROW.format(
                f"VS CHEAPEST ({state.count} req.)", "MODEL", "INPUT", "OUTPUT", "COST USD", "COST CNY"
            )
            + "\n"
        )
        cheapest = ranked[0].cost_usd if ranked else 0.0
        for t in ranked:
            ratio = f"{t.cost_usd / cheapest:.1f}x" if cheapest > 0 else "-"
            out.write(_total_row(ratio, t, state.rate) + "\n")
    notes = []
    if any(t.assumed for t in state.totals.values()):
        notes.append(
            "* assumed output: max_tokens/max_completion_tokens when set, else --output-tokens (512)"
        )
    if any(t.approximate for t in state.totals.values()):
        notes.append("~ approximate: counted with o200k_base, not the model's own tokenizer")
    notes.append(f"CNY at {state.rate:g} CNY per USD of list price")
    for note in notes:
        out.write(note + "\n")


def _total_row(label: str, t: _Total, rate: float) -> str:
    return _ROW.format(
        _clip(label, 28),
        _clip(t.model, 22),
        _tokens(t.input_tokens, t.approximate),
        _tokens(t.output_tokens, False, t.assumed),
        f"{t.cost_usd:.6f}",
        f"{t.cost_usd * rate:.6f}",
    )


def _tokens(n: int, approximate: bool, assumed: bool = False) -> str:
    return ("~" if approximate else "") + f"{n:,}" + ("*" if assumed else "")


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _exit_code(state: _State, max_cost: float | None) -> int:
    if max_cost is None or not state.totals:
        return 0
    if state.compare is None:
        total = sum(t.cost_usd for t in state.totals.values())
    else:
        total = min(t.cost_usd for t in state.totals.values())
    if total > max_cost:
        print(
            f"holyclient estimate: estimated ${total:.6f} exceeds --max-cost ${max_cost:.6f}", file=sys.stderr
        )
        return 1
    return 0


_progress_shown = False


def _progress(path: str, size: int | None, state: _State) -> Callable[[int], None]:
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
