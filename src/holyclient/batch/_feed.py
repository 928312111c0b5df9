"""Where the batch runner's workers take their next request: the input as ready requests, shared.

A task per request cost the fast path more CPU than anything of ours but the wire (anyio spawns each one
into the group's cancel scope and reaps it after): :class:`Feed` lets a few long-lived workers take
requests one after another instead. It also owns what turns input items into requests -- a ``custom_id``
for a bare body, and packing when asked -- so that a sync input and an async one read the same way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

import anyio

from .._constants import CHAT_COMPLETIONS_URL
from ._pack import Packer
from ._types import BatchRequest

RequestLike = BatchRequest | Mapping[str, Any]
_END: Any = object()  # the input's end (``None`` is an item: a bad one, refused as any other)


def as_request(item: RequestLike, position: int) -> BatchRequest:
    """A :class:`BatchRequest` from one, from a Batch API input line, or from a bare request body.

    A bare body (a mapping with ``messages``) gets its 1-based ``position`` as ``custom_id``.
    """
    if isinstance(item, BatchRequest):
        return item
    if "custom_id" in item and "body" in item:
        return BatchRequest(
            str(item["custom_id"]), item["body"], str(item.get("url") or CHAT_COMPLETIONS_URL)
        )
    if "messages" in item:
        return BatchRequest(str(position), item)
    raise TypeError("a batch request needs custom_id and body, or is a chat request body with messages")


class Feed:
    """The input's requests, taken one at a time by any number of workers, in input order.

    A sync input is read inline (taking never yields, so no two workers can interleave); an async one
    under a lock, since an async iterator must not be advanced by two tasks at once. It also counts the
    workers, so that the runner starts one more only while every worker is busy
    (:meth:`wants_worker`).
    """

    def __init__(
        self, requests: Iterable[RequestLike] | AsyncIterable[RequestLike], pack: tuple[int, int] | None
    ) -> None:
        self._packer = Packer(*pack) if pack is not None else None
        self._ready: deque[BatchRequest] = deque()
        self._position = 0
        self._sync: Iterator[RequestLike] | None = None
        self._async: AsyncIterator[RequestLike] | None = None
        if isinstance(requests, AsyncIterable):
            self._async = aiter(requests)
            self._lock = anyio.Lock()
        else:
            self._sync = iter(requests)
        self._exhausted = False
        self.workers = 0  # started and not yet out of requests
        self.taking = 0  # of those, the ones not holding a request

    def _add(self, item: RequestLike) -> None:
        """One input item into ready requests (at the input's end, the packer's rest is ready)."""
        if item is _END:
            self._exhausted = True
            self._ready.extend(self._packer.flush() if self._packer is not None else ())
            return
        self._position += 1
        request = as_request(item, self._position)
        if self._packer is None:
            self._ready.append(request)
        else:
            self._ready.extend(self._packer.add(request))

    async def take(self) -> BatchRequest | None:
        """The next request, or ``None`` when there are no more (the worker then stops)."""
        request = await self._next()
        self.taking -= 1
        if request is None:
            self.workers -= 1
        return request

    def done(self) -> None:
        """A worker finished its request and goes to take another."""
        self.taking += 1

    def wants_worker(self, most: int) -> bool:
        """Whether to start another worker: every one holds a request, and fewer than ``most`` run."""
        if self.taking or self.workers >= most or (self._exhausted and not self._ready):
            return False
        self.workers += 1
        self.taking += 1
        return True

    async def _next(self) -> BatchRequest | None:
        if self._sync is not None:
            while not self._ready and not self._exhausted:
                self._add(next(self._sync, _END))
            return self._ready.popleft() if self._ready else None
        assert self._async is not None
        async with self._lock:
            while not self._ready and not self._exhausted:
                self._add(await anext(self._async, _END))
            return self._ready.popleft() if self._ready else None
