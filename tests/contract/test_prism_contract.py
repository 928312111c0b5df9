"""Contract tests: real holyclient requests checked by Stoplight Prism against the official OpenAI spec.

Prism serves ``openapi.prism.json.gz`` (the official spec, see ``SOURCE.txt``) on 127.0.0.1 and validates
every request body, parameter and the bearer auth against the official schemas: a valid request gets a
2xx with an example body, an invalid one a 422. So each test below proves that what holyclient puts on
the wire for a given set of parameters is a request the real API accepts, and that the answer parses
into our models. Prism cannot stream SSE; streaming itself is covered against the local server.

Prism is installed by ``.ci/install-prism`` and started once per session. Without it these tests fail
with instructions; ``HOLYCLIENT_SKIP_CONTRACT=1`` skips them.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

import holyclient
from holyclient import (
    AuthenticationError,
    InternalServerError,
    RateLimitError,
    UnprocessableEntityError,
)

pytestmark = pytest.mark.contract

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SPEC_GZ = HERE / "openapi.prism.json.gz"
SPEC_SHA256 = "193a326b8cfb05a0022f65772ea58e27d20994b8234248f096ddf88118878615"
PRISM_BIN = REPO / ".ci" / "prism" / "node_modules" / ".bin" / "prism"
#: The operations these tests exercise; Prism parses the 2 MB spec in ~20 s, these alone in ~2 s.
OPERATIONS = (
    "/v1/chat/completions",
    "/v1/embeddings",
    "/v1/models",
    "/v1/models/{model}",
    # the other endpoints (test_prism_endpoints.py)
    "/v1/responses",
    "/v1/responses/{response_id}",
    "/v1/responses/{response_id}/cancel",
    "/v1/responses/{response_id}/input_items",
    "/v1/completions",
    "/v1/moderations",
    "/v1/images/generations",
    "/v1/images/edits",
    "/v1/images/variations",
    "/v1/audio/speech",
    "/v1/audio/transcriptions",
    "/v1/audio/translations",
    "/v1/files",
    "/v1/files/{file_id}",
    "/v1/files/{file_id}/content",
    "/v1/batches",
    "/v1/batches/{batch_id}",
    "/v1/batches/{batch_id}/cancel",
)
STARTUP_TIMEOUT = 120.0
KEY = "sk-contract-0123456789abcdef"
MODEL = "gpt-4o-mini"


# --- Prism, once per session -------------------------------------------------------------------


def served_spec(spec: dict[str, Any], operations: tuple[str, ...]) -> dict[str, Any]:
    """The spec reduced to ``operations`` and every component they reference (transitively), unchanged.

    Validation of the kept operations is identical: their schemas are the same objects. Only unrelated
    paths, webhooks and documentation metadata go, which is what makes Prism start ten times faster.
    """
    components = spec["components"]
    needed: dict[str, dict[str, Any]] = {"securitySchemes": components["securitySchemes"]}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                prefix, _, rest = ref.partition("#/components/")
                kind, _, name = rest.partition("/")
                if prefix or not name or name not in components.get(kind, {}):
                    raise ValueError(f"unresolvable $ref {ref!r} in the contract spec")
                if name not in needed.setdefault(kind, {}):
                    needed[kind][name] = components[kind][name]
                    walk(components[kind][name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    paths = {path: spec["paths"][path] for path in operations}
    walk(paths)
    kept = {
        key: value
        for key, value in spec.items()
        if key not in ("paths", "webhooks", "components", "x-oaiMeta")
    }
    return {**kept, "paths": paths, "components": needed}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _log_tail(path: Path, lines: int = 30) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def _wait_until_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Poll until Prism answers anything (an unauthenticated GET gets its 401), or fail with its log."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"Prism exited with code {process.returncode} during start-up:\n{_log_tail(log)}")
        try:
            httpx2.get(url, timeout=1.0)
        except httpx2.TransportError:
            time.sleep(0.1)
        else:
            return
    pytest.fail(f"Prism did not answer on {url} within {STARTUP_TIMEOUT:.0f} s:\n{_log_tail(log)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)  # its own session: node and anything it spawned
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def prism_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start Prism on a free loopback port with the official spec; yield the ``/v1`` base URL."""
    if os.environ.get("HOLYCLIENT_SKIP_CONTRACT") == "1":
        pytest.skip("HOLYCLIENT_SKIP_CONTRACT=1")
    binary = Path(os.environ.get("HOLYCLIENT_PRISM_BIN") or PRISM_BIN)
    if not binary.exists():
        pytest.fail(
            f"Stoplight Prism is not installed ({binary} is missing). Run .ci/install-prism "
            "(needs Node.js >= 18 and npm) to install it, or set HOLYCLIENT_SKIP_CONTRACT=1 to skip "
            "the contract tests.",
            pytrace=False,
        )
    raw = gzip.decompress(SPEC_GZ.read_bytes())
    assert hashlib.sha256(raw).hexdigest() == SPEC_SHA256, f"{SPEC_GZ.name} differs from SOURCE.txt"
    spec = json.loads(raw)
    if os.environ.get("HOLYCLIENT_CONTRACT_FULL_SPEC") != "1":
        spec = served_spec(spec, OPERATIONS)
    workdir = tmp_path_factory.mktemp("prism")
    spec_path = workdir / "openapi.json"
    spec_path.write_text(json.dumps(spec))
    log = workdir / "prism.log"
    port = _free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(binary), "mock", "-h", "127.0.0.1", "-p", str(port), str(spec_path)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        _wait_until_ready(process, base_url + "/models", log)
        yield base_url
    finally:
        _stop(process)


