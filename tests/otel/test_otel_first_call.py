"""The first call in a process is traced as the wire, not as the imports: what its attempts load on
first use -- the HTTP client and its library, the token counter and the model's tokenizer, the price
table -- is loaded before its span starts, so the span's duration and ``time_to_first_chunk`` measure
the request (a CLI only ever makes first calls; a Claude stream spent 0.48 s of its time to first chunk
in imports against a server answering in 1 ms).

Proved without a clock: in a fresh interpreter (nothing loaded by another test), an audit hook records
every module imported and every file opened while the call's span is open; none may be anything but
the standard library's (the socket's first name lookup imports ``encodings.idna``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from opentelemetry.trace import StatusCode

from holyclient import Client
from holyclient.testing import LocalServer

from .conftest import Captured

KEY = "sk-otel-first-call-1234"

_CHILD = r"""
import json, sys, sysconfig
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

base_url, mode, model, budget = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
STDLIB = (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])
during = {"open": False, "imports": [], "files": [], "spans": 0}


def audit(event, args):
    if not during["open"]:
        return
    if event == "import":
        top = args[0].split(".")[0]
        if top not in sys.stdlib_module_names:
            during["imports"].append(args[0])
    elif event == "open" and isinstance(args[0], str) and not args[0].startswith(STDLIB):
        during["files"].append(args[0])


class Watch(SpanProcessor):
    def on_start(self, span, parent_context=None):
        during["open"] = True
        during["spans"] += 1

    def on_end(self, span):
        during["open"] = False


sys.addaudithook(audit)
provider = TracerProvider()
provider.add_span_processor(Watch())
exporter = InMemorySpanExporter()
provider.add_span_processor(SimpleSpanProcessor(exporter))

import holyclient

kwargs = {"base_url": base_url, "tracer_provider": provider, "max_retries": 0}  # key: HOLYSHEEP_API_KEY
if budget != "-":
    kwargs["budget_usd"] = float(budget)
messages = [{"role": "user", "content": "hi"}]
stream = mode.endswith("stream")
if mode.startswith("async"):
    import asyncio

    async def main():
        async with holyclient.AsyncClient(**kwargs) as client:
            answer = await client.chat.completions.create(model=model, messages=messages, stream=stream)
            if stream:
                async for _ in answer:
                    pass

    asyncio.run(main())
else:
    with holyclient.Client(**kwargs) as client:
        answer = client.chat.completions.create(model=model, messages=messages, stream=stream)
        if stream:
            for _ in answer:
                pass
names = [span.name for span in exporter.get_finished_spans()]
print(json.dumps({**during, "names": names}))
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "model", "budget"),
    [
        ("sync-stream", "claude-sonnet-4-5", "-"),  # counted with a stand-in tokenizer (it learns)
        ("async-stream", "claude-sonnet-4-5", "-"),
        ("sync", "gpt-4o-mini", "-"),  # nothing counted: the HTTP client and the price table only
        ("sync", "gpt-4.1", "5"),  # a budget: reserved with the exact tokenizer
        ("async", "gpt-4o", "5"),
    ],
)
def test_the_first_call_in_a_process_loads_nothing_inside_its_span(
    otel_server: LocalServer, mode: str, model: str, budget: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, otel_server.base_url, mode, model, budget],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOLYSHEEP_API_KEY": KEY},
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["spans"] == 1 and seen["names"] == [f"chat {model}"]
    assert seen["imports"] == []  # every module the call needs was imported before its span started
    assert seen["files"] == []  # and every file it reads (tokenizer ranks, price table) was read


def test_what_fails_while_loading_first_use_costs_is_reported_on_the_calls_span(
    otel_server: LocalServer, captured: Captured, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading before the span must not hide a failure from it: an HTTP client that cannot be made (a
    missing ``SSL_CERT_FILE``) fails the call inside its span, as it did when it was made there."""
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/holyclient-test-ca.pem")
    client = Client(
        api_key=KEY, base_url=otel_server.base_url, tracer_provider=captured.tracer_provider, max_retries=0
    )
    with pytest.raises(FileNotFoundError):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    span = captured.span()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None and span.attributes["error.type"] == "FileNotFoundError"
