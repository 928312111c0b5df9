"""``holyclient calibrate``: fit token-count corrections from what the relay billed."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

DESCRIPTION = """\
Fit, per model, how the relay's billed prompt tokens relate to holyclient's offline count, from runs
you already made: pairs of INPUT (a batch input file: one request per line, each with a custom_id)
and OUTPUT (its holyclient batch output file, or a holyclient compare --json report).

Models whose own tokenizer holyclient has (OpenAI's, Qwen, DeepSeek) are exact and need no fit. For
the others (Claude, Gemini...) the fit is billed/counted over the whole sample, with its error (the
spread of single requests around it); a factor per content kind (prose, code, CJK, JSON, tool
schemas) is added when it fits measurably better. Give the file to holyclient estimate --calibration,
Client(calibration=...) or a BatchRunner's client: counts of those models become "calibrated", with a
range from the fit's error.

A result whose custom_id is not in its INPUT, or whose model is not the one its request asked for, is
refused: the files are not a pair."""

EPILOG = """\
exit codes:
  0  calibration written (stdout: one line per model, or --json)
  1  nothing to calibrate: no billed result of a model counted with a stand-in tokenizer
  2  usage or input error (files that do not pair, bad JSON); nothing written

examples:
    holyclient calibrate requests.jsonl results.jsonl -o calibration.json
    holyclient calibrate day1.jsonl day1.out.jsonl day2.jsonl day2.out.jsonl -o calibration.json"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="fit token-count corrections from billed usage (batch runs, compare reports)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="INPUT OUTPUT", help="pairs of input and output files")
    parser.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="where to write the calibration"
    )
    parser.add_argument("--json", action="store_true", help="print the calibration as JSON on stdout")
    parser.add_argument(
        "--prices", metavar="FILE", help="extra/override price table (JSON; default: $HOLYSHEEP_PRICES)"
    )
    parser.set_defaults(func=run)


def _fail(message: str, code: int = 2) -> int:
    print(f"holyclient calibrate: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from ..pricing import PriceFileError, PriceTable
    from ._request_files import InputError

    if len(args.files) % 2:
        return _fail(f"give INPUT OUTPUT pairs: got {len(args.files)} files; the last has no OUTPUT")
    try:
        table = PriceTable.load(args.prices)
    except PriceFileError as exc:
        return _fail(str(exc))
    try:
        samples, exact = _samples(args.files, table)
    except InputError as exc:
        return _fail(str(exc))
    from ..tokens import fit

    calibration = fit(samples)
    if not calibration.models:
        why = f" ({', '.join(sorted(exact))} count exactly)" if exact else ""
        return _fail(
            f"nothing to calibrate: no billed result of a model counted with a stand-in tokenizer{why}", 1
        )
    try:
        calibration.save(args.output)
    except OSError as exc:
        return _fail(f"{args.output}: cannot write: {exc.strerror or exc}")
    if args.json:
        print(json.dumps(calibration.as_dict(), indent=2))
    else:
        for name, model_fit in sorted(calibration.models.items()):
            kinds = ""
            if model_fit.kinds:
                kinds = "; per kind: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(model_fit.kinds.items()))
            print(
                f"{name}: {model_fit.samples} requests, billed = counted x {model_fit.factor:.3f} "
                f"(error {model_fit.error:.1%} per request){kinds}"
            )
    if exact:
        print(f"holyclient calibrate: exact, not calibrated: {', '.join(sorted(exact))}", file=sys.stderr)
    print(f"holyclient calibrate: wrote {args.output}", file=sys.stderr)
    return 0


def _samples(files: list[str], table: Any) -> tuple[list[Any], set[str]]:
    """Every billed request of the file pairs as a calibration sample; and the exact models seen."""
    from ..tokens import Sample, profile_request
    from ._calibrate_files import read_billed, read_inputs
    from ._request_files import InputError

    samples: list[Any] = []
    exact: set[str] = set()
    for input_path, output_path in zip(files[::2], files[1::2], strict=True):
        requests = read_inputs(input_path)
        for billed in read_billed(output_path):
            found = requests.get(billed.custom_id)
            if found is None:
                raise InputError(
                    f"{billed.source}: custom_id: {billed.custom_id!r} is not in {input_path} "
                    "(are these files a pair?)"
                )
            source, body = found
            asked = body.get("model")
            if not isinstance(asked, str) or not asked:
                raise InputError(f"{source}: body.model: missing; calibration is per model")
            if billed.model is not None and not _same_model(table, asked, billed.model):
                raise InputError(
                    f"{billed.source}: model: {billed.model!r} answered request {billed.custom_id!r}, which "
                    f"asked for {asked!r} ({source}); are these files a pair?"
                )
            info = table.get(asked)
            name = info.name if info is not None else asked
            try:
                counted, weights = profile_request(body, model=name)
            except (TypeError, ValueError) as exc:
                raise InputError(f"{source}: {exc}") from None
            if not counted.approximate or counted.low is not None:  # its own tokenizer: nothing to fit
                exact.add(name)
                continue
            samples.append(Sample(name, counted.tokens, weights, billed.prompt_tokens))
    return samples, exact


def _same_model(table: Any, asked: str, answered: str) -> bool:
    """Whether the model a result names is the one its request asked for (a dated snapshot, an alias
    or a provider prefix of the same model counts as the same)."""
    a, b = asked.strip().lower(), answered.strip().lower().rsplit("/", 1)[-1]
    if a == b or b.startswith(a) or a.startswith(b):
        return True
    left, right = table.get(asked), table.get(answered)
    return left is not None and right is not None and left.name == right.name
