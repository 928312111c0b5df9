"""State of the local server's Files and Batch API: uploaded files and batches, in memory. No I/O.

A batch moves one step each time it is retrieved (``validating`` -> ``in_progress`` -> ``completed``),
so client code that polls runs as against the API, without waiting. On completion every JSONL line
is answered by the same builders as the live endpoints and the results become the output file.

A background response (``background: true``, not streamed) is answered ``queued``, without output or
usage, as the API answers it; it moves one step each time it is retrieved (``queued`` ->
``in_progress`` -> ``completed``, with its output and usage), and a retrieval as a stream completes it
at once. Cancelling it while it runs leaves it ``cancelled``, without usage.
"""

from __future__ import annotations

import json
from typing import Any

from . import _completions_fake as cf
from . import _handlers as h
from . import _responses_fake as rf
from . import _vectors_fake
from ._chat_plan import ChatPlan
from ._handlers import InvalidRequest

JSON = dict[str, Any]
BATCH_ENDPOINTS = (
    "/v1/chat/completions",
    "/v1/embeddings",
    "/v1/completions",
    "/v1/responses",
    "/v1/moderations",
)


class NotFound(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class Conflict(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse_multipart(
    body: bytes, content_type: str
) -> tuple[dict[str, str], dict[str, tuple[str, str, bytes]]]:
    """Form fields and files (``name -> (filename, content_type, bytes)``) of a ``multipart/form-data`` body.

    Raises:
        InvalidRequest: not multipart, or no boundary.
    """
    kind, _, params = content_type.partition(";")
    boundary = ""
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip('"')
    if kind.strip().lower() != "multipart/form-data" or not boundary:
        raise InvalidRequest("Expected a multipart/form-data body with a boundary", "file")
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    for part in body.split(b"--" + boundary.encode())[1:]:
        if part.startswith(b"--"):
            break
        head, _, data = part.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        data = data.removesuffix(b"\r\n")
        headers = dict(
            (k.strip().lower(), v.strip())
            for k, _, v in (line.partition(":") for line in head.decode().split("\r\n"))
        )
        disposition = {
            k.strip(): v.strip().strip('"')
            for k, _, v in (
                item.partition("=") for item in headers.get("content-disposition", "").split(";")[1:]
            )
        }
        name = disposition.get("name", "")
        if "filename" in disposition:
            files[name] = (
                disposition["filename"],
                headers.get("content-type", "application/octet-stream"),
                data,
            )
        else:
            fields[name] = data.decode("utf-8", "replace")
    return fields, files


def page(items: list[JSON], query: dict[str, str], default_limit: int, *, newest_first: bool = True) -> JSON:
    """A cursor page: items after ``after`` (an id), at most ``limit``."""
    ordered = (
        list(reversed(items)) if (query.get("order", "desc" if newest_first else "asc") == "desc") else items
    )
    after = query.get("after")
    if after:
        ids = [item["id"] for item in ordered]
        ordered = ordered[ids.index(after) + 1 :] if after in ids else []
    try:
        limit = int(query.get("limit", default_limit))
    except ValueError:
        raise InvalidRequest("'limit' must be an integer", "limit") from None
    data = ordered[:limit]
    result: JSON = {"object": "list", "data": data, "has_more": len(ordered) > limit}
    if data:  # the spec types both ids as strings: an empty page has none
        result.update(first_id=data[0]["id"], last_id=data[-1]["id"])
    return result


class Store:
    """Files and batches of one server."""

    def __init__(self) -> None:
        self.files: dict[str, JSON] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, JSON] = {}
        self.responses: dict[str, tuple[JSON, list[JSON]]] = {}
        #: background responses still running: what each answers once completed
        self.running: dict[str, JSON] = {}
        self._counter = 0

    def _id(self, prefix: str, separator: str = "-") -> str:
        self._counter += 1
        return f"{prefix}{separator}{self._counter:012d}"

    def response_id(self) -> str:
        """Ids from the store's counter: the same on every run after a reset (differential tests)."""
        return self._id("resp", "_")

    # -- files ------------------------------------------------------------------------------------
    def add_file(self, filename: str, data: bytes, purpose: str, now: int) -> JSON:
        file_id = self._id("file")
        obj = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": now,
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[file_id] = obj
        self.contents[file_id] = data
        return obj

    def upload(self, fields: dict[str, str], files: dict[str, tuple[str, str, bytes]], now: int) -> JSON:
        if "file" not in files:
            raise InvalidRequest("'file' is required", "file")
        purpose = fields.get("purpose")
        if purpose not in ("assistants", "batch", "fine-tune", "vision", "user_data", "evals"):
            raise InvalidRequest(f"Invalid value for 'purpose': {purpose!r}", "purpose")
        filename, _, data = files["file"]
        if purpose == "batch":
            self._check_jsonl(data)
        return self.add_file(filename, data, purpose, now)

    @staticmethod
    def _check_jsonl(data: bytes) -> None:
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if line.strip():
                try:
                    json.loads(line)
                except ValueError:
                    raise InvalidRequest(f"Invalid JSON on line {number} of the batch file", "file") from None

    def file(self, file_id: str) -> JSON:
        if file_id not in self.files:
            raise NotFound(f"No such File object: {file_id}", "id")
        return self.files[file_id]

    def delete_file(self, file_id: str) -> JSON:
        self.file(file_id)
        del self.files[file_id]
        del self.contents[file_id]
        return {"id": file_id, "object": "file", "deleted": True}

    def list_files(self, query: dict[str, str]) -> JSON:
        items = [f for f in self.files.values() if query.get("purpose") in (None, f["purpose"])]
        return page(items, query, 10000)

    # -- stored responses -------------------------------------------------------------------------
    def keep_response(self, body: JSON, response: JSON) -> None:
        """Store a created response (``store`` defaults to true) with its input as items."""
        if body.get("store") is False:
            return
        raw = body.get("input")
        messages = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw or []
        suffix = response["id"][5:]
        items = [_input_item(m, f"{i:04d}_{suffix}") for i, m in enumerate(messages) if isinstance(m, dict)]
        self.responses[response["id"]] = (response, items)

    def start_background(self, body: JSON, response: JSON) -> JSON:
        """Keep a background response as running (its final form kept for later); its ``queued`` form."""
        queued = {**response, "status": "queued", "output": [], "usage": None, "incomplete_details": None}
        self.running[response["id"]] = response
        self.keep_response({**body, "store": True}, queued)
        return queued

    def response(self, response_id: str, *, advance: bool = False, finish: bool = False) -> JSON:
        """A stored response; ``advance``: a running background response moves one step, ``finish``: it
        completes."""
        if response_id not in self.responses:
            raise NotFound(f"Response with id '{response_id}' not found.", "response_id")
        current, items = self.responses[response_id]
        final = self.running.get(response_id)
        if final is not None and (advance or finish):
            if current["status"] == "queued" and not finish:
                current = {**current, "status": "in_progress"}
            else:
                current = self.running.pop(response_id)
            self.responses[response_id] = (current, items)
        return current

    def delete_response(self, response_id: str) -> JSON:
        self.response(response_id)
        del self.responses[response_id]
        self.running.pop(response_id, None)
        return {"id": response_id, "object": "response.deleted", "deleted": True}

    def cancel_response(self, response_id: str) -> JSON:
        response = self.response(response_id)
        if not response.get("background"):
            raise InvalidRequest(
                "Only responses created with background=true can be cancelled.", "response_id"
            )
        if self.running.pop(response_id, None) is not None:  # stopped while it ran: no usage reported
            response = {**response, "status": "cancelled"}
            self.responses[response_id] = (response, self.responses[response_id][1])
        return response

    def input_items(self, response_id: str, query: dict[str, str]) -> JSON:
        self.response(response_id)
        items = self.responses[response_id][1]
        return page(list(reversed(items)), query, 20, newest_first=False)

    # -- batches ----------------------------------------------------------------------------------
    def create_batch(self, body: JSON, now: int) -> JSON:
        input_file_id = body.get("input_file_id")
        if not isinstance(input_file_id, str) or input_file_id not in self.files:
            raise NotFound(f"No such File object: {input_file_id}", "input_file_id")
        if body.get("endpoint") not in BATCH_ENDPOINTS:
            raise InvalidRequest(f"Invalid value for 'endpoint': {body.get('endpoint')!r}", "endpoint")
        if body.get("completion_window") != "24h":
            raise InvalidRequest("'completion_window' must be '24h'", "completion_window")
        lines = [line for line in self.contents[input_file_id].decode().splitlines() if line.strip()]
        batch = {
            "id": self._id("batch"),
            "object": "batch",
            "endpoint": body["endpoint"],
            "errors": None,
            "input_file_id": input_file_id,
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "in_progress_at": None,
            "expires_at": now + 86400,
            "finalizing_at": None,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        self.batches[batch["id"]] = batch
        return batch

    def batch(self, batch_id: str, now: int, *, advance: bool = False) -> JSON:
        if batch_id not in self.batches:
            raise NotFound(f"No such Batch object: {batch_id}", "batch_id")
        batch = self.batches[batch_id]
        if advance:
            if batch["status"] == "validating":
                batch.update(status="in_progress", in_progress_at=now)
            elif batch["status"] == "in_progress":
                self._complete(batch, now)
            elif batch["status"] == "cancelling":
                batch.update(status="cancelled", cancelled_at=now)
        return batch

    def cancel_batch(self, batch_id: str, now: int) -> JSON:
        batch = self.batch(batch_id, now)
        if batch["status"] not in ("validating", "in_progress", "cancelling"):
            raise Conflict(f"Cannot cancel a batch with status '{batch['status']}'.")
        batch.update(status="cancelling", cancelling_at=batch["cancelling_at"] or now)
        return batch

    def list_batches(self, query: dict[str, str]) -> JSON:
        return page(list(self.batches.values()), query, 20)

    def _complete(self, batch: JSON, now: int) -> None:
        output = []
        completed = failed = 0
        for number, line in enumerate(self.contents[batch["input_file_id"]].decode().splitlines()):
            if not line.strip():
                continue
            request = json.loads(line)
            request_id = f"req_batch{number:06d}"
            try:
                body = _answer(batch["endpoint"], request.get("body") or {}, request_id, now)
            except InvalidRequest as exc:
                failed += 1
                error = {
                    "message": exc.message,
                    "type": "invalid_request_error",
                    "param": exc.param,
                    "code": exc.code,
                }
                response = {"status_code": 400, "request_id": request_id, "body": {"error": error}}
            else:
                completed += 1
                response = {"status_code": 200, "request_id": request_id, "body": body}
            output.append(
                {
                    "id": f"batch_req_{number:06d}",
                    "custom_id": request.get("custom_id"),
                    "response": response,
                    "error": None,
                }
            )
        data = "".join(json.dumps(item) + "\n" for item in output).encode()
        out = self.add_file(f"{batch['id']}_output.jsonl", data, "batch_output", now)
        batch.update(
            status="completed",
            finalizing_at=now,
            completed_at=now,
            output_file_id=out["id"],
            request_counts={"total": completed + failed, "completed": completed, "failed": failed},
        )


def _input_item(item: JSON, number: str) -> JSON:
    """An input item as the API lists it: with an id (messages ``msg_``, other items by their type), a
    message's content as a list of parts (a string is one ``input_text``, or ``output_text`` from the
    assistant) and a status."""
    if "role" not in item:
        prefix = "".join(word[0] for word in str(item.get("type") or "item").split("_"))
        return {"id": f"{prefix}_in{number}", **item, "status": item.get("status") or "completed"}
    content = item.get("content")
    if isinstance(content, str):
        assistant = item["role"] == "assistant"
        part: JSON = {"type": "output_text", "text": content, "annotations": []} if assistant else {}
        content = [part or {"type": "input_text", "text": content}]
    elif isinstance(content, list):  # an image's detail is listed even when it was not given
        content = [
            {**p, "detail": p.get("detail") or "auto"}
            if isinstance(p, dict) and p.get("type") == "input_image"
            else p
            for p in content
        ]
    return {"id": f"msg_in{number}", "type": "message", "status": "completed", **item, "content": content}


def _answer(endpoint: str, body: JSON, request_id: str, now: int) -> JSON:
    """The body the live endpoint would answer, for one line of a batch."""
    if endpoint == "/v1/chat/completions":
        h.validate_chat(body)
        return ChatPlan(body, request_id).completion("chatcmpl-" + request_id[4:], now)
    if endpoint == "/v1/embeddings":
        return _vectors_fake.embeddings(body)
    if endpoint == "/v1/completions":
        return cf.completion_object(body, "cmpl-" + request_id[4:], now)
    if endpoint == "/v1/responses":
        return rf.response_object(body, "resp_" + request_id[4:], now)
    return cf.moderation(body, "modr-" + request_id[4:])
