"""Bad input for ``holyclient batch`` on the embeddings, completions, responses and moderations
endpoints, and for ``--pack``: one line naming FILE:LINE and the field, exit 2, nothing sent or written.
Add a case by adding a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bad_input.table import Row, check_row
from holyclient.testing import LocalServer

KEY_ENV = {"HOLYSHEEP_API_KEY": "sk-holy-bad-endpoint-rows"}
RUN = ("batch", "in.jsonl", "-o", "out.jsonl")

BODIES: dict[str, dict[str, Any]] = {
    "/v1/embeddings": {"model": "text-embedding-3-small", "input": "hello"},
    "/v1/completions": {"model": "gpt-3.5-turbo-instruct", "prompt": "hello", "max_tokens": 5},
    "/v1/responses": {"model": "gpt-4o-mini", "input": "hello"},
    "/v1/moderations": {"model": "omni-moderation-latest", "input": "hello"},
}


def _lines(url: str, *changes: dict[str, Any], drop: str | None = None) -> str:
    """A good line, then one line for ``url`` with ``changes`` applied (and ``drop`` removed)."""
    body = {**BODIES[url]}
    for change in changes:
        body.update(change)
    if drop is not None:
        body.pop(drop)
    good = {"custom_id": "good", "url": "/v1/embeddings", "body": BODIES["/v1/embeddings"]}
    return json.dumps(good) + "\n" + json.dumps({"custom_id": "bad", "url": url, "body": body}) + "\n"


def row(id: str, content: str, stderr: str, argv: tuple[str, ...] = RUN) -> Row:
    return Row(id, argv, stderr, files={"in.jsonl": content}, env=KEY_ENV)


E, C, R, M = "/v1/embeddings", "/v1/completions", "/v1/responses", "/v1/moderations"
AT = r"in\.jsonl:2: field 'body\."

ROWS = [
    # embeddings
    row("embeddings-no-input", _lines(E, drop="input"), AT + r"input' is missing"),
    row("embeddings-empty-input", _lines(E, {"input": ""}), AT + r"input' must not be empty"),
    row("embeddings-empty-list", _lines(E, {"input": []}), AT + r"input' must not be an empty list"),
    row("embeddings-input-object", _lines(E, {"input": {"a": 1}}), AT + r"input' must be a string or a list"),
    row(
        "embeddings-mixed-list",
        _lines(E, {"input": ["a", 1]}),
        AT + r"input\[1\]' must be a string or a token list, got a number",
    ),
    row(
        "embeddings-2049-inputs",
        _lines(E, {"input": ["a"] * 2049}),
        AT + r"input' holds 2049 items, above 2048",
    ),
    row(
        "embeddings-encoding-format",
        _lines(E, {"encoding_format": "hex"}),
        AT + r"encoding_format' must be \"float\" or \"base64\"",
    ),
    row(
        "embeddings-zero-dimensions",
        _lines(E, {"dimensions": 0}),
        AT + r"dimensions' must be a positive integer",
    ),
    row(
        "embeddings-nan-dimensions",
        _lines(E, {"dimensions": 1}).replace('"dimensions": 1', '"dimensions": NaN'),
        AT + r"dimensions' must be a finite number",
    ),
    row("embeddings-stream", _lines(E, {"stream": True}), AT + r"stream' is not supported in a batch"),
    row(
        "embeddings-chat-model",
        _lines(E, {"model": "gpt-4o-mini"}),
        AT + r"model': 'gpt-4o-mini' is not an embedding model",
    ),
    row("embeddings-unknown-model", _lines(E, {"model": "text-embedding-9"}), AT + r"model': unknown model"),
    row(
        "embeddings-input-over-the-per-input-limit",
        _lines(E, {"input": ["short", "word " * 9000]}),
        AT + r"input\[1\]' is \d+ tokens, over text-embedding-3-small's limit of 8191 tokens per input",
    ),
    # completions
    row("completions-no-prompt", _lines(C, drop="prompt"), AT + r"prompt' is missing"),
    row(
        "completions-prompt-object",
        _lines(C, {"prompt": {"text": "x"}}),
        AT + r"prompt' must be a string or a list",
    ),
    row(
        "completions-negative-max-tokens",
        _lines(C, {"max_tokens": -1}),
        AT + r"max_tokens' must be an integer >= 0",
    ),
    row(
        "completions-temperature", _lines(C, {"temperature": 3}), AT + r"temperature' must be between 0 and 2"
    ),
    row("completions-logprobs", _lines(C, {"logprobs": 6}), AT + r"logprobs' must be an integer from 0 to 5"),
    row("completions-best-of-zero", _lines(C, {"best_of": 0}), AT + r"best_of' must be a positive integer"),
    row(
        "completions-embedding-model",
        _lines(C, {"model": "text-embedding-3-small"}),
        AT + r"model': 'text-embedding-3-small' is not a text generation model",
    ),
    row(
        "completions-over-the-context-window",
        _lines(C, {"max_tokens": 4000, "prompt": "word " * 500}),
        AT + r"prompt': the prompt is \d+ tokens \+ 4000 max_tokens, over gpt-3\.5-turbo-instruct's context",
    ),
    # responses
    row("responses-no-input", _lines(R, drop="input"), AT + r"input' is missing"),
    row("responses-empty-list", _lines(R, {"input": []}), AT + r"input' must not be an empty list"),
    row("responses-item-not-object", _lines(R, {"input": ["hi"]}), AT + r"input\[0\]' must be an object"),
    row(
        "responses-instructions-number",
        _lines(R, {"instructions": 5}),
        AT + r"instructions' must be a string",
    ),
    row(
        "responses-zero-max-output-tokens",
        _lines(R, {"max_output_tokens": 0}),
        AT + r"max_output_tokens' must be a positive integer",
    ),
    row(
        "responses-above-max-output",
        _lines(R, {"max_output_tokens": 10**6}),
        AT + r"max_output_tokens' is 1000000, above gpt-4o-mini's maximum output",
    ),
    row(
        "responses-background",
        _lines(R, {"background": True}),
        AT + r"background' is not supported in a batch",
    ),
    row("responses-top-p", _lines(R, {"top_p": 2}), AT + r"top_p' must be between 0 and 1"),
    row("responses-model-number", _lines(R, {"model": 4}), AT + r"model' must be a string, got a number"),
    # moderations
    row("moderations-no-input", _lines(M, drop="input"), AT + r"input' is missing"),
    row("moderations-input-number", _lines(M, {"input": 5}), AT + r"input' must be a string or a list"),
    row(
        "moderations-audio-part",
        _lines(M, {"input": [{"type": "audio", "audio": "x"}]}),
        AT + r"input\[0\]\.type' must be \"text\" or \"image_url\"",
    ),
    row(
        "moderations-chat-model",
        _lines(M, {"model": "gpt-4o"}),
        AT + r"model': 'gpt-4o' is not a moderation model",
    ),
    # --pack
    row(
        "pack-inputs-above-2048",
        _lines(E),
        r"usage: holyclient batch",
        argv=(*RUN, "--pack", "--pack-inputs", "4096"),
    ),
    row(
        "pack-inputs-zero", _lines(E), r"usage: holyclient batch", argv=(*RUN, "--pack", "--pack-inputs", "0")
    ),
    row(
        "pack-tokens-zero", _lines(E), r"usage: holyclient batch", argv=(*RUN, "--pack", "--pack-tokens", "0")
    ),
    row(
        "pack-inputs-without-pack",
        _lines(E),
        r"holyclient batch: --pack-inputs and --pack-tokens need --pack",
        argv=(*RUN, "--pack-inputs", "8"),
    ),
]


@pytest.mark.parametrize("case", ROWS, ids=str)
def test_batch_endpoints_bad_input(
    case: Row, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any, relay: LocalServer
) -> None:
    check_row(case, tmp_path, capsys, monkeypatch, relay=relay)
