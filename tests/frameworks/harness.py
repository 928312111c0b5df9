"""Runs one framework's recipe (``recipes/<name>.py``) through ``as_openai()`` against a local server and
prints what happened as one JSON document; ``test_frameworks.py`` runs it in the framework's own venv
(``.ci/frameworks/<venv>``, made by ``.ci/install-frameworks``) and asserts on it.

Usage: python tests/frameworks/harness.py RECIPE

A recipe module defines ``wire(client, aclient)`` (the docs' recipe: holyclient's clients in, the
framework's object out), ``call(framework)`` and, where the framework has them, ``stream(framework)``
and ``structured(framework)``; each returns plain data (a coroutine function is run with ``asyncio.run``).
``structured_on(client, aclient, model)`` makes the framework's default structured-output call on
``model``: the harness runs it on each of :data:`MODELS` against the relay profile of the local server
(``LocalServer(profile="holysheep")``, where Claude ignores a JSON schema and DeepSeek refuses it).

Each scenario gets a fresh pair of clients and a reset server, and reports what the server saw, what
holyclient counted, and what the transport handed openai (a spy on the adapter: every request's body as
the framework sent it, every streamed event handed on).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import holyclient
from holyclient.openai_compat import _adapter
from holyclient.testing import Fault, LocalServer

KEY = "sk-frameworks-SECRET-4b9e1c"

#: The relay's models every framework's structured output is run on: one that takes a JSON schema, one
#: that ignores it, one that refuses it.
MODELS = ("gpt-4.1", "claude-sonnet-4.5", "deepseek-v3.2")

#: What the transport was asked and what it handed on, per stream: the framework's own body, the frames.
SEEN: list[dict[str, Any]] = []


def _spy() -> None:
    call, frame = _adapter.Adapter.call, _adapter.Adapter.frame

    def spy_call(self: Any, request: Any, path: str, content: bytes) -> Any:
        result = call(self, request, path, content)
        body = result.options.body or {}
        SEEN.append(
            {"path": path, "stream": result.options.stream, "asked": body.get("stream_options"), "frames": []}
        )
        return result

    def spy_frame(self: Any, event: Any, call_: Any) -> bytes:
        data = frame(self, event, call_)
        SEEN[-1]["frames"].append(json.loads(event.sse))
        return data

    _adapter.Adapter.call = spy_call  # type: ignore[method-assign]
    _adapter.Adapter.frame = spy_frame  # type: ignore[method-assign]


async def _no_sleep(seconds: float) -> None:
    return None


#: Settings of the clients' one shared usage tracker: given to the sync client, shared by the async one.
_BUDGET_SETTINGS = ("budget_usd", "budget_policy", "calibration")


def _clients(server: LocalServer, **options: Any) -> tuple[holyclient.Client, holyclient.AsyncClient]:
    """The docs' pair: a client, and an async client sharing its usage and budget (``usage=client.usage``)."""
    common = {"api_key": KEY, "base_url": server.base_url, "instrument": False, **options}
    client = holyclient.Client(sleep=lambda seconds: None, **common)
    shared = {k: v for k, v in common.items() if k not in _BUDGET_SETTINGS}
    return client, holyclient.AsyncClient(sleep=_no_sleep, usage=client.usage, **shared)


def _run(fn: Any, framework: Any) -> Any:
    result = fn(framework)
    return asyncio.run(result) if inspect.iscoroutine(result) else result


def _usage(client: holyclient.Client, aclient: holyclient.AsyncClient) -> dict[str, Any]:
    trackers = [client.usage] + ([aclient.usage] if aclient.usage is not client.usage else [])
    snapshots = [tracker.snapshot() for tracker in trackers]
    return {
        "requests": sum(m.requests for s in snapshots for m in s.models.values()),
        "approximate": sum(m.approximate_requests for s in snapshots for m in s.models.values()),
        "cost_usd": sum(s.total_cost_usd for s in snapshots),
        "unpriced": sorted({name for s in snapshots for name in s.unpriced_models}),
    }


