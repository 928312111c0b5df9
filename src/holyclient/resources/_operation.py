"""Each API operation declared once: method, path, body, response type, whether it streams.

A resource method is a thin shell: it names its parameters (for users, type checkers and the parity
test), hands ``locals()`` to its :class:`Operation`, and passes the resulting
:class:`~holyclient._base.RequestOptions` to the client, which does the I/O. The sync and async twins
therefore share every decision and differ only in ``await``.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._base import NOT_GIVEN, RequestOptions, build_body

if TYPE_CHECKING:
    from .._client import AsyncClient, Client

ResponseT = TypeVar("ResponseT")
ChunkT = TypeVar("ChunkT")

#: Keyword arguments every method takes that shape the call rather than the body.
CALL_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout", "max_retries")
_CALL_DEFAULTS: dict[str, Any] = {"timeout": NOT_GIVEN}  # ``timeout=None`` means "no timeout"


def _path_fields(path: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(path) if name)


def _materialize(value: Any) -> Any:
    """Generators and other one-shot iterables (``messages=(m for m in ...)``) become lists."""
    if isinstance(value, (str, bytes, list, dict, Mapping)) or not isinstance(value, Iterable):
        return value
    return list(value)


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "path_fields", _path_fields(self.path))

    def build(self, arguments: Mapping[str, Any]) -> RequestOptions:
        args = dict(arguments)
        args.pop("self", None)
        args.pop("__class__", None)
        params = args.pop("params", None) or {}
        call = {name: args.pop(name, _CALL_DEFAULTS.get(name)) for name in CALL_OPTIONS}
        path = self.path.format(**{name: args.pop(name) for name in self.path_fields})
        stream = bool(args.pop("stream", False))
        fields = build_body({k: _materialize(v) for k, v in {**args, **params}.items()}, call["extra_body"])
        if stream:
            fields["stream"] = True
        has_body = self.method not in ("GET", "DELETE")
        query = dict(call["extra_query"] or {}) if has_body else {**fields, **(call["extra_query"] or {})}
        return RequestOptions(
            self.method,
            path,
            body=fields if has_body else None,
            query=query or None,
            extra_headers=call["extra_headers"],
            timeout=call["timeout"],
            max_retries=call["max_retries"],
            stream=stream,
        )


@dataclass(frozen=True)
class StreamingOperation(Operation[ResponseT], Generic[ResponseT, ChunkT]):
    """An operation that answers with ``chunk_cls`` server-sent events when called with ``stream=True``."""

    chunk_cls: type[ChunkT]


class SyncAPIResource:
    """Base of the sync resources: holds the client that does the I/O."""

    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncAPIResource:
    """Base of the async resources: holds the client that does the I/O."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
