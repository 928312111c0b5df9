"""``client.get/post/put/patch/delete/request``: openai's escape hatch for endpoints no resource wraps.

They go through the same request pipeline as the resources (retries, errors, usage and budget), and
``cast_to`` decides the result as for a resource: a model class, ``str``, ``bytes``, ``object`` (raw
JSON) or an ``HttpxBinaryResponseContent``. ``options`` takes openai's keys (``headers``, ``params``,
``extra_json``, ``timeout``, ``max_retries``, ``idempotency_key``). Paths are relative to ``base_url``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

from .._core import (
    NOT_GIVEN,
    AsyncStreamedBinaryResponse,
    RequestOptions,
    StreamedBinaryResponse,
    encode_multipart,
    form_fields,
    read_file,
)

_OPTION_KEYS = frozenset({"headers", "params", "extra_json", "timeout", "max_retries", "idempotency_key"})
_REQUEST_KEYS = frozenset({"method", "url", "json_data", "files", "content"}) | _OPTION_KEYS


def custom_options(
    method: str,
    path: str,
    *,
    body: Any = None,
    options: Mapping[str, Any] | None = None,
    files: Mapping[str, Any] | None = None,
    content: bytes | None = None,
    stream: bool = False,
) -> RequestOptions:
    """The request for one escape-hatch call.

    Raises:
        TypeError: an unknown key in ``options``, or ``body``/``files`` together with ``content``.
        ValueError: ``path`` is a full URL (the key must only go to ``base_url``).
    """
    if "://" in path:
        raise ValueError(
            f"client.get/post/... take a path relative to base_url, got a URL ({path.split('://')[0]}://...); "
            "use a separate client with that base_url"
        )
    opts = dict(options or {})
    unknown = sorted(set(opts) - _OPTION_KEYS)
    if unknown:
        raise TypeError(
            f"unknown request option(s): {', '.join(unknown)}; known: {', '.join(sorted(_OPTION_KEYS))}"
        )
    if content is not None and (body is not None or files):
        raise TypeError("Passing `content` together with `body` or `files` is not supported")
    headers = dict(opts.get("headers") or {})
    if opts.get("idempotency_key") and not any(name.lower() == "idempotency-key" for name in headers):
        headers["Idempotency-Key"] = str(opts["idempotency_key"])  # as openai: a header given wins
    if opts.get("extra_json"):
        body = {**(body or {}), **opts["extra_json"]}
    if files:
        uploads = [(name, read_file(value, field=name)) for name, value in files.items()]
        content, content_type = encode_multipart(form_fields(body or {}), uploads)
        headers = {"Content-Type": content_type, **headers}
        body = None
    has_body = method.upper() != "GET"
    return RequestOptions(
        method.upper(),
        path if path.startswith("/") else "/" + path,
        body=body if has_body and content is None else None,
        query=dict(opts["params"]) if opts.get("params") else None,
        content=content if has_body else None,
        extra_headers=headers or None,
        timeout=opts.get("timeout", NOT_GIVEN),
        max_retries=opts.get("max_retries"),
        stream=stream,
    )


def request_options(options: RequestOptions | Mapping[str, Any], stream: bool) -> RequestOptions:
    """``options`` of ``client.request``: our own ``RequestOptions``, or openai-style keys with ``method`` and ``url``.

    Raises:
        TypeError: unknown keys, or no ``method``/``url``.
    """
    if isinstance(options, RequestOptions):
        return options
    unknown = sorted(set(options) - _REQUEST_KEYS)
    if unknown or "method" not in options or "url" not in options:
        raise TypeError(
            f"request options need `method` and `url`{'; unknown: ' + ', '.join(unknown) if unknown else ''}"
        )
    rest = {key: value for key, value in options.items() if key in _OPTION_KEYS}
    return custom_options(
        str(options["method"]),
        str(options["url"]),
        body=options.get("json_data"),
        options=rest,
        files=options.get("files"),
        content=options.get("content"),
        stream=stream,
    )


def stream_item_type(cast_to: Any, stream_cls: Any) -> Any:
    """The chunk type of a streamed call: ``Stream[Chunk]`` as openai's ``stream_cls``, else ``cast_to``."""
    args = typing.get_args(stream_cls) if stream_cls is not None else ()
    return args[0] if args else cast_to


def _streamed(options: RequestOptions) -> RequestOptions:
    return dataclasses.replace(options, stream=True)