@pytest.fixture
def client(prism_base_url: str) -> Iterator[holyclient.Client]:
    # No retries: a 4xx/5xx here must surface at once, not after backoff.
    with holyclient.Client(api_key=KEY, base_url=prism_base_url, max_retries=0) as client:
        yield client


# --- chat completions ---------------------------------------------------------------------------

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}

EVERY_ROLE = [
    {"role": "developer", "content": "Answer briefly."},
    {"role": "system", "content": "You are a weather bot.", "name": "ops"},
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "What is on this picture, and the weather in Paris?",
            },
            {
                "type": "image_url",
                "image_url": {"url": "https://example.com/cat.png", "detail": "low"},
            },
        ],
        "name": "alice",
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "arguments": '{"city": "Paris", "unit": "c"}',
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 21}'},
    {"role": "assistant", "content": [{"type": "text", "text": "21 C in Paris."}]},
    {"role": "user", "content": "Thanks!"},
]

USER = [{"role": "user", "content": "Say hi."}]

CHAT_CASES: dict[str, dict[str, Any]] = {
    "every-message-role": {"messages": EVERY_ROLE, "tools": [WEATHER_TOOL]},
    "tools-and-named-tool-choice": {
        "messages": USER,
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
    },
    "tool-choice-required": {
        "messages": USER,
        "tools": [WEATHER_TOOL],
        "tool_choice": "required",
    },
    "tool-choice-auto": {
        "messages": USER,
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
    },
    "response-format-json-schema": {
        "messages": USER,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "greeting",
                "description": "A greeting.",
                "schema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                    "additionalProperties": False,
                },
                "strict": True,
            },
        },
    },
    "response-format-json-object": {
        "messages": USER,
        "response_format": {"type": "json_object"},
    },
    "response-format-text": {"messages": USER, "response_format": {"type": "text"}},
    "sampling-parameters": {
        "messages": USER,
        "seed": 42,
        "temperature": 0.2,
        "top_p": 0.9,
        "n": 2,
        "stop": ["\n\n", "END"],
        "user": "user-1234",
        "max_completion_tokens": 64,
        "presence_penalty": 0.5,
        "frequency_penalty": -0.5,
        "logit_bias": {"50256": -100},
    },
    "stop-as-string-and-legacy-max-tokens": {
        "messages": USER,
        "stop": "END",
        "max_tokens": 32,
    },
    "logprobs": {"messages": USER, "logprobs": True, "top_logprobs": 5},
    "metadata-store-and-service-tier": {
        "messages": USER,
        "store": True,
        "metadata": {"team": "search"},
        "service_tier": "auto",
    },
    "reasoning-effort": {
        "messages": USER,
        "model": "o4-mini",
        "reasoning_effort": "low",
    },
}


