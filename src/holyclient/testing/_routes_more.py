"""Routing of the endpoints beyond chat/embeddings/models on the local server's :class:`~._app.App`.

``App.handle`` asks :func:`handle_more` about any path its own table does not know. The request goes
through the same steps as a chat request (count, log, auth); JSON answers go through the app's
dispatch, so latency and queued faults apply to them too. Streams, binary and text answers are
written directly. The rate limiter does not apply to these endpoints.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl

from . import _handlers_more as hm
from ._config import SECRET_HEADERS, RecordedRequest
from ._handlers import InvalidRequest
from ._store import Conflict, NotFound, Store, parse_multipart
from ._stored_chat import NotStored, StoredChats

if TYPE_CHECKING:
    from ._app import App, _Exchange

#: path pattern -> {method: endpoint name}
_ROUTES: list[tuple[re.Pattern[str], dict[str, str]]] = [
    (re.compile(p), m)
    for p, m in (
        (r"/v1/responses", {"POST": "responses"}),
        (r"/v1/responses/input_tokens", {"POST": "responses.input_tokens"}),
        (r"/v1/responses/(?P<id>[^/]+)", {"GET": "responses.retrieve", "DELETE": "responses.delete"}),
        (r"/v1/responses/(?P<id>[^/]+)/cancel", {"POST": "responses.cancel"}),
        (r"/v1/responses/(?P<id>[^/]+)/input_items", {"GET": "responses.input_items"}),
        (r"/v1/chat/completions", {"GET": "chat.list"}),  # POST is the app's own route
        (
            r"/v1/chat/completions/(?P<id>[^/]+)",
            {"GET": "chat.retrieve", "POST": "chat.update", "DELETE": "chat.delete"},
        ),
        (r"/v1/chat/completions/(?P<id>[^/]+)/messages", {"GET": "chat.messages"}),
        (r"/v1/completions", {"POST": "completions"}),
        (r"/v1/moderations", {"POST": "moderations"}),
        (r"/v1/images/generations", {"POST": "images"}),
        (r"/v1/images/edits", {"POST": "images.edit"}),
        (r"/v1/images/variations", {"POST": "images.variation"}),
        (r"/v1/audio/speech", {"POST": "speech"}),
        (r"/v1/audio/transcriptions", {"POST": "transcriptions"}),
        (r"/v1/audio/translations", {"POST": "translations"}),
        (r"/v1/files", {"POST": "files.create", "GET": "files.list"}),
        (r"/v1/files/(?P<id>[^/]+)", {"GET": "files.retrieve", "DELETE": "files.delete"}),
        (r"/v1/files/(?P<id>[^/]+)/content", {"GET": "files.content"}),
        (r"/v1/batches", {"POST": "batches.create", "GET": "batches.list"}),
        (r"/v1/batches/(?P<id>[^/]+)", {"GET": "batches.retrieve"}),
        (r"/v1/batches/(?P<id>[^/]+)/cancel", {"POST": "batches.cancel"}),
    )
]
_MULTIPART = ("transcriptions", "translations", "files.create", "images.edit", "images.variation")
_JSON_BODY = (
    "responses",
    "responses.input_tokens",
    "completions",
    "moderations",
    "images",
    "speech",
    "batches.create",
)


def _store(app: App) -> Store:
    store: Store | None = getattr(app, "more_store", None)
    if store is None:
        store = app.more_store = Store()  # type: ignore[attr-defined]
    return store


def reset_more(app: App) -> None:
    """Forget uploaded files, batches and stored completions (``App.reset``)."""
    app.more_store = Store()  # type: ignore[attr-defined]
    app.stored_chats = StoredChats()  # type: ignore[attr-defined]


def stored_chats(app: App) -> StoredChats:
    """The completions created with ``store=true`` (the app adds to them, these routes serve them)."""
    chats: StoredChats | None = getattr(app, "stored_chats", None)
    if chats is None:
        chats = app.stored_chats = StoredChats()  # type: ignore[attr-defined]
    return chats


def handle_more(app: App, ex: _Exchange) -> Coroutine[Any, Any, None] | Literal[False] | None:
    """Answer ``ex`` if its path is one of these endpoints; ``False`` when it is not (the app answers 404)."""
    req = ex.req
    matches = ((pattern.fullmatch(req.path), methods) for pattern, methods in _ROUTES)
    match, methods = next(((m, methods) for m, methods in matches if m is not None), (None, {}))
    if match is None:
        return False
    ex.endpoint = next(iter(methods.values())).split(".")[0]
    app.by_endpoint[ex.endpoint] = app.by_endpoint.get(ex.endpoint, 0) + 1
    endpoint = methods.get(req.method)
    if endpoint is None:
        allowed = ", ".join(methods)
        app._send_error(
            ex, 405, f"Method {req.method} not allowed for {req.path}; use {allowed}.", "invalid_request_error",
            headers=[("Allow", allowed)],
        )  # fmt: skip
        return None
    query = dict(parse_qsl(req.query))
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    body: Any = query or None
    error: InvalidRequest | None = None
    try:
        if endpoint in _MULTIPART:
            fields, files = parse_multipart(req.body, req.headers.get("content-type", ""))
            body = {
                **fields,
                **{name: f"<{upload[0]}: {len(upload[2])} bytes>" for name, upload in files.items()},
            }
        elif endpoint in _JSON_BODY or (req.method == "POST" and req.body):
            body = json.loads(req.body) if req.body else {}
            if not isinstance(body, dict):
                raise ValueError
    except InvalidRequest as exc:
        error = exc
    except ValueError:
        error = InvalidRequest(
            "We could not parse the JSON body of your request. The body must be a JSON object."
        )
    _record(app, ex, body)
    if app.config.require_key and not app._authorized(ex):
        return None
    if error is not None:
        app._send_error(ex, 400, error.message, "invalid_request_error", error.param, error.code)
        return None
    ex.body = body if isinstance(body, dict) else {}
    try:
        return _answer(
            app, ex, endpoint, match["id"] if "id" in match.groupdict() else "", query, fields, files
        )
    except InvalidRequest as exc:
        app._send_error(ex, 400, exc.message, "invalid_request_error", exc.param, exc.code)
    except (NotFound, NotStored) as exc:
        app._send_error(ex, 404, exc.message, "invalid_request_error", getattr(exc, "param", None))
    except Conflict as exc:
        app._send_error(ex, 409, exc.message, "invalid_request_error")
    return None


def _record(app: App, ex: _Exchange, body: Any) -> None:
    config = app.config
    if config.log_requests or config.hook is not None:
        ex.record = RecordedRequest(
            id=ex.rid,
            time=time.time(),
            method=ex.req.method,
            path=ex.req.path,
            query=ex.req.query,
            body=body if ex.req.method != "GET" else None,
            headers={k: v for k, v in ex.req.headers.items() if k not in SECRET_HEADERS},
        )
        if config.log_requests and config.log_limit:
            app._log.append(ex.record)


def _answer(
    app: App,
    ex: _Exchange,
    endpoint: str,
    item_id: str,
    query: dict[str, str],
    fields: dict[str, str],
    files: dict[str, tuple[str, str, bytes]],
) -> Coroutine[Any, Any, None] | None:
    body, now, suffix = ex.body, int(time.time()), ex.rid[4:]
    store = _store(app)
    payload: dict[str, Any]
    if endpoint == "responses":
        payload = hm.response_object(body, store.response_id(), now)
        if body.get("background") is True:
            payload["background"] = True
        store.keep_response(body, payload)
        if body.get("stream") is True:
            return _send_stream(app, ex, hm.response_events(payload))
    elif endpoint == "responses.input_tokens":
        if "input_tokens" in app.config.disabled_features:  # as a relay without the endpoint answers
            raise NotFound(f"Invalid URL ({ex.req.method} {ex.req.path})", None)
        payload = hm.input_token_count(body)
    elif endpoint == "responses.retrieve":
        payload = store.response(item_id)
        if query.get("stream") == "true":  # replay the stored response's events, after ``starting_after``
            after = query.get("starting_after") or "-1"
            if not after.lstrip("-").isdigit():
                raise InvalidRequest("'starting_after' must be an integer", "starting_after")
            return _send_stream(app, ex, hm.response_events(payload)[int(after) + 1 :])
    elif endpoint == "responses.delete":
        payload = store.delete_response(item_id)
    elif endpoint == "responses.cancel":
        payload = store.cancel_response(item_id)
    elif endpoint == "responses.input_items":
        payload = store.input_items(item_id, query)
    elif endpoint.startswith("chat."):
        payload = _stored_chat(stored_chats(app), endpoint, item_id, query, body)
    elif endpoint == "completions":
        payload = hm.completion_object(body, "cmpl-" + suffix, now)
        if body.get("stream") is True:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            return _send_stream(app, ex, hm.completion_events(payload, include_usage))
    elif endpoint == "moderations":
        payload = hm.moderation(body, "modr-" + suffix)
    elif endpoint == "images":
        payload = hm.images(body, now)
    elif endpoint in ("images.edit", "images.variation"):
        payload = hm.image_edit(fields, files, now)
    elif endpoint == "speech":
        return _send_bytes(app, ex, "application/octet-stream", hm.speech(body))  # the spec's type
    elif endpoint in ("transcriptions", "translations"):
        content_type, data = hm.transcription(fields, files.get("file"))
        return _send_bytes(app, ex, content_type, data)
    elif endpoint == "files.create":
        payload = store.upload(fields, files, now)
    elif endpoint == "files.list":
        payload = store.list_files(query)
    elif endpoint == "files.retrieve":
        payload = store.file(item_id)
    elif endpoint == "files.delete":
        payload = store.delete_file(item_id)
    elif endpoint == "files.content":
        store.file(item_id)
        return _send_bytes(app, ex, "application/octet-stream", store.contents[item_id])
    elif endpoint == "batches.create":
        payload = store.create_batch(body, now)
    elif endpoint == "batches.list":
        payload = store.list_batches(query)
    elif endpoint == "batches.retrieve":
        payload = store.batch(item_id, now, advance=True)
    else:  # batches.cancel
        payload = store.cancel_batch(item_id, now)
    if endpoint.startswith("batches"):  # the spec types unset fields as absent, not null
        payload = _without_nulls(payload)
        if isinstance(payload.get("data"), list):
            payload["data"] = [_without_nulls(batch) for batch in payload["data"]]
    ex.payload = dict(payload)
    return app._dispatch(ex)


def _stored_chat(chats: StoredChats, endpoint: str, item_id: str, query: dict[str, str], body: Any) -> Any:
    if endpoint == "chat.list":
        return chats.list(query)
    if endpoint == "chat.retrieve":
        return chats.get(item_id)
    if endpoint == "chat.update":
        return chats.update(item_id, body)
    if endpoint == "chat.delete":
        return chats.delete(item_id)
    return chats.list_messages(item_id, query)


def _without_nulls(obj: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in obj.items() if value is not None}


def _send_bytes(app: App, ex: _Exchange, content_type: str, data: bytes) -> Coroutine[Any, Any, None] | None:
    app._count(ex, 200)
    ex.conn.send(200, app._base_headers(ex, content_type), data, keep_alive=ex.req.keep_alive)
    return None  # answered at once: nothing for the connection to wait on


def _send_stream(app: App, ex: _Exchange, events: list[bytes]) -> Coroutine[Any, Any, None] | None:
    ex.conn.send_stream(
        200,
        app._stream_head(ex),
        events,
        chunked=ex.req.version == "HTTP/1.1",
        complete=True,
        keep_alive=ex.req.keep_alive,
    )
    return None
