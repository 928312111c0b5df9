"""``holyclient doctor``: probe one OpenAI-compatible endpoint and print what it supports."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ._doctor_judges import INFO, SUPPORTED, Observation, Row, derived_rows
from ._doctor_probes import BAD_KEY, Probe, probes

DESCRIPTION = """\
Send a handful of tiny, max_tokens-capped requests to one endpoint and print a compatibility table:
key accepted; GET /models (and whether each --model is listed); chat; streaming and its usage chunk
(stream_options.include_usage); tools/tool_choice; response_format json_object and json_schema;
n>1; logprobs; embeddings; /responses; error shapes (401 bad key, 400 bad request, 404 unknown
model, each mapped to the right exception); rate-limit headers; latency and time to first token.

Each row is supported, not supported or different (it answers, but not as OpenAI does), with the
evidence. The estimated cost is printed before anything is sent; above $%.2f, --yes is needed."""

#: Above this estimated cost (USD), doctor asks for --yes before sending.
COST_THRESHOLD_USD = 0.05
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"

EPILOG = (
    "exit codes: 0 every required feature works (key, /models, chat, streaming, 401 and 400 errors); "
    "1 some required feature does not; 2 usage error (bad URL, no key, a model name that looks like a "
    "typo, cost above the threshold without --yes: nothing sent) or the key was refused (only the key "
    "probe sent)"
    """

examples:
    holyclient doctor --model gpt-4.1-mini
    holyclient doctor --model gpt-4.1 --model o3 --json
    holyclient doctor --model deepseek-v3.2 \\
        --save-capabilities capabilities.json
    holyclient doctor --base-url http://127.0.0.1:8000/v1 \\
        --embed-model text-embedding-3-small"""
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="probe an endpoint and print which OpenAI features it supports",
        description=DESCRIPTION % COST_THRESHOLD_USD,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base-url", metavar="URL", help="endpoint to probe (default: $HOLYSHEEP_BASE_URL)")
    parser.add_argument("--api-key", metavar="KEY", help="key to use (default: $HOLYSHEEP_API_KEY)")
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="M",
        help=f"model to probe with (default {DEFAULT_MODEL}); repeat to check more are listed",
    )
    parser.add_argument(
        "--embed-model",
        "--embedding-model",
        dest="embedding_model",
        default=DEFAULT_EMBEDDING_MODEL,
        metavar="M",
        help=f"embedding model for the embeddings probe (default {DEFAULT_EMBEDDING_MODEL}; never the chat model)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument(
        "--save-capabilities",
        metavar="FILE",
        help="add what the first --model can do to FILE (JSON); with HOLYSHEEP_CAPABILITIES=FILE, parse() "
        "asks a model that cannot take a JSON schema the right way from the first request",
    )
    parser.add_argument(
        "--yes", action="store_true", help=f"send even if the estimate exceeds ${COST_THRESHOLD_USD}"
    )
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"holyclient doctor: {message}", file=sys.stderr)
    return 2


def estimated_cost(plan: list[Probe]) -> float | None:
    """Worst-case USD of the probes (their max_tokens), or ``None`` when a model has no price."""
    from ..pricing import UnknownModelError, estimate_request
    from ._doctor_probes import UNKNOWN_MODEL

    total = 0.0
    for probe in plan:
        body = probe.body
        if body is None or body.get("model") == UNKNOWN_MODEL:
            continue
        if probe.path == "/responses":  # priced as the chat request it amounts to
            body = {
                "model": body["model"],
                "messages": [{"role": "user", "content": body["input"]}],
                "max_tokens": body["max_output_tokens"],
            }
        try:
            total += estimate_request(body).cost_usd
        except (UnknownModelError, ValueError, TypeError):
            return None
    return total


def _model_typo(model: str, embedding_model: str) -> str | None:
    """ "no price for 'gpt-4.1-mni' (did you mean gpt-4.1-mini?)" when a model name looks like a typo.

    A model the price table does not know but that is close to one it does is far more often a typo
    than a model of the relay's own; saying so comes before the "estimated cost unknown" refusal.
    """
    from ..pricing import default_table
    from ._suggest import did_you_mean

    table = default_table()
    for flag, name in (("--model", model), ("--embed-model", embedding_model)):
        if table.get(name) is None:
            hint = did_you_mean(table, name)
            if hint:
                return f"{flag}: no price for model {name!r}{hint}"
    return None


def observe(client: Any, probe: Probe) -> Observation:
    """Send one probe through the client's low-level path (no retry) and record what came back."""
    from .._core import RequestOptions, SSEDecoder
    from .._exceptions import APIConnectionError
    from .._send import sender_of, status_error
    from ..compare import chunk_has_output

    sender = client.with_options(api_key=BAD_KEY) if probe.bad_key else client
    options = RequestOptions(probe.method, probe.path, body=probe.body, max_retries=0, stream=probe.stream)
    started = time.perf_counter()
    try:
        exchange = sender_of(sender).send(options)
    except APIConnectionError as exc:
        return Observation(error=f"{type(exc).__name__}: {exc}")
    request, response = exchange.request, exchange.response
    status = int(response.status_code)
    seen = Observation(status=status, headers={k.lower(): v for k, v in response.headers.items()})
    if probe.stream and 200 <= status < 300:
        decoder = SSEDecoder()
        try:
            for chunk in response.iter_bytes():
                for data in decoder.feed(chunk):
                    if data.strip() == b"[DONE]":
                        continue
                    try:
                        event = json.loads(data)
                    except ValueError:
                        seen.error = "a stream event is not JSON"
                        continue
                    if seen.ttft is None and chunk_has_output(event):
                        seen.ttft = time.perf_counter() - started
                    seen.events.append(event)
        except Exception as exc:  # a stream cut part-way: the row says so
            seen.error = f"stream failed: {type(exc).__name__}"
        finally:
            response.close()
        seen.latency = time.perf_counter() - started
        return seen
    try:
        content = response.read()  # already read unless this was a stream probe answered with an error
    except Exception as exc:
        seen.error = f"body cut off: {type(exc).__name__}"
        content = b""
    finally:
        response.close()
    seen.latency = time.perf_counter() - started
    try:
        seen.body = json.loads(content)
    except ValueError:
        seen.body = None
    if status >= 400:
        seen.exception = type(status_error(client, response, content, request)).__name__
    return seen


