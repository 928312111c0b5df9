"""Ray Data adapter: ``ds.map_batches(HolyChat, fn_constructor_kwargs={...}, concurrency=N, batch_size=...)``.

Each actor sends its rows through one :class:`~holyclient.AsyncClient` and the batch runner (bounded
concurrency, ``Retry-After``, backoff that frees the slot, and -- with ``limiter_url`` -- the RPM/TPM
budget shared through Redis by every actor of every job on the same key). A request that fails, or a
row that is not a request, becomes an error row: one bad row never raises, so it never aborts the
dataset.

Rows in: ``custom_id`` and ``body`` (a chat request as a dict, or as a JSON string -- a string keeps
Arrow from unifying the schemas of very different bodies). Rows out, Batch-API shaped, every column a
string so that batches always share one schema: ``custom_id``, ``response`` (JSON of ``{status_code,
request_id, body}``, or null), ``error`` (JSON of ``{code, message}``, or null).

:class:`HolyChat` is plain Python -- all ``map_batches`` needs -- so not even this module imports
``ray``, and the base install does not depend on it (``holyclient[ray]`` installs Ray Data with
``redis`` for the shared limiter).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL
from ..batch import BatchRequest, BatchResult, BatchRunner

__all__ = ["HolyChat"]

Batch = Mapping[str, Any]


def _column(batch: Any, name: str) -> list[Any]:
    if name not in batch:
        return []
    values = batch[name]
    return list(values.tolist() if hasattr(values, "tolist") else values)


def _request(custom_id: Any, body: Any, default_model: str | None) -> BatchRequest | str:
    """The request of one row, or why the row is not one."""
    if not isinstance(custom_id, str) or not custom_id:
        return "custom_id must be a non-empty string"
    if isinstance(body, (str, bytes)):
        try:
            body = json.loads(body)
        except ValueError as exc:
            return f"body is not JSON: {exc}"
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), (list, tuple)):
        return "body must be a chat request with messages"
    body = {key: value for key, value in body.items() if value is not None}  # Arrow fills absent fields
    body["messages"] = [dict(message) for message in body["messages"]]
    if default_model and not body.get("model"):
        body["model"] = default_model
    return BatchRequest(custom_id, body, CHAT_COMPLETIONS_URL)


def _error_row(custom_id: Any, code: str, message: str) -> dict[str, Any]:
    return {
        "custom_id": str(custom_id),
        "response": None,
        "error": json.dumps({"code": code, "message": message}),
    }


def _row(result: BatchResult) -> dict[str, Any]:
    line = result.output_line()
    response, error = line.get("response"), line.get("error")
    return {
        "custom_id": result.custom_id,
        "response": json.dumps(response) if response is not None else None,
        "error": json.dumps(error) if error is not None else None,
    }


class HolyChat:
    """A callable class for Ray Data's ``map_batches``: chat requests in, Batch API result rows out.

    Args:
        api_key: defaults to ``HOLYSHEEP_API_KEY`` (on the worker: pass it through ``runtime_env``).
        base_url: defaults to ``HOLYSHEEP_BASE_URL``, then HolySheep.
        concurrency: requests in flight per actor.
        limiter_url: ``redis://host:6379/0`` to share ``rpm``/``tpm`` with every actor (and every
            other worker on the key); without it each actor keeps to ``limit / actors`` by itself.
        rpm: requests per ``window`` for the whole job.
        tpm: tokens per ``window`` for the whole job.
        window: seconds (60: per minute).
        actors: how many actors share the limit (the ``concurrency=`` given to ``map_batches``).
        model: model for rows whose body names none.
        max_retries: retries per request.
        timeout: seconds per attempt.
        allow_insecure_http: allow ``http://`` to a non-loopback host.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        concurrency: int = 16,
        limiter_url: str | None = None,
        rpm: float | None = None,
        tpm: float | None = None,
        window: float = 60.0,
        actors: int = 1,
        model: str | None = None,
        max_retries: int = 8,
        timeout: float | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        from .._client import AsyncClient
        from ..ratelimit import Limiter, LocalLimiter, RedisLimiter

        self._loop = asyncio.new_event_loop()  # one loop per actor: the client's pool lives on it
        self.client = AsyncClient(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=0,
            allow_insecure_http=allow_insecure_http,
        )
        limiter: Limiter | None = None
        if limiter_url is not None:
            limiter = RedisLimiter(
                limiter_url, rpm=rpm, tpm=tpm, window=window, api_key=self.client.api_key, workers=actors
            )
        elif rpm or tpm:
            limiter = LocalLimiter(
                rpm / actors if rpm else None, tpm / actors if tpm else None, window=window
            )
        self.runner = BatchRunner(
            self.client, concurrency=concurrency, limiter=limiter, max_retries=max_retries
        )
        self.model = model

    def __call__(self, batch: Batch) -> dict[str, list[Any]]:
        """Send the batch's rows; one output row per input row, in order, never an exception."""
        ids, bodies = _column(batch, "custom_id"), _column(batch, "body")
        rows: list[dict[str, Any] | None] = [None] * len(ids)
        requests: dict[str, BatchRequest] = {}
        position: dict[str, int] = {}
        for index, (custom_id, body) in enumerate(zip(ids, bodies or [None] * len(ids), strict=True)):
            request = _request(custom_id, body, self.model)
            if isinstance(request, str):
                rows[index] = _error_row(custom_id, "invalid_row", request)
            elif request.custom_id in position:
                rows[index] = _error_row(custom_id, "duplicate_custom_id", "custom_id already in this batch")
            else:
                requests[request.custom_id], position[request.custom_id] = request, index
        try:
            for result in self._loop.run_until_complete(self._send(list(requests.values()))):
                rows[position[result.custom_id]] = _row(result)
        except Exception as exc:  # never abort the dataset: the rows not answered are error rows
            for custom_id, index in position.items():
                if rows[index] is None:
                    rows[index] = _error_row(custom_id, "request_failed", f"{type(exc).__name__}: {exc}")
        done = [row or _error_row(ids[i], "request_failed", "no result") for i, row in enumerate(rows)]
        return {name: [row[name] for row in done] for name in ("custom_id", "response", "error")}

    async def _send(self, requests: list[BatchRequest]) -> list[BatchResult]:
        results: list[BatchResult] = []
        await self.runner.run(requests, results.append)
        return results

    def __del__(self) -> None:
        try:
            if not self._loop.is_closed():
                self._loop.run_until_complete(self.client.close())
                self._loop.close()
        except Exception:  # interpreter shutting down: nothing left to release
            pass
