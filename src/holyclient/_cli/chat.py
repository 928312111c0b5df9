"""``holyclient chat``: one prompt, one answer -- check a key and a base URL in one line.

The answer goes to stdout (streamed as it arrives with ``--stream``); diagnostics go to stderr as one
line. ``--json`` prints the response as the server sent it (with ``--stream``, one JSON chunk per line).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._argtypes import non_negative_float, non_negative_int, positive_float, positive_int
from ._server_args import SettingsError, add_server_arguments, client_settings

DEFAULT_MODEL = "gpt-4o-mini"

DESCRIPTION = f"""\
Send one chat message and print the answer: the quickest way to check that a key and a base URL work.

PROMPT "-" reads the prompt from stdin. The model defaults to {DEFAULT_MODEL}. The answer goes to
stdout; errors go to stderr as one line."""

EPILOG = """\
exit codes:
  0  answered
  1  the API failed (server error, rate limit, network), after retries
  2  usage error, no or rejected API key, or unsafe base URL

examples:
    holyclient chat "Say hello"
    holyclient chat -m deepseek-v3.2 --stream "Write a haiku"
    git diff | holyclient chat -s "Review this diff" -"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "chat",
        help="send one prompt and print the answer (checks a key and base URL)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "prompt",
        nargs="+",
        metavar="PROMPT",
        help='the user message (several words are joined); "-" reads stdin',
    )
    parser.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M", help=f"default: {DEFAULT_MODEL}")
    parser.add_argument("--system", "-s", metavar="S", help="a system message sent before the prompt")
    parser.add_argument("--stream", action="store_true", help="print the answer as it arrives")
    parser.add_argument(
        "--json", action="store_true", help="print the raw response (JSONL chunks with --stream)"
    )
    parser.add_argument("--max-tokens", type=positive_int, metavar="N", help="cap on the answer's tokens")
    parser.add_argument("--temperature", type=_temperature, metavar="T", help="sampling temperature, 0..2")
    parser.add_argument(
        "--timeout", type=positive_float, metavar="S", help="seconds per attempt (default: 600)"
    )
    parser.add_argument(
        "--max-retries", type=non_negative_int, default=2, metavar="N", help="retries (default: 2)"
    )
    add_server_arguments(parser)
    parser.set_defaults(func=run)


def _temperature(text: str) -> float:
    value = non_negative_float(text)
    if value > 2:
        raise argparse.ArgumentTypeError(f"must be within 0..2, got {text}")
    return value


def _fail(message: str, code: int = 2) -> int:
    print(f"holyclient chat: {' '.join(message.split())}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from_stdin = args.prompt == ["-"]
    if from_stdin and sys.stdin is None:  # started with stdin closed (`<&-`)
        return _fail("standard input is closed; give the prompt as an argument")
    prompt = sys.stdin.read() if from_stdin else " ".join(args.prompt)
    if not prompt.strip():
        return _fail("the prompt is empty" + (" (stdin had no text)" if from_stdin else ""))
    if not args.model.strip():
        return _fail("--model is empty")
    try:
        settings = client_settings(args)
    except SettingsError as exc:
        return _fail(str(exc))

    from .. import Client
    from .._exceptions import (
        APIConnectionError,
        APIError,
        APIStatusError,
        AuthenticationError,
        ConfigurationError,
        PermissionDeniedError,
        error_text,
    )

    messages = [{"role": "system", "content": args.system}] if args.system else []
    messages.append({"role": "user", "content": prompt})
    params: dict[str, Any] = {"model": args.model, "messages": messages}
    if args.max_tokens is not None:
        params["max_tokens"] = args.max_tokens
    if args.temperature is not None:
        params["temperature"] = args.temperature
    try:
        with Client(**settings.as_kwargs(), timeout=args.timeout, max_retries=args.max_retries) as client:
            if args.stream:
                _stream(client, params, as_json=args.json)
            else:
                _answer(client, params, as_json=args.json)
    except ConfigurationError as exc:  # checked above; kept so a new library check cannot escape
        return _fail(str(exc))
    except (AuthenticationError, PermissionDeniedError) as exc:
        return _fail(
            f"the server at {settings.base_url} rejected the API key ({exc.status_code}: {exc.message}); "
            "check HOLYSHEEP_API_KEY or --api-key"
        )
    except APIStatusError as exc:
        request_id = f" (request id {exc.request_id})" if exc.request_id else ""
        return _fail(f"{error_text(exc)}{request_id}", 1)
    except APIConnectionError as exc:
        return _fail(f"cannot reach {settings.base_url}: {error_text(exc)}", 1)
    except APIError as exc:
        return _fail(error_text(exc), 1)
    return 0


def _answer(client: Any, params: dict[str, Any], *, as_json: bool) -> None:
    completion = client.chat.completions.create(**params)
    if as_json:
        print(json.dumps(completion.model_dump(mode="json", exclude_unset=True), indent=2))
        return
    text = "".join(choice.message.content or "" for choice in completion.choices[:1])
    print(text)
    if completion.choices and completion.choices[0].finish_reason == "length":
        print("holyclient chat: note: the answer was cut at --max-tokens", file=sys.stderr)


def _stream(client: Any, params: dict[str, Any], *, as_json: bool) -> None:
    out = sys.stdout
    finish = None
    printed = False
    try:
        with client.chat.completions.create(**params, stream=True) as stream:
            for chunk in stream:
                if as_json:
                    out.write(json.dumps(chunk.model_dump(mode="json", exclude_unset=True)) + "\n")
                    out.flush()
                    continue
                if chunk.choices:
                    choice = chunk.choices[0]
                    finish = choice.finish_reason or finish
                    if choice.delta.content:
                        out.write(choice.delta.content)
                        out.flush()
                        printed = True
    except BaseException:
        if printed:  # end the partial answer's line, so the error line on stderr stands on its own
            out.write("\n")
        raise
    if not as_json:
        out.write("\n")
        if finish == "length":
            print("holyclient chat: note: the answer was cut at --max-tokens", file=sys.stderr)
