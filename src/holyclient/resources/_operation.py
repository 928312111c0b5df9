"""Each API operation declared once: method, path, body, response type, whether it streams.

A resource method is a thin shell: it names its parameters (for users, type checkers and the parity
test), hands ``locals()`` to its :class:`Operation`, and passes the resulting
:class:`~holyclient._core._request.RequestOptions` to the client, which does the I/O. The sync and async twins
therefore share every decision and differ only in ``await``.
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from .._core import NOT_GIVEN, RequestOptions, build_body, given_args
from .._send import AsyncCursorPage, AsyncPaginator, SyncCursorPage
from ..pricing import Charging, charging_for
from ._spec_params import ACCEPTED

if TYPE_CHECKING:
    from .._send import AsyncCallSite, SyncCallSite

ResponseT = TypeVar("ResponseT")
ChunkT = TypeVar("ChunkT")
AsyncPageT = TypeVar("AsyncPageT")
ItemT = TypeVar("ItemT")

#: Keyword arguments every method takes that shape the call rather than the body.
CALL_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout", "max_retries")


def _path_fields(path: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(path) if name)


def _flat(params: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Query parameters with nested objects spelled ``key[sub]=value``, as openai sends them
    (``chat.completions.list(metadata={"run": "a"})`` is ``?metadata[run]=a``)."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = f"{prefix}[{key}]" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flat(value, name))
        else:
            out[name] = value
    return out


def _path_value(name: str, value: Any) -> Any:
    """An id for the path; an empty one would silently address the collection instead (openai refuses it)."""
    if not value:
        raise ValueError(f"Expected a non-empty value for `{name}` but received {value!r}")
    return value


@dataclass(frozen=True)
class Operation(Generic[ResponseT]):
    """One endpoint: ``build(locals())`` turns a method's arguments into request options.

    Arguments named in ``path`` (``"/models/{model}"``) fill the path; the call options
    (:data:`CALL_OPTIONS`) shape the request; ``**params`` and every other argument form the JSON body
    of a POST, or the query string of a GET/DELETE. ``NOT_GIVEN`` values are left out.
    """

    method: str
    path: str
    cast_to: type[ResponseT]
    path_fields: tuple[str, ...] = field(init=False)
    accepted: frozenset[str] | None = field(init=False)
    """The keyword arguments the official spec defines for this operation (``None``: not checked)."""
    charging: Charging = field(init=False)
    """How a request to this endpoint is charged: its declaration in
    :data:`holyclient.pricing.ENDPOINTS` (see :mod:`holyclient.pricing._charging`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path_fields", _path_fields(self.path))
        object.__setattr__(self, "accepted", ACCEPTED.get(f"{self.method} {self.path}"))
        object.__setattr__(self, "charging", charging_for(self.method, self.path))

    def build(self, arguments: Mapping[str, Any]) -> RequestOptions:
        args = given_args(arguments)  # openai's sentinels count as not given
        pop = args.pop
        pop("self", None)
        pop("__class__", None)
        params = pop("params", None) or {}
        if params and self.accepted is not None and not params.keys() <= self.accepted:
            raise TypeError(self._unexpected(params.keys() - self.accepted))
        # the call options (CALL_OPTIONS): a "not given" one is its default (``timeout=None`` is no timeout)
        extra_headers, extra_query, extra_body = (
            pop("extra_headers", None),
            pop("extra_query", None),
            pop("extra_body", None),
        )
        timeout, max_retries = pop("timeout", NOT_GIVEN), pop("max_retries", None)
        extra_headers = None if extra_headers is NOT_GIVEN else extra_headers
        extra_query = None if extra_query is NOT_GIVEN else extra_query
        extra_body = None if extra_body is NOT_GIVEN else extra_body
        max_retries = None if max_retries is NOT_GIVEN else max_retries
        path = self.path
        if self.path_fields:
            path = path.format(**{name: _path_value(name, pop(name)) for name in self.path_fields})
        stream = pop("stream", NOT_GIVEN)
        has_body = self.method not in ("GET", "DELETE")
        fields = build_body({**args, **params} if params else args, extra_body if has_body else None)
        if stream is not NOT_GIVEN:  # an explicit ``stream=False`` is sent, as openai does
            fields["stream"] = stream
        query = dict(extra_query or {}) if has_body else {**_flat(fields), **(extra_query or {})}
        return RequestOptions(
            self.method,
            path,
            body=fields if has_body else None,
            query=query or None,
            extra_headers=extra_headers,
            timeout=timeout,
            max_retries=max_retries,
            stream=bool(stream),
        )

    def _unexpected(self, names: set[str]) -> str:
        parts = []
        for name in sorted(names):
            close = difflib.get_close_matches(name, sorted(self.accepted or ()), n=1)
            parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return (
            f"{self.method} {self.path} got unexpected keyword argument(s) {', '.join(parts)}. "
            "The OpenAI API does not define them; send provider-specific fields with extra_body={...}."
        )


@dataclass(frozen=True)
class StreamingOperation(Operation[ResponseT], Generic[ResponseT, ChunkT]):
    """An operation that answers with ``chunk_cls`` server-sent events when called with ``stream=True``."""

    chunk_cls: type[ChunkT]


@dataclass(frozen=True)
class PageOperation(Operation[ResponseT], Generic[ResponseT, AsyncPageT]):
    """A list operation: ``cast_to`` is the sync page class, ``async_page`` the async one."""

    async_page: type[AsyncPageT]


class SyncAPIResource:
    """Base of the sync resources: holds the client that does the I/O."""

    def __init__(self, client: SyncCallSite) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        """This resource returning raw responses (``client.chat.completions.with_raw_response.create``)."""
        return type(self)(self._client.with_raw_response)

    @property
    def with_streaming_response(self) -> Any:
        """This resource returning streamed-response context managers, as openai's."""
        return type(self)(self._client.with_streaming_response)


class AsyncAPIResource:
    """Base of the async resources: holds the client that does the I/O."""

    def __init__(self, client: AsyncCallSite) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        """This resource returning raw responses (``await ....with_raw_response.create(...)``)."""
        return type(self)(self._client.with_raw_response)

    @property
    def with_streaming_response(self) -> Any:
        """This resource returning ``async with`` context managers over the response, as openai's."""
        return self._client._streaming_view(type(self)(self._client._streaming_client()))


class SyncCursorList(SyncAPIResource, Generic[ItemT]):
    """A resource whose ``list()`` is openai's cursor page of ``ItemT`` (files, batches, stored chat
    completions): the method written once, the operation named by the resource's ``_list``."""

    _list: ClassVar[PageOperation[SyncCursorPage[Any], AsyncCursorPage[Any]]]

    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> SyncCursorPage[ItemT]:
        """The resource's objects, a page at a time (``limit``, ``after`` and its filters: ``order``,
        ``purpose``, ``model``, ``metadata`` ...); iterating the page walks every page."""
        return self._client._get_page(self._list.build(locals()), self._list.cast_to)


class AsyncCursorList(AsyncAPIResource, Generic[ItemT]):
    """The async twin of :class:`SyncCursorList`."""

    _list: ClassVar[PageOperation[SyncCursorPage[Any], AsyncCursorPage[Any]]]

    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncPaginator[AsyncCursorPage[ItemT], ItemT]:
        """Async twin of :meth:`SyncCursorList.list`: ``await`` it for the first page, ``async for`` for
        every object."""
        return self._client._get_page(self._list.build(locals()), self._list.async_page)
