"""List responses that page, as openai's ``SyncPage`` / ``SyncCursorPage`` and their async twins.

A page is a response model (``data``, ``object``, ``has_more``) that remembers the client and request
options it came from. Deciding the next page's options is pure (:meth:`BasePage.next_page_options`);
the sync and async pages only fetch it. Iterating a page (``for`` / ``async for``) yields every item of
this page and the following ones. Async ``list()`` methods return an :class:`AsyncPaginator`, which is
both awaitable (the first page) and async-iterable (every item), as in openai.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import Any, Generic, Self, TypeVar

from pydantic import Field, PrivateAttr

from .._core import RequestOptions
from ..types._model import BaseModel
from ..types.models import Model

ItemT = TypeVar("ItemT")
PageT = TypeVar("PageT", bound="BaseAsyncPage[Any]")


class BasePage(BaseModel, Generic[ItemT]):
    """One page of a list response.

    The fields are openai's, in openai's order, so that a page prints and dumps as openai's does:
    ``data`` then ``object`` on a plain page, ``data`` then ``has_more`` on a cursor page.
    """

    data: list[ItemT] = Field(default_factory=list)
    _client: Any = PrivateAttr(default=None)
    _options: RequestOptions | None = PrivateAttr(default=None)

    def _bind(self, client: Any, options: RequestOptions) -> Self:
        self._client, self._options = client, options
        return self

    def next_page_options(self) -> RequestOptions | None:
        """The request for the next page, or ``None`` when this is the last one (a plain list)."""
        return None

    def has_next_page(self) -> bool:
        return bool(self.data) and self.next_page_options() is not None


class _CursorMixin:
    """Cursor paging: ``has_more`` and ``after=<id of the last item>``, as the files and batches lists."""

    has_more: bool | None
    data: list[Any]
    _options: RequestOptions | None

    def next_page_options(self) -> RequestOptions | None:
        if not self.has_more or not self.data or self._options is None:
            return None
        last = getattr(self.data[-1], "id", None)
        if last is None:
            return None
        query = {**(self._options.query or {}), "after": last}
        return dataclasses.replace(self._options, query=query)


class BaseSyncPage(BasePage[ItemT]):
    """A sync page; ``for item in page`` walks this page and every following one."""

    def __iter__(self) -> Iterator[ItemT]:  # type: ignore[override]
        for page in self.iter_pages():
            yield from page.data

    def __len__(self) -> int:
        return len(self.data)

    def iter_pages(self) -> Iterator[Self]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.get_next_page()

    def get_next_page(self) -> Self:
        """Fetch the next page.

        Raises:
            RuntimeError: when there is none (check :meth:`has_next_page`).
        """
        options = self.next_page_options()
        if options is None or self._client is None:
            raise RuntimeError("No next page; check has_next_page() first.")
        page: Self = self._client._request(options, type(self))
        return page._bind(self._client, options)


class SyncPage(BaseSyncPage[ItemT]):
    """A sync page of a plain list (``/models``): everything is on this page."""

    object: str = "list"


class SyncCursorPage(_CursorMixin, BaseSyncPage[ItemT]):
    """A sync page with ``has_more`` cursor paging."""

    has_more: bool | None = None


class BaseAsyncPage(BasePage[ItemT]):
    """An async page; ``async for item in page`` walks this page and every following one."""

    async def __aiter__(self) -> AsyncIterator[ItemT]:
        async for page in self.iter_pages():
            for item in page.data:
                yield item

    def __iter__(self) -> Iterator[ItemT]:  # type: ignore[override]
        """This page's items only (fetching more needs ``async for``); kept for ``for m in await ...``."""
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    async def iter_pages(self) -> AsyncIterator[Self]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = await page.get_next_page()

    async def get_next_page(self) -> Self:
        """Fetch the next page.

        Raises:
            RuntimeError: when there is none (check :meth:`has_next_page`).
        """
        options = self.next_page_options()
        if options is None or self._client is None:
            raise RuntimeError("No next page; check has_next_page() first.")
        page: Self = await self._client._request(options, type(self))
        return page._bind(self._client, options)


class AsyncPage(BaseAsyncPage[ItemT]):
    """An async page of a plain list (``/models``): everything is on this page."""

    object: str = "list"


class AsyncCursorPage(_CursorMixin, BaseAsyncPage[ItemT]):
    """An async page with ``has_more`` cursor paging."""

    has_more: bool | None = None


class AsyncPaginator(Generic[PageT, ItemT]):
    """What async ``list()`` returns: ``await`` it for the first page, or ``async for`` every item."""

    def __init__(self, fetch: Callable[[], Awaitable[PageT]]) -> None:
        self._fetch = fetch

    def __await__(self) -> Generator[Any, None, PageT]:
        return self._fetch().__await__()

    async def __aiter__(self) -> AsyncIterator[ItemT]:
        page = await self._fetch()
        async for item in page:
            yield item


#: The ``/models`` listing: openai's ``SyncPage[Model]`` (the name is kept for code written before).
ModelList = SyncPage[Model]
