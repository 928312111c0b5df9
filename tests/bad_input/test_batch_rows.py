"""Bad input for ``holyclient batch``: one clear line naming FILE:LINE and the field, exit 2, nothing sent
and nothing written (not even an empty OUTPUT). Add a case by adding a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bad_input.table import Row, check_row
from holyclient.testing import LocalServer

KEY_ENV = {"HOLYSHEEP_API_KEY": "sk-holy-bad-input-rows"}
RUN = ("batch", "in.jsonl", "-o", "out.jsonl")


def _chat(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    body.update(fields)
    return body


def _jsonl(*objects: Any) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects)


def _line(custom_id: Any, body: Any = None, **fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions"}
    line["body"] = _chat() if body is None else body
    line.update(fields)
    return line


def row(id: str, content: str | bytes, stderr: str, argv: tuple[str, ...] = RUN, **extra: Any) -> Row:
    files = {"in.jsonl": content, **extra.pop("files", {})}
    return Row(id, argv, stderr, files=files, env={**KEY_ENV, **extra.pop("env", {})}, **extra)


ROWS = [
    # numbers: finite, integral, in range
    row(
        "nan-temperature",
        '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "temperature": NaN}\n',
        r"in\.jsonl:1: field 'temperature' must be a finite number",
    ),
    row(
        "n-1e309",
        _jsonl('{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "n": 1e309}'),
        r"in\.jsonl:1: field 'n' must be a finite number",
    ),
    row(
        "infinity-deep-in-a-batch-line",
        _jsonl(
            _line("a"),
            '{"custom_id": "b", "body": {"model": "gpt-4o-mini", "messages": '
            '[{"role": "user", "content": "hi", "x": -Infinity}]}}',
        ),
        r"in\.jsonl:2: field 'body\.messages\[0\]\.x' must be a finite number",
    ),
    row(
        "negative-max-tokens",
        _jsonl(_chat(max_tokens=-5)),
        r"in\.jsonl:1: field 'max_tokens' must be a positive integer, got -5",
    ),
    row(
        "zero-max-completion-tokens",
        _jsonl(_line("a", _chat(max_completion_tokens=0))),
        r"in\.jsonl:1: field 'body\.max_completion_tokens' must be a positive integer, got 0",
    ),
    row(
        "max-tokens-as-text",
        _jsonl(_chat(max_tokens="10")),
        r"in\.jsonl:1: field 'max_tokens' must be a positive integer, got '10'",
    ),
    row(
        "n-as-boolean", _jsonl(_chat(n=True)), r"in\.jsonl:1: field 'n' must be a positive integer, got True"
    ),
    row("n-fractional", _jsonl(_chat(n=1.5)), r"in\.jsonl:1: field 'n' must be a positive integer, got 1\.5"),
    row(
        "temperature-out-of-range",
        _jsonl(_chat(temperature=3)),
        r"in\.jsonl:1: field 'temperature' must be between 0 and 2, got 3",
    ),
    row(
        "top-p-as-text",
        _jsonl(_chat(top_p="high")),
        r"in\.jsonl:1: field 'top_p' must be a number, got a string",
    ),
    row(
        "n-huge",
        _jsonl(_chat(n=10**30)),
        r"in\.jsonl:1: field 'n' must be at most 128, got 1000000000000000000000000000000",
    ),
    row(
        "nested-too-deeply",
        _jsonl('{"model": "gpt-4o-mini", "messages": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        r"in\.jsonl:1: not valid JSON \(nested too deeply\)",
    ),
    row(
        "model-a-number", _jsonl(_chat(model=4)), r"in\.jsonl:1: field 'model' must be a string, got a number"
    ),
    # models and what they can take
    row(
        "unknown-model",
        _jsonl(_chat(), _chat(model="gpt-9000")),
        r"in\.jsonl:2: field 'model': unknown model 'gpt-9000' .*--allow-unknown-models",
    ),
    row(
        "unknown-default-model",
        _jsonl({"messages": [{"role": "user", "content": "hi"}]}),
        r"in\.jsonl:1: field 'model': unknown model 'gpt-9000'",
        argv=(*RUN, "--model", "gpt-9000"),
    ),
    row(
        "unknown-model-in-a-dry-run-too",
        _jsonl(_line("a", _chat(model="gpt-9000"))),
        r"in\.jsonl:1: field 'body\.model': unknown model 'gpt-9000'",
        argv=("batch", "in.jsonl", "--dry-run"),
    ),
    row(
        "unknown-model-allowed-is-a-warning",
        _jsonl(_chat(model="gpt-9000")),
        r"holyclient batch: warning: model 'gpt-9000' is not in the price table \(1 requests\)",
        argv=("batch", "in.jsonl", "--dry-run", "--allow-unknown-models"),
        exit=0,
    ),
    row(
        "prompt-over-the-context-window",
        _jsonl(
            _line(
                "a",
                _chat(
                    model="gpt-4",
                    messages=[{"role": "user", "content": "lorem ipsum dolor sit amet " * 2000}],
                ),
            )
        ),
        r"in\.jsonl:1: field 'body\.messages': the prompt is \d+ tokens, over gpt-4's context window of 8192",
    ),
    row(
        "prompt-plus-max-tokens-over-the-window",
        _jsonl(
            _chat(
                model="gpt-4", max_tokens=8000, messages=[{"role": "user", "content": "lorem ipsum " * 200}]
            )
        ),
        r"in\.jsonl:1: field 'messages': the prompt is \d+ tokens \+ 8000 max_tokens, over gpt-4's context",
    ),
    row(
        "max-tokens-above-the-models-output",
        _jsonl(_chat(max_tokens=100_000)),
        r"in\.jsonl:1: field 'max_tokens' is 100000, above gpt-4o-mini's maximum output of 16384 tokens",
    ),
    row(
        "no-model-anywhere",
        _jsonl({"messages": [{"role": "user", "content": "hi"}]}),
        r"in\.jsonl:1: field 'model' is missing \(give it in each line or with --model\)",
    ),
    # shapes
    row(
        "no-messages",
        _jsonl({"model": "gpt-4o-mini", "prompt": "hi"}),
        r"in\.jsonl:1: field 'messages' must be a non-empty list",
    ),
    row(
        "empty-messages",
        _jsonl(_line("a", _chat(messages=[]))),
        r"in\.jsonl:1: field 'body\.messages' must be a non-empty list",
    ),
    row(
        "content-is-a-number",
        _jsonl(_chat(messages=[{"role": "user", "content": 123}])),
        r"in\.jsonl:1: field 'messages\[0\]\.content' must be a string, a list of parts or null, got a number",
    ),
    row(
        "content-part-is-a-string",
        _jsonl(_chat(messages=[{"role": "user", "content": ["hi"]}])),
        r"in\.jsonl:1: field 'messages\[0\]\.content\[0\]' must be an object, got a string",
    ),
    row(
        "message-without-role",
        _jsonl(_chat(messages=[{"content": "hi"}])),
        r"in\.jsonl:1: field 'messages\[0\]\.role' is missing or not a string",
    ),
    row(
        "message-is-a-string",
        _jsonl(_chat(messages=["hi"])),
        r"in\.jsonl:1: field 'messages\[0\]' must be an object, got a string",
    ),
    row(
        "stream-true", _jsonl(_chat(stream=True)), r"in\.jsonl:1: field 'stream' is not supported in a batch"
    ),
    row("custom-id-a-number", _jsonl(_line(7)), r"in\.jsonl:1: field 'custom_id' must be a non-empty string"),
    row("method-get", _jsonl(_line("a", method="GET")), r"in\.jsonl:1: field 'method' must be \"POST\""),
    row(
        "unknown-url",
        _jsonl(_line("a", url="/v1/embedding")),
        r"in\.jsonl:1: field 'url': unsupported url '/v1/embedding' \(supported: /v1/chat/completions, "
        r"/v1/embeddings, /v1/completions, /v1/responses, /v1/moderations\)",
    ),
    row(
        "body-missing",
        _jsonl({"custom_id": "a", "method": "POST", "url": "/v1/chat/completions"}),
        r"in\.jsonl:1: field 'body' is missing",
    ),
    row("body-a-list", _jsonl(_line("a", [1])), r"in\.jsonl:1: field 'body' must be a JSON object"),
    row(
        "duplicate-custom-id",
        _jsonl(_line("a"), _line("b"), _line("a")),
        r"in\.jsonl:3: duplicate custom_id 'a' \(first on line 1\)",
    ),
    row("bad-json", _jsonl(_line("a"), '{"custom_id": "b", '), r"in\.jsonl:2: not valid JSON"),
    row(
        "json-array-line-after-a-request",
        _jsonl(_line("a"), [_line("b")]),
        r"in\.jsonl:2: expected a JSON object, got a list",
    ),
    row(
        "not-utf8",
        b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "caf\xe9"}]}\n',
        r"in\.jsonl:1: not UTF-8 text",
    ),
    row(
        "bom-is-accepted", "\ufeff" + _jsonl(_line("a")), "", argv=("batch", "in.jsonl", "--dry-run"), exit=0
    ),
    # files
    row("empty-input", "", r"holyclient batch: in\.jsonl: no requests"),
    row("only-blank-lines", "\n  \n\n", r"holyclient batch: in\.jsonl: no requests"),
    row(
        "input-is-a-directory",
        "",
        r"holyclient batch: adir: is a directory",
        argv=("batch", "adir", "-o", "out.jsonl"),
        files={"adir/x": ""},
    ),
    row(
        "input-missing",
        "",
        r"holyclient batch: nope\.jsonl: no such file",
        argv=("batch", "nope.jsonl", "-o", "o"),
    ),
    row(
        "output-is-a-directory",
        _jsonl(_line("a")),
        r"holyclient batch: adir: is a directory",
        argv=("batch", "in.jsonl", "-o", "adir"),
        files={"adir/x": ""},
    ),
    row(
        "output-in-a-missing-directory",
        _jsonl(_line("a")),
        r"holyclient batch: missing/dir/out\.jsonl: no such "
        "directory",
        argv=("batch", "in.jsonl", "-o", "missing/dir/out.jsonl"),
    ),
    row(
        "output-is-the-input",
        _jsonl(_line("a")),
        r"holyclient batch: OUTPUT must not be the INPUT file",
        argv=("batch", "in.jsonl", "-o", "in.jsonl"),
    ),
    row(
        "output-not-a-results-file",
        _jsonl(_line("a")),
        r"holyclient batch: out\.jsonl:1: not a batch result line",
        files={"out.jsonl": '{"hello": "world"}\n'},
    ),
    row(
        "output-of-another-input",
        _jsonl(_line("a")),
        r"holyclient batch: out\.jsonl:1: custom_id 'zzz' is not in the input .*--force",
        files={"out.jsonl": json.dumps({"custom_id": "zzz", "response": None, "error": None}) + "\n"},
    ),
    row(
        "output-required",
        _jsonl(_line("a")),
        r"holyclient batch: -o/--output OUTPUT\.jsonl is required",
        argv=("batch", "in.jsonl"),
    ),
    row(
        "no-api-key",
        _jsonl(_line("a")),
        r"holyclient batch: .*HOLYSHEEP_API_KEY",
        env={"HOLYSHEEP_API_KEY": None},
    ),
    row(
        "no-api-key-gives-shell-advice",
        _jsonl(_line("a")),
        r"holyclient batch: no API key: set HOLYSHEEP_API_KEY or pass --api-key",
        env={"HOLYSHEEP_API_KEY": None},
    ),
    row(
        "empty-api-key-flag",
        _jsonl(_line("a")),
        r"holyclient batch: --api-key is empty",
        argv=(*RUN, "--api-key", " "),
    ),
    row(
        "plain-http-to-another-host",
        _jsonl(_line("a")),
        r"holyclient batch: refusing to send the API key over plain http:// to 'api\.example\.com'.*"
        r"--allow-insecure-http",
        argv=(*RUN, "--base-url", "http://api.example.com/v1"),
    ),
    row(
        "base-url-not-http",
        _jsonl(_line("a")),
        r"holyclient batch: the base URL \(--base-url or HOLYSHEEP_BASE_URL\) must be an http:// or https:// URL",
        argv=(*RUN, "--base-url", "ftp://api.example.com/v1"),
    ),
    # flags
    row(
        "empty-model-flag",
        _jsonl(_line("a")),
        r"holyclient batch: --model must not be empty",
        argv=(*RUN, "--model", ""),
    ),
    row(
        "negative-max-retries",
        _jsonl(_line("a")),
        r"holyclient batch: --max-retries must not be negative",
        argv=(*RUN, "--max-retries", "-1"),
    ),
    row(
        "zero-concurrency", _jsonl(_line("a")), r"usage: holyclient batch", argv=(*RUN, "--concurrency", "0")
    ),
    row("nan-rpm", _jsonl(_line("a")), r"usage: holyclient batch", argv=(*RUN, "--rpm", "nan")),
    row(
        "negative-progress-every",
        _jsonl(_line("a")),
        r"usage: holyclient batch",
        argv=(*RUN, "--progress-every", "-1"),
    ),
    # messages the real API refuses: roles it does not know, content missing or misnamed
    row(
        "role-human",
        _jsonl(_line("a", _chat(messages=[{"role": "human", "content": "hi"}]))),
        r"in\.jsonl:1: field 'body\.messages\[0\]\.role' must be one of system, developer, user, "
        r"assistant, tool, function, got 'human'",
    ),
    row(
        "text-instead-of-content",
        _jsonl(_chat(messages=[{"role": "user", "text": "hi"}])),
        r"in\.jsonl:1: field 'messages\[0\]\.content' is missing \(found 'text': the field is 'content'\)",
    ),
    row(
        "assistant-without-content-or-tool-calls",
        _jsonl(_chat(messages=[{"role": "user", "content": "hi"}, {"role": "assistant"}])),
        r"in\.jsonl:1: field 'messages\[1\]\.content' is missing \(an assistant message needs content, "
        r"tool_calls, refusal, audio or function_call\)",
    ),
    row(
        "tool-message-content-null",
        _jsonl(_chat(messages=[{"role": "tool", "tool_call_id": "c1", "content": None}])),
        r"in\.jsonl:1: field 'messages\[0\]\.content' is missing",
    ),
    # a JSON document where JSONL is expected: say so and give the jq line that converts it
    row(
        "json-array-on-one-line",
        json.dumps([_chat(), _chat()]) + "\n",
        r"in\.jsonl:1: the input is a JSON array, but batch reads JSONL, one request per line; convert it: "
        r"jq -c '\.\[\]' in\.jsonl > in\.lines\.jsonl",
    ),
    row(
        "json-array-pretty-printed",
        "",
        r"in\.json:1: the input is a JSON array, .* convert it: jq -c '\.\[\]' in\.json > in\.jsonl$",
        argv=("batch", "in.json", "-o", "out.jsonl"),
        files={"in.json": json.dumps([_chat()], indent=2)},
    ),
    row(
        "json-object-pretty-printed",
        "\n" + json.dumps(_chat(), indent=2) + "\n",
        r"in\.jsonl:2: the input is pretty-printed JSON, .* convert it: jq -c \. in\.jsonl > in\.lines\.jsonl$",
    ),
]


@pytest.mark.parametrize("case", ROWS, ids=str)
def test_batch_bad_input(
    case: Row, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any, relay: LocalServer
) -> None:
    out, _err = check_row(case, tmp_path, capsys, monkeypatch, relay=relay)
    if case.exit == 0:
        assert "dry run: nothing sent" in out