def scenario(
    server: LocalServer, recipe: Any, name: str, *, faults: tuple[Fault, ...] = (), **options: Any
) -> dict[str, Any]:
    """Run ``recipe.<name>`` (``call`` for the fault and budget scenarios) with fresh clients."""
    server.reset()
    SEEN.clear()
    client, aclient = _clients(server, **options)
    server.enqueue(*faults)
    report: dict[str, Any] = {}
    try:
        framework = recipe.wire(client, aclient)
        report["result"] = _run(getattr(recipe, name if hasattr(recipe, name) else "call"), framework)
    except Exception as exc:  # the scenario reports it; the test decides whether it was expected
        report["error"] = {"type": f"{type(exc).__module__}.{type(exc).__qualname__}", "message": str(exc)}
        report["error"]["chain"] = [f"{type(e).__module__}.{type(e).__qualname__}" for e in _chain(exc)]
        report["error"]["traceback"] = traceback.format_exc()[-3000:]
    statuses = [r.status for r in server.requests]
    report["server"] = {
        "requests": len(statuses),
        "ok": statuses.count(200),
        "paths": [r.path for r in server.requests],
        "retry_counts": [r.headers.get("x-stainless-retry-count") for r in server.requests],
    }
    report["usage"] = _usage(client, aclient)
    report["seen"] = list(SEEN)
    return report


def on_model(server: LocalServer, recipe: Any, model: str) -> dict[str, Any]:
    """Run ``recipe.structured_on`` for ``model`` with fresh clients: what it returned, every request's
    status, and what holyclient counted."""
    server.reset()
    SEEN.clear()
    client, aclient = _clients(server)
    report: dict[str, Any] = {}
    try:
        report["result"] = _run(lambda _: recipe.structured_on(client, aclient, model), None)
    except Exception as exc:
        report["error"] = {"type": f"{type(exc).__module__}.{type(exc).__qualname__}", "message": str(exc)}
        report["error"]["traceback"] = traceback.format_exc()[-3000:]
    report["server"] = {
        "requests": len(server.requests),
        "statuses": [r.status for r in server.requests],
        "ok": [r.status for r in server.requests].count(200),
    }
    report["usage"] = _usage(client, aclient)
    return report


def traced(server: LocalServer, recipe: Any) -> dict[str, Any]:
    """Run ``recipe.traced`` with OpenTelemetry on (an in-memory SDK provider, set as the global one, as an
    application does): which span is each holyclient span's parent?"""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    server.reset()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    client, aclient = _clients(server, instrument=True, tracer_provider=provider)
    _run(recipe.traced, recipe.wire(client, aclient))
    spans = exporter.get_finished_spans()
    names = {span.context.span_id: span.name for span in spans}
    scopes = {span.context.span_id: _scope(span) for span in spans}
    return {
        "spans": [
            {
                "name": span.name,
                "scope": _scope(span),
                "parent": names.get(span.parent.span_id) if span.parent else None,
                "parent_scope": scopes.get(span.parent.span_id) if span.parent else None,
            }
            for span in spans
        ]
    }


def _scope(span: Any) -> str | None:
    return span.instrumentation_scope.name if span.instrumentation_scope else None


def _chain(exc: BaseException) -> list[BaseException]:
    found = []
    while exc is not None and exc not in found:
        found.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return found


def main(name: str) -> int:
    # the report is the only thing on stdout: what a framework prints (CrewAI's panels) goes to stderr
    report_out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.path.insert(0, str(Path(__file__).parent / "recipes"))
    recipe = importlib.import_module(name)
    _spy()
    report: dict[str, Any] = {"versions": {"holyclient": holyclient.__file__, **recipe.versions()}}
    with LocalServer(api_key=KEY) as server:  # the server accepts holyclient's key, and only it
        report["call"] = scenario(server, recipe, "call")
        report["stream"] = scenario(server, recipe, "stream") if hasattr(recipe, "stream") else None
        if hasattr(recipe, "structured"):
            report["structured"] = scenario(server, recipe, "structured")
        report["rate_limited"] = scenario(server, recipe, "call", faults=(Fault.status(429, retry_after=0),))
        report["budget_spent"] = scenario(server, recipe, "call", budget_usd=0.0)
        if hasattr(recipe, "trace_export_key"):
            _, aclient = _clients(server)
            exported = recipe.trace_export_key(aclient)
            report["trace_export"] = {"is_holyclient_key": KEY in exported, "key": exported}
        if hasattr(recipe, "traced"):
            report["traced"] = traced(server, recipe)
    if hasattr(recipe, "structured_on"):
        with LocalServer(api_key=KEY, profile="holysheep") as relay:
            report["structured_on"] = {model: on_model(relay, recipe, model) for model in MODELS}
    json.dump(report, report_out)
    report_out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