@pytest.mark.parametrize("params", CHAT_CASES.values(), ids=CHAT_CASES.keys())
def test_prism_accepts_chat_completion_request(client: holyclient.Client, params: dict[str, Any]) -> None:
    params = {"model": MODEL, **params}
    completion = client.chat.completions.create(**params)

    assert isinstance(completion, holyclient.ChatCompletion)
    assert completion.object == "chat.completion"
    assert completion.choices and completion.choices[0].message.role == "assistant"
    assert completion.usage is not None


async def test_prism_accepts_async_chat_and_embeddings(prism_base_url: str) -> None:
    async with holyclient.AsyncClient(api_key=KEY, base_url=prism_base_url, max_retries=0) as client:
        completion = await client.chat.completions.create(
            model=MODEL, messages=USER, tools=[WEATHER_TOOL], tool_choice="auto", seed=1
        )
        embeddings = await client.embeddings.create(model="text-embedding-3-small", input="hello")

    assert isinstance(completion, holyclient.ChatCompletion)
    assert isinstance(embeddings, holyclient.CreateEmbeddingResponse)


def test_prism_accepts_streaming_request_body(client: holyclient.Client) -> None:
    """``stream`` + ``stream_options`` pass validation; Prism then fails only to *serialise* SSE.

    Prism validates before it negotiates a response, so a 500 ``NO_COMPLEX_OBJECT_TEXT`` (its "cannot
    write an event stream" error) means the body was accepted, where an invalid one gets a 422.
    """
    with pytest.raises(InternalServerError) as info:
        client.chat.completions.create(
            model=MODEL,
            messages=USER,
            stream=True,
            stream_options={"include_usage": True},
        )

    assert info.value.status_code == 500
    assert isinstance(info.value.body, dict)
    assert info.value.body["type"].endswith("#NO_COMPLEX_OBJECT_TEXT")


def test_prism_accepts_requests_through_user_supplied_httpx_clients(
    prism_base_url: str,
) -> None:
    """A plain ``httpx.Client`` (httpx 0.28) works as ``http_client``, not only an ``httpx2`` one."""
    import httpx

    with (
        httpx.Client() as http,
        holyclient.Client(api_key=KEY, base_url=prism_base_url, http_client=http, max_retries=0) as client,
    ):
        completion = client.chat.completions.create(model=MODEL, messages=USER, seed=1)
        models = client.models.list(timeout=5)

    assert isinstance(completion, holyclient.ChatCompletion)
    assert isinstance(models, holyclient.ModelList)


async def test_prism_accepts_requests_through_user_supplied_async_httpx_client(
    prism_base_url: str,
) -> None:
    import httpx

    async with (
        httpx.AsyncClient() as http,
        holyclient.AsyncClient(
            api_key=KEY, base_url=prism_base_url, http_client=http, max_retries=0
        ) as client,
    ):
        embeddings = await client.embeddings.create(model="text-embedding-3-small", input=["a", "b"])

    assert isinstance(embeddings, holyclient.CreateEmbeddingResponse)


# --- embeddings and models ----------------------------------------------------------------------

EMBEDDING_CASES: dict[str, dict[str, Any]] = {
    "string": {"input": "The food was delicious."},
    "list-of-strings": {"input": ["first", "second", "third"]},
    "token-ids": {"input": [1212, 318, 257, 1332]},
    "list-of-token-id-lists": {"input": [[1212, 318], [257, 1332]]},
    "dimensions-and-float": {
        "input": "hello",
        "dimensions": 256,
        "encoding_format": "float",
        "user": "u-1",
    },
    "base64": {"input": "hello", "encoding_format": "base64"},
}