class SyncRequestMethods:
    """``get``/``post``/... of :class:`~holyclient.Client`."""

    _request: Any
    _stream: Any

    def _open_binary(self, options: RequestOptions) -> StreamedBinaryResponse:
        """Send ``options`` (retrying as usual) and hand back the response unread, for a binary body.

        Raises:
            APIStatusError: (a subclass of) when the server refuses, after retries.
        """

        client: Any = self  # the Client this mixin is part of

        def attempt() -> Any:
            exchange = client._sender.send(_streamed(options))
            request, response = exchange.request, exchange.response
            if response.status_code < 400:
                exchange.settle(None, None)
                return response
            try:
                content = response.read()
            finally:
                response.close()
            error = client._status_error(response, content, request)
            exchange.failed(error)
            raise error

        return StreamedBinaryResponse(client._policy.run(attempt, client._retries(options), client._sleep))

    def request(
        self,
        cast_to: Any,
        options: RequestOptions | Mapping[str, Any],
        *,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """Send ``options`` (openai's ``FinalRequestOptions`` keys or a ``RequestOptions``) and parse as ``cast_to``."""
        final = request_options(options, stream)
        if stream:
            return self._stream(final, stream_item_type(cast_to, stream_cls))
        return self._request(final, cast_to)

    def get(
        self,
        path: str,
        *,
        cast_to: Any,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """``GET path`` (relative to ``base_url``), parsed as ``cast_to``."""
        return self.request(
            cast_to,
            custom_options("GET", path, options=options, stream=stream),
            stream=stream,
            stream_cls=stream_cls,
        )

    def post(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        options: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """``POST path`` with a JSON ``body`` (or a multipart one with ``files``), parsed as ``cast_to``."""
        final = custom_options(
            "POST", path, body=body, options=options, files=files, content=content, stream=stream
        )
        return self.request(cast_to, final, stream=stream, stream_cls=stream_cls)

    def put(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        files: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """``PUT path``, as :meth:`post`."""
        return self.request(
            cast_to, custom_options("PUT", path, body=body, options=options, files=files, content=content)
        )

    def patch(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        files: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """``PATCH path``, as :meth:`post`."""
        return self.request(
            cast_to, custom_options("PATCH", path, body=body, options=options, files=files, content=content)
        )

    def delete(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """``DELETE path``."""
        return self.request(
            cast_to, custom_options("DELETE", path, body=body, options=options, content=content)
        )


class AsyncRequestMethods:
    """Async twins of :class:`SyncRequestMethods` (``await client.get(...)``)."""

    _request: Any
    _stream: Any

    async def _open_binary(self, options: RequestOptions) -> AsyncStreamedBinaryResponse:
        """Async twin of :meth:`SyncRequestMethods._open_binary`."""
        client: Any = self  # the AsyncClient this mixin is part of

        async def attempt() -> Any:
            exchange = await client._sender.asend(_streamed(options))
            request, response = exchange.request, exchange.response
            if response.status_code < 400:
                exchange.settle(None, None)
                return response
            try:
                content = await response.aread()
            finally:
                await response.aclose()
            error = client._status_error(response, content, request)
            exchange.failed(error)
            raise error

        return AsyncStreamedBinaryResponse(
            await client._policy.arun(attempt, client._retries(options), client._sleep)
        )

    async def request(
        self,
        cast_to: Any,
        options: RequestOptions | Mapping[str, Any],
        *,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.request`."""
        final = request_options(options, stream)
        if stream:
            return await self._stream(final, stream_item_type(cast_to, stream_cls))
        return await self._request(final, cast_to)

    async def get(
        self,
        path: str,
        *,
        cast_to: Any,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.get`."""
        final = custom_options("GET", path, options=options, stream=stream)
        return await self.request(cast_to, final, stream=stream, stream_cls=stream_cls)

    async def post(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        options: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.post`."""
        final = custom_options(
            "POST", path, body=body, options=options, files=files, content=content, stream=stream
        )
        return await self.request(cast_to, final, stream=stream, stream_cls=stream_cls)

    async def put(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        files: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.put`."""
        return await self.request(
            cast_to, custom_options("PUT", path, body=body, options=options, files=files, content=content)
        )

    async def patch(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        files: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.patch`."""
        return await self.request(
            cast_to, custom_options("PATCH", path, body=body, options=options, files=files, content=content)
        )

    async def delete(
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        content: bytes | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Async twin of :meth:`SyncRequestMethods.delete`."""
        return await self.request(
            cast_to, custom_options("DELETE", path, body=body, options=options, content=content)
        )
