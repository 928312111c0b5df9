"""A fake OpenAI API for MockTransport tests of the endpoints: records each request, answers like the API.

Answers come from the local server's pure builders, so they are realistic and deterministic; each
SDK run gets a fresh instance, so ids (``file-000000000001`` ...) agree between openai and holyclient.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from typing import Any
from urllib.parse import parse_qs

import httpx2

from holyclient.testing import _completions_fake as cf
from holyclient.testing import _media_fake as mf
from holyclient.testing import _responses_fake as rf
from holyclient.testing import _vectors_fake
from holyclient.testing._json_body import sse
from holyclient.testing._store import NotFound, Store

NOW = 1_700_000_000


@dataclass
class Seen:
    """One request as the server saw it: what the differential tests compare."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    accept: str | None
    content_type: str | None


def parse_multipart(content_type: str, body: bytes) -> dict[str, list[Any]]:
    """Fields as ``name -> [values]``; a file as ``(filename, content_type, bytes)`` (stdlib email parser)."""
    message = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    fields: dict[str, list[Any]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True)
        filename = part.get_filename()
        value = (filename, part.get_content_type(), data) if filename is not None else data.decode()
        fields.setdefault(str(name), []).append(value)
    return fields


class FakeAPI:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.store = Store()

    def seed_files(self, count: int) -> None:
        for i in range(count):
            self.store.add_file(f"f{i}.jsonl", b'{"a": 1}\n', "batch", NOW)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        content_type = request.headers.get("content-type")
        body: Any = None
        raw = request.read()
        if content_type and content_type.startswith("multipart/form-data"):
            body = parse_multipart(content_type, raw)
        elif raw:
            body = json.loads(raw)
        path = request.url.path.removeprefix("/v1")
        self.seen.append(
            Seen(
                request.method,
                path,
                parse_qs(
                    request.url.query.decode() if isinstance(request.url.query, bytes) else request.url.query
                ),
                body,
                request.headers.get("accept"),
                content_type.split(";")[0] if content_type else None,
            )
        )
        try:
            return self._answer(request.method, path, body, request)
        except NotFound as exc:
            return httpx2.Response(
                404, json={"error": {"message": exc.message, "type": "invalid_request_error"}}
            )

    def _answer(self, method: str, path: str, body: Any, request: httpx2.Request) -> httpx2.Response:
        query = {k: v[-1] for k, v in parse_qs(str(request.url.params)).items()}
        parts = path.strip("/").split("/")
        stream = isinstance(body, dict) and body.get("stream") is True
        if path == "/responses":
            response = rf.response_object(body, "resp_1", NOW)
            if stream:
                return _sse(rf.response_events(response))
            return httpx2.Response(200, json=response)
        if path == "/completions":
            completion = cf.completion_object(body, "cmpl-1", NOW)
            if stream:
                include = (body.get("stream_options") or {}).get("include_usage") is True
                return _sse(cf.completion_events(completion, include))
            return httpx2.Response(200, json=completion)
        if path == "/moderations":
            return httpx2.Response(200, json=cf.moderation(body, "modr-1"))
        if path == "/images/generations":
            return httpx2.Response(200, json=mf.images(body, NOW))
        if path in ("/images/edits", "/images/variations"):
            return httpx2.Response(
                200, json=mf.images({"prompt": "edit", "n": int(body.get("n", ["1"])[-1])}, NOW)
            )
        if path == "/embeddings":
            return httpx2.Response(200, json=_vectors_fake.embeddings(body))
        if path == "/audio/speech":
            return httpx2.Response(200, content=mf.speech(body), headers={"content-type": "audio/mpeg"})
        if path in ("/audio/transcriptions", "/audio/translations"):
            fields = {k: v[-1] for k, v in body.items() if k != "file"}
            upload = body["file"][0]
            if fields.get("stream") == "true":
                text = upload[2].decode()
                deltas = [{"type": "transcript.text.delta", "delta": word} for word in text.split()]
                done = {
                    "type": "transcript.text.done",
                    "text": text,
                    "usage": {"type": "tokens", "input_tokens": 3},
                }
                return _sse([sse(None, event) for event in [*deltas, done]])
            content_type, data = mf.transcription(fields, (upload[0], upload[1], upload[2]))
            return httpx2.Response(200, content=data, headers={"content-type": content_type})
        if parts[0] == "files":
            return self._files(method, parts, body, query)
        if parts[0] == "batches":
            return self._batches(method, parts, body, query)
        return httpx2.Response(200, json={"path": path, "body": body})

    def _files(self, method: str, parts: list[str], body: Any, query: dict[str, str]) -> httpx2.Response:
        store = self.store
        if len(parts) == 1 and method == "POST":
            upload = body["file"][0]
            return httpx2.Response(200, json=store.add_file(upload[0], upload[2], body["purpose"][0], NOW))
        if len(parts) == 1:
            return httpx2.Response(200, json=store.list_files(query))
        if len(parts) == 3:
            store.file(parts[1])
            return httpx2.Response(200, content=store.contents[parts[1]])
        if method == "DELETE":
            return httpx2.Response(200, json=store.delete_file(parts[1]))
        return httpx2.Response(200, json=store.file(parts[1]))

    def _batches(self, method: str, parts: list[str], body: Any, query: dict[str, str]) -> httpx2.Response:
        store = self.store
        if len(parts) == 1 and method == "POST":
            return httpx2.Response(200, json=store.create_batch(body, NOW))
        if len(parts) == 1:
            return httpx2.Response(200, json=store.list_batches(query))
        if len(parts) == 3:
            return httpx2.Response(200, json=store.cancel_batch(parts[1], NOW))
        return httpx2.Response(200, json=store.batch(parts[1], NOW, advance=True))


def _sse(events: list[bytes]) -> httpx2.Response:
    return httpx2.Response(200, content=b"".join(events), headers={"content-type": "text/event-stream"})
