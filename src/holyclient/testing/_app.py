"""The local server's application: routing and the core endpoints (chat, embeddings, models).

:class:`App` looks every request up in the one route table (:mod:`._routes`), answers chat,
embeddings and models itself (validation, token costs, the rate limiter) and hands every other
endpoint to :mod:`._endpoints`. The shared steps (stats, auth, faults, writing) are in
:class:`~._app_core.AppCore`.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Coroutine
from typing import Any

from . import _handlers as h
from . import _vectors_fake
from ._admin import handle_admin
from ._app_core import AppCore
from ._canned import answer_canned
from ._chat_plan import ChatPlan
from ._endpoints import handle_more
from ._exchange import Exchange
from ._http import HTTPConnection
from ._http_parse import Request
from ._prefill import REFUSAL as PREFILL_REFUSAL
from ._prefill import prefill_of
from ._routes import CORE, find_route


class App(AppCore):
    """Request handling shared by :class:`LocalServer` and ``holyclient serve``."""

    def handle(self, req: Request, conn: HTTPConnection) -> Coroutine[Any, Any, None] | None:
        path = req.path
        if path.startswith("/_holyclient/"):
            handle_admin(self, req, conn)
            return None
        self.requests += 1
        ex = Exchange(req, conn, self.new_request_id(), "unknown")
        canned = self.config.canned
        if canned and f"{req.method} {path}" in canned:
            return answer_canned(self, ex, canned[f"{req.method} {path}"])
        route = find_route(path, self.config.disabled_features)
        if route is None:
            self._send_error(
                ex,
                404,
                f"Unknown request URL: {req.method} {path}. Please check the URL for typos.",
                "invalid_request_error",
                code="unknown_url",
            )
            return None
        item_id, methods = route
        ex.endpoint = next(iter(methods.values())).split(".")[0]
        self.by_endpoint[ex.endpoint] = self.by_endpoint.get(ex.endpoint, 0) + 1
        endpoint = methods.get(req.method)
        if endpoint is None:
            allowed = ", ".join(methods)
            self._send_error(
                ex,
                405,
                f"Method {req.method} not allowed for {path}; use {allowed}.",
                "invalid_request_error",
                headers=[("Allow", allowed)],
            )
            return None
        if endpoint not in CORE:
            return handle_more(self, ex, endpoint, item_id)  # responses, audio, files, batches ...
        parsed: Any = None
        invalid_json = False
        if req.method == "POST":
            try:
                parsed = json.loads(req.body)
            except ValueError:
                invalid_json = True
        self._record(ex, parsed)
        config = self.config
        if config.require_key and not self._authorized(ex):
            return None
        if req.method == "POST":
            if invalid_json or not isinstance(parsed, dict):
                self._send_error(
                    ex,
                    400,
                    "We could not parse the JSON body of your request. The body must be a JSON object.",
                    "invalid_request_error",
                )
                return None
            ex.body = parsed
            try:
                self._prepare(ex)
            except h.InvalidRequest as exc:
                self._send_error(ex, exc.status, exc.message, exc.type_, exc.param, exc.code)
                return None
            if self._limiter is not None and not self._admit(ex):
                return None
        elif ex.endpoint == "model":
            if item_id not in config.models:
                self._send_error(
                    ex,
                    404,
                    f"The model '{item_id}' does not exist",
                    "invalid_request_error",
                    "model",
                    "model_not_found",
                )
                return None
            ex.payload = h.model_object(item_id)
        else:
            ex.payload = h.models_list(config.models)
        return self._dispatch(ex)

    def _prepare(self, ex: Exchange) -> None:
        body = ex.body
        config = self.config
        if ex.endpoint == "chat":
            h.validate_chat(body, config.disabled_features)
            if "prefill" in config.disabled_features and prefill_of(body) is not None:
                raise h.InvalidRequest(PREFILL_REFUSAL, "messages")
            relay = self.relay
            ex.plan = ChatPlan(
                body if relay is None else relay.chat(body),  # as the model's family sees it
                ex.rid,
                persona=config.persona,
                rng=self._noise_rng,
                noise=config.noise,
                billing=config.billing,
                turn=self.next_turn(ex),
            )
            if relay is not None:
                plan = ex.plan
                plan.usage_plan = relay.usage_plan(
                    body,
                    [m for m in body.get("messages") or () if isinstance(m, dict)],
                    lambda m: h.prompt_tokens([m]),
                    lambda: plan.completion_tokens,
                    config.report_cost,
                )
            ex.plan.model = str(config.answered(ex.plan.model))
            ex.stream = body.get("stream") is True
            options = body.get("stream_options")
            ex.include_usage = (
                ex.stream
                and isinstance(options, dict)
                and options.get("include_usage") is True
                and "include_usage" not in config.disabled_features
            )
            ex.cost = h.chat_cost(body) if self._limiter is not None else 0
        else:
            if self.relay is not None:
                self.relay.check_model(body)
            ex.payload = _vectors_fake.embeddings(body)
            ex.payload["model"] = config.answered(ex.payload["model"])
            ex.cost = _vectors_fake.embeddings_cost(body) if self._limiter is not None else 0

    def _admit(self, ex: Exchange) -> bool:
        assert self._limiter is not None
        verdict = self._limiter.check(asyncio.get_running_loop().time(), ex.cost, str(ex.body.get("model")))
        ex.extra = verdict.headers
        if verdict.allowed:
            return True
        self.rate_limited += 1
        if verdict.retry_after > 0:
            headers = [
                ("Retry-After", str(math.ceil(verdict.retry_after))),
                ("retry-after-ms", str(math.ceil(verdict.retry_after * 1000))),
            ]
        else:  # larger than the whole limit: waiting cannot help
            headers = [("x-should-retry", "false")]
        self._send_error(
            ex, 429, verdict.message, verdict.error_type, code="rate_limit_exceeded", headers=headers
        )
        return False