def run(args: argparse.Namespace) -> int:
    from .. import Client
    from .._exceptions import ConfigurationError

    if any(not m.strip() for m in args.model):
        return _fail("--model: a model name must not be empty")
    if not args.embedding_model.strip():
        return _fail("--embed-model: a model name must not be empty")
    models = args.model or [DEFAULT_MODEL]
    if args.save_capabilities is not None:
        from ._doctor_capabilities import check

        problem = check(args.save_capabilities)
        if problem is not None:
            return _fail(f"--save-capabilities: {problem}")
    plan = probes(models[0], args.embedding_model, args.model)
    typo = _model_typo(models[0], args.embedding_model)
    if typo and not args.yes:
        return _fail(typo + "; pass --yes to probe it anyway")
    if typo:
        print(f"holyclient doctor: {typo}", file=sys.stderr)
    try:
        client = Client(api_key=args.api_key, base_url=args.base_url, max_retries=0, timeout=30)
    except ConfigurationError as exc:
        return _fail(str(exc))
    from .._core import safe_url

    with client:
        cost = estimated_cost(plan)
        shown = "unknown (a model has no price)" if cost is None else f"${cost:.5f}"
        print(
            f"holyclient doctor: {len(plan)} probes to {safe_url(str(client.base_url).rstrip('/'))}, estimated cost at most {shown}",
            file=sys.stderr,
        )
        if (cost is None or cost > COST_THRESHOLD_USD) and not args.yes:
            return _fail(
                f"the estimated cost is above ${COST_THRESHOLD_USD:.2f} or unknown: pass --yes to send"
            )
        key_probe, *rest = plan
        seen = {key_probe.feature: observe(client, key_probe)}
        if seen[key_probe.feature].status == 401:
            # Every other probe would fail the same way: 15 rows of "not supported" hide the one cause.
            where = (
                "the key given to --api-key"
                if args.api_key is not None
                else "HOLYSHEEP_API_KEY (or pass --api-key)"
            )
            return _fail(f"the endpoint refused the key (HTTP 401): check {where}; nothing else was probed")
        seen.update((probe.feature, observe(client, probe)) for probe in rest)
        rows = [probe.row(seen[probe.feature]) for probe in plan] + derived_rows(seen)
        base_url = safe_url(str(client.base_url).rstrip("/"))
    if args.save_capabilities is not None:
        from ._doctor_capabilities import entry, save

        try:
            save(args.save_capabilities, models[0], entry(rows, seen, base_url))
        except (OSError, ValueError) as exc:
            return _fail(f"--save-capabilities: {getattr(exc, 'strerror', None) or exc}")
        print(
            f"holyclient doctor: what {models[0]} can do is in {args.save_capabilities}; "
            f"export HOLYSHEEP_CAPABILITIES={args.save_capabilities} for parse() to read it",
            file=sys.stderr,
        )
    ok = all(row.verdict == SUPPORTED for row in rows if row.required)
    if args.json:
        print(
            json.dumps(
                {"base_url": base_url, "model": models[0], "ok": ok, "rows": [r.as_dict() for r in rows]}
            )
        )
    else:
        _print_table(rows)
        failed = [row.feature for row in rows if row.required and row.verdict != SUPPORTED]
        summary = "all required features work" if ok else f"required features failing: {', '.join(failed)}"
        print(f"holyclient doctor: {summary}", file=sys.stderr)
    return 0 if ok else 1


def _print_table(rows: list[Row]) -> None:
    # The evidence quotes the server: escaped, so it cannot drive the terminal.
    from .._core import printable

    width = max(len(row.feature) for row in rows) + 2
    print(f"{'FEATURE':<{width}} {'RESULT':<14} EVIDENCE")
    for row in rows:
        mark = "*" if row.required else " "
        verdict = row.verdict if row.verdict != INFO else "-"
        print(printable(f"{row.feature + mark:<{width}} {verdict:<14} {row.evidence}"))
    print("* required")