@pytest.mark.parametrize("params", EMBEDDING_CASES.values(), ids=EMBEDDING_CASES.keys())
def test_prism_accepts_embeddings_request(client: holyclient.Client, params: dict[str, Any]) -> None:
    response = client.embeddings.create(model="text-embedding-3-small", **params)

    assert isinstance(response, holyclient.CreateEmbeddingResponse)
    assert response.data and isinstance(response.data[0], holyclient.Embedding)
    assert response.usage is not None


def test_prism_accepts_models_list_and_retrieve(client: holyclient.Client) -> None:
    models = client.models.list()
    model = client.models.retrieve(MODEL)

    assert isinstance(models, holyclient.ModelList)
    assert len(models) >= 1 and all(isinstance(m, holyclient.Model) for m in models)
    assert isinstance(model, holyclient.Model)
    assert model.object == "model"


# --- the check can fail -------------------------------------------------------------------------

INVALID_BODIES: dict[str, dict[str, Any]] = {
    "unknown-role": {"messages": [{"role": "bogus", "content": "hi"}]},
    "tool-message-without-tool-call-id": {"messages": [{"role": "tool", "content": "21"}]},
    "json-schema-without-name": {"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}},
    "temperature-out-of-range": {"temperature": 7},
    "n-as-string": {"n": "two"},
}


@pytest.mark.parametrize("extra_body", INVALID_BODIES.values(), ids=INVALID_BODIES.keys())
def test_prism_rejects_invalid_chat_body_with_422(
    client: holyclient.Client, extra_body: dict[str, Any]
) -> None:
    with pytest.raises(UnprocessableEntityError) as info:
        client.chat.completions.create(model=MODEL, messages=USER, extra_body=extra_body)

    assert info.value.status_code == 422
    assert info.value.attempts == 1  # 422 is never retried
    assert isinstance(info.value.body, dict) and info.value.body["validation"]


def test_prism_rejects_invalid_embeddings_body_with_422(
    client: holyclient.Client,
) -> None:
    with pytest.raises(UnprocessableEntityError):
        client.embeddings.create(model="text-embedding-3-small", input="hi", encoding_format="hex")


def _drop_authorization(request: httpx2.Request) -> None:
    del request.headers["Authorization"]


@pytest.mark.parametrize(
    ("headers", "hooks"),
    [({}, [_drop_authorization]), ({"Authorization": "Basic dXNlcjpwYXNz"}, [])],
    ids=["missing", "not-bearer"],
)
def test_prism_rejects_request_without_bearer_key_with_401(
    prism_base_url: str, headers: dict[str, str], hooks: list[Any]
) -> None:
    with (
        httpx2.Client(event_hooks={"request": hooks}) as http,
        holyclient.Client(api_key=KEY, base_url=prism_base_url, http_client=http, max_retries=2) as client,
        pytest.raises(AuthenticationError) as info,
    ):
        client.models.list(extra_headers=headers)

    assert info.value.status_code == 401
    assert info.value.attempts == 1  # 401 is never retried
    assert KEY not in str(info.value) and KEY not in repr(info.value.request.headers)


# --- rate limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(("max_retries", "expected_sleeps"), [(0, []), (2, [1.0, 1.0])])
def test_prism_429_raises_rate_limit_error_after_honouring_retry_after(
    prism_base_url: str, max_retries: int, expected_sleeps: list[float]
) -> None:
    sleeps: list[float] = []
    with (
        holyclient.Client(api_key=KEY, base_url=prism_base_url, sleep=sleeps.append) as client,
        pytest.raises(RateLimitError) as info,
    ):
        client.chat.completions.create(
            model=MODEL,
            messages=USER,
            extra_headers={"Prefer": "code=429"},
            max_retries=max_retries,
        )

    assert info.value.status_code == 429
    assert info.value.retry_after == 1.0  # Prism's Retry-After: 1
    assert info.value.attempts == max_retries + 1
    assert sleeps == expected_sleeps
