"""The endpoints beyond chat/embeddings/models: responses, stored chats, audio, images, files, batches.

``App.handle`` routes a request here by the one route table (:mod:`._routes`). The request goes
through the same steps as a chat request (count, log, auth); JSON answers go through the app's
dispatch, so latency and queued faults apply to them too, as they do to streams, binary and text
answers (a ``malformed`` fault cuts their body in half, ``stream_cut`` stops a stream after
``after_chunks`` events, ``stream_error`` sends an error event there). The rate limiter does not apply
to these endpoints.
"""

from __future__ import annotations

import json
import time
from collections.abc import Coroutine
from typing import Any
from urllib.parse import parse_qsl

from . import _completions_fake as cf
from . import _media_fake as mf
from . import _responses_fake as rf
from . import _variation
from ._app_core import AppCore
from ._exchange import Exchange
from ._handlers import InvalidRequest
from ._store import Conflict, NotFound, parse_multipart
from ._stored_chat import NotStored, StoredChats

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


def handle_more(app: AppCore, ex: Exchange, endpoint: str, item_id: str) -> Coroutine[Any, Any, None] | None:
    """Answer ``ex``, routed by ``App.handle`` to ``endpoint`` (any endpoint beyond chat/embeddings/models)."""
    req = ex.req
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
    app._record(ex, body if req.method != "GET" else None)
    if app.config.require_key and not app._authorized(ex):
        return None
    if error is not None:
        app._send_error(ex, 400, error.message, "invalid_request_error", error.param, error.code)
        return None
    ex.body = body if isinstance(body, dict) else {}
    try:
        return _answer(app, ex, endpoint, item_id, query, fields, files)
    except InvalidRequest as exc:
        app._send_error(ex, exc.status, exc.message, exc.type_, exc.param, exc.code)
    except (NotFound, NotStored) as exc:
        app._send_error(ex, 404, exc.message, "invalid_request_error", getattr(exc, "param", None))
    except Conflict as exc:
        app._send_error(ex, 409, exc.message, "invalid_request_error")
    return None


def _answer(
    app: AppCore,
    ex: Exchange,
    endpoint: str,
    item_id: str,
    query: dict[str, str],
    fields: dict[str, str],
    files: dict[str, tuple[str, str, bytes]],
) -> Coroutine[Any, Any, None] | None:
    body, now, suffix = ex.body, int(time.time()), ex.rid[4:]
    store = app.more_store
    payload: dict[str, Any]
    relay = app.relay
    if relay is not None and endpoint in ("responses.input_tokens", "completions"):
        relay.check_model(body)
    if endpoint == "responses":
        _refuse_disabled(body, app.config.disabled_features)
        seen = body if relay is None else relay.responses(body)  # as the model's family sees it
        payload = rf.response_object(seen, store.response_id(), now, app.next_turn(ex))
        if relay is not None:
            payload["usage"] = rf.usage_in_shape(relay, body, payload, app.config.report_cost)
        payload["model"] = app.config.answered(payload["model"])
        if seen is not body:
            payload["text"] = {"format": {"type": "text"}, **dict(body.get("text") or {})}
        if body.get("background") is True:
            payload["background"] = True
            if body.get("stream") is not True:  # answered queued; it runs on as it is retrieved
                payload = store.start_background(body, payload)
            else:
                store.keep_response(body, payload)
        else:
            store.keep_response(body, payload)
        if body.get("stream") is True:
            return _send_stream(app, ex, rf.response_events(payload))
    elif endpoint == "responses.input_tokens":
        if "input_tokens" in app.config.disabled_features:  # as a relay without the endpoint answers
            raise NotFound(f"Invalid URL ({ex.req.method} {ex.req.path})", None)
        payload = rf.input_token_count(body)
    elif endpoint == "responses.retrieve":
        replay = query.get("stream") == "true"
        payload = store.response(item_id, advance=not replay, finish=replay)
        if replay:  # replay the stored response's events, after ``starting_after``
            after = query.get("starting_after") or "-1"
            if not after.lstrip("-").isdigit():
                raise InvalidRequest("'starting_after' must be an integer", "starting_after")
            return _send_stream(app, ex, rf.response_events(payload)[int(after) + 1 :])
    elif endpoint == "responses.delete":
        payload = store.delete_response(item_id)
    elif endpoint == "responses.cancel":
        payload = store.cancel_response(item_id)
    elif endpoint == "responses.input_items":
        payload = store.input_items(item_id, query)
    elif endpoint.startswith("chat."):
        payload = _stored_chat(app.stored_chats, endpoint, item_id, query, body)
    elif endpoint == "completions":
        payload = cf.completion_object(body, "cmpl-" + suffix, now)
        payload["model"] = app.config.answered(payload["model"])
        if body.get("stream") is True:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            return _send_stream(app, ex, cf.completion_events(payload, include_usage))
    elif endpoint == "moderations":
        payload = cf.moderation(body, "modr-" + suffix)
    elif endpoint == "images":
        payload = mf.images(body, now)
    elif endpoint in ("images.edit", "images.variation"):
        payload = mf.image_edit(fields, files, now)
    elif endpoint == "speech":
        return _send_bytes(app, ex, "application/octet-stream", mf.speech(body))  # the spec's type
    elif endpoint in ("transcriptions", "translations"):
        content_type, data = mf.transcription(fields, files.get("file"))
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


def _refuse_disabled(body: dict[str, Any], disabled: frozenset[str]) -> None:
    """A switched-off feature refused on ``/responses`` as on chat (``text.format`` for ``response_format``)."""
    text = body.get("text")
    shape = {
        "response_format": text.get("format") if isinstance(text, dict) else None,
        "tools": body.get("tools"),
        "stream": body.get("stream"),
    }
    unsupported = _variation.unsupported_parameter(shape, disabled)
    if unsupported is not None:
        param = "text.format" if unsupported == "response_format" else unsupported
        raise InvalidRequest(
            f"Unsupported parameter: '{param}' is not supported with this model.",
            param,
            "unsupported_parameter",
        )


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


def _send_bytes(
    app: AppCore, ex: Exchange, content_type: str, data: bytes
) -> Coroutine[Any, Any, None] | None:
    ex.raw = (content_type, data)
    return app._dispatch(ex)


def _send_stream(app: AppCore, ex: Exchange, events: list[bytes]) -> Coroutine[Any, Any, None] | None:
    ex.events = events
    ex.stream = True
    return app._dispatch(ex)
