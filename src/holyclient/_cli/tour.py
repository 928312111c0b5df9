"""``holyclient tour``: the main job on an embedded default, with no key and no network.

It starts the project's own OpenAI-compatible server on 127.0.0.1, then makes a chat completion, a
streamed completion and an embeddings call through :class:`holyclient.Client`, printing what came back.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

DEMO_KEY = "sk-local-demo"

DESCRIPTION = """\
The main job on an embedded default, with no key and no network: start the project's own
OpenAI-compatible server on 127.0.0.1, then make a chat completion, a streamed completion and an
embeddings call through holyclient.Client, printing what came back. Every model the local server
lists is in the price table (see: holyclient models)."""


EPILOG = """\
exit codes: 0 the tour ran, 1 a call to the local server failed, 2 usage error

examples:
    holyclient tour
    holyclient tour --model deepseek-v3.2"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tour",
        help="a short tour against the embedded local server (no key, no network)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument("--model", default="gpt-4.1", help="model name to ask for (default: gpt-4.1)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._exceptions import HolyClientError

    if not args.model.strip():
        print("holyclient tour: --model is empty", file=sys.stderr)
        return 2
    try:
        return _tour(args.model)
    except HolyClientError as exc:
        print(
            f"holyclient tour: the local server refused a call: {' '.join(str(exc).split())}", file=sys.stderr
        )
        return 1


def _tour(model: str) -> int:
    from holyclient import Client
    from holyclient.testing import LocalServer

    out = sys.stdout
    with LocalServer() as server, Client(api_key=DEMO_KEY, base_url=server.base_url) as client:
        print(f"local OpenAI-compatible server at {server.base_url}\n", file=sys.stderr)

        messages = [
            {"role": "system", "content": "You are a concise assistant."},
            {"role": "user", "content": "Say hello to HolySheep."},
        ]
        print("1. chat completion", file=out)
        completion = client.chat.completions.create(model=model, messages=messages, max_tokens=64)
        usage = completion.usage
        print(f"   model:   {completion.model}", file=out)
        print(f"   content: {completion.choices[0].message.content}", file=out)
        if usage is not None:
            print(
                f"   usage:   {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens",
                file=out,
            )

        print("\n2. streamed completion", file=out)
        print("   ", end="", file=out)
        chunks = 0
        with client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "Stream a short greeting, please."}],
            stream=True,
            stream_options={"include_usage": True},
        ) as stream:
            for chunk in stream:
                chunks += 1
                if chunk.choices and chunk.choices[0].delta.content:
                    print(chunk.choices[0].delta.content, end="", flush=True, file=out)
        print(f"\n   ({chunks} chunks)", file=out)

        print("\n3. embeddings", file=out)
        embeddings = client.embeddings.create(
            model="text-embedding-3-small", input=["holy", "sheep"], dimensions=8
        )
        for item in embeddings.data:
            vector = item.embedding
            preview = ", ".join(f"{x:+.3f}" for x in vector[:4]) if isinstance(vector, list) else vector[:24]
            print(f"   [{item.index}] {len(vector)} dims: [{preview}, ...]", file=out)

        print(f"\n4. models: {', '.join(m.id for m in client.models.list())}", file=out)
        print(
            '\nNext: `holyclient serve` keeps such a server running for your own code (see "Try it '
            'locally" in the README); with a HolySheep key in HOLYSHEEP_API_KEY, Client() talks to '
            "https://api.holysheep.ai/v1.",
            file=sys.stderr,
        )
    return 0
