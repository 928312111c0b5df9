"""Instrumentation is on by default through the application's global providers, off by argument or by
the OpenTelemetry environment variable, absent (and free) without the API; content and the newer
conventions only when asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry import metrics, trace

from holyclient import Client
from holyclient._core._request import RequestOptions
from holyclient.testing import LocalServer

from .conftest import KEY, Captured, resolve

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]


async def test_instrument_false_emits_nothing(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    client = make(mode, instrument=False)
    await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    assert captured.spans() == []
    assert captured.points("gen_ai.client.operation.duration") == []


@pytest.mark.parametrize("value", ["holyclient", "requests, holyclient", "*"])
async def test_the_disabled_instrumentations_variable_turns_it_off(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str, value: str
) -> None:
    monkeypatch.setenv("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", value)
    await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    assert captured.spans() == []


async def test_other_disabled_instrumentations_leave_it_on(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", "requests,urllib3")
    await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    assert len(captured.spans()) == 1


def test_the_applications_global_providers_are_used_without_a_set_up_call(
    server: LocalServer, captured: Captured, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what trace.set_tracer_provider / metrics.set_meter_provider leave behind, undone after the test
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", captured.tracer_provider)
    monkeypatch.setattr(metrics._internal, "_METER_PROVIDER", captured.meter_provider)
    with Client(base_url=server.base_url, api_key=KEY) as client:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    assert captured.span().name == "chat gpt-4.1"
    assert len(captured.points("gen_ai.client.operation.duration")) == 1


def test_a_tracer_provider_set_after_the_client_was_created_is_used(
    server: LocalServer, captured: Captured, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Client(base_url=server.base_url, api_key=KEY) as client:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)  # nothing configured yet
        monkeypatch.setattr(trace, "_TRACER_PROVIDER", captured.tracer_provider)
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    assert len(captured.spans()) == 1


def test_with_nothing_configured_a_call_opens_no_span(server: LocalServer) -> None:
    # the API's no-op providers: the call is not observed at all (what the benchmark's 5% rests on)
    with Client(base_url=server.base_url, api_key=KEY) as client:
        assert client._telemetry is not None
        assert client._start(RequestOptions("POST", "/chat/completions", body={"model": "m"})).call is None


async def test_no_content_is_recorded_by_default(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    answer = await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    span = captured.span()
    assert span.events == ()
    recorded = json.dumps(dict(span.attributes or {}))
    assert "Be brief." not in recorded and answer.choices[0].message.content not in recorded


async def test_latest_conventions_name_the_provider_and_record_content_as_attributes(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "http,gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    answer = await resolve(
        make(mode).chat.completions.create(
            model="gpt-4.1", messages=MESSAGES, response_format={"type": "json_object"}
        )
    )
    attributes = dict(captured.span().attributes or {})
    assert attributes["gen_ai.provider.name"] == "openai"
    assert "gen_ai.system" not in attributes
    assert attributes["gen_ai.output.type"] == "json"
    assert attributes["openai.api.type"] == "chat_completions"
    assert attributes["openai.response.system_fingerprint"] == answer.system_fingerprint
    assert not any(name.startswith("gen_ai.openai.") for name in attributes)
    assert json.loads(attributes["gen_ai.input.messages"]) == [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "content": "hi"}]},
    ]
    (output,) = json.loads(attributes["gen_ai.output.messages"])
    assert output["parts"] == [{"type": "text", "content": answer.choices[0].message.content}]
    assert output["finish_reason"] == "stop"
    (duration,) = captured.points("gen_ai.client.operation.duration")
    assert duration.attributes["gen_ai.provider.name"] == "openai"


async def test_default_conventions_record_captured_content_as_events(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    answer = await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    events = [(event.name, dict(event.attributes or {})) for event in captured.span().events]
    assert events == [
        ("gen_ai.system.message", {"gen_ai.system": "openai", "content": "Be brief."}),
        ("gen_ai.user.message", {"gen_ai.system": "openai", "content": "hi"}),
        ("gen_ai.choice", {"gen_ai.system": "openai", "content": answer.choices[0].message.content}),
    ]


async def test_captured_stream_content_is_the_text_streamed(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    from .conftest import drain

    text = "".join(chunk.choices[0].delta.content or "" for chunk in await drain(stream) if chunk.choices)
    (output,) = json.loads(captured.span().attributes["gen_ai.output.messages"])
    assert output["parts"] == [{"type": "text", "content": text}]


#: Runs a call with ``opentelemetry`` made unimportable, as on a machine without the API installed.
WITHOUT_API = """
import sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(name)
        return None

sys.meta_path.insert(0, Block())
from holyclient import Client
from holyclient._core._request import RequestOptions

client = Client(base_url=sys.argv[1], api_key="sk-test")
client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
print(client._telemetry is None, any(m.startswith("opentelemetry") for m in sys.modules))
"""


def test_without_the_api_installed_calls_work_and_nothing_is_imported(server: LocalServer) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_API, server.base_url], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


#: A call before the application uses the API, then one after it sets a tracer provider.
API_LATER = """
import sys
from holyclient import Client

client = Client(base_url=sys.argv[1], api_key="sk-test-api-later")
messages = [{"role": "user", "content": "hi"}]
client.chat.completions.create(model="gpt-4.1", messages=messages)
before = any(m.startswith("opentelemetry") for m in sys.modules)

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
client.chat.completions.create(model="gpt-4.1", messages=messages)
print(before, len(exporter.get_finished_spans()))
"""


def test_an_unused_api_is_not_imported_and_a_provider_set_later_is_used(server: LocalServer) -> None:
    """With the API installed but not used, a call imports nothing of it (no provider can have been set:
    nothing to record); the first call after the application sets a provider is traced."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", API_LATER, server.base_url],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "1"]


def test_a_provider_named_in_the_environment_makes_the_first_call_use_the_api(server: LocalServer) -> None:
    code = (
        WITHOUT_API.split("class Block", 1)[0] + WITHOUT_API.split("sys.meta_path.insert(0, Block())", 1)[1]
    )
    env = {**os.environ, "OTEL_PYTHON_TRACER_PROVIDER": "sdk_tracer_provider"}
    done = subprocess.run(
        [sys.executable, "-c", code, server.base_url], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]  # instruments made, the API (and its SDK provider) loaded


def test_importing_holyclient_does_not_import_opentelemetry() -> None:
    code = "import sys, holyclient; print(any(m.startswith('opentelemetry') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


async def test_content_capture_leaves_embedding_inputs_out(
    make: Callable[..., Any], captured: Captured, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    await resolve(make(mode).embeddings.create(model="text-embedding-3-small", input="private words"))
    span = captured.span()
    assert "private words" not in span.to_json()
