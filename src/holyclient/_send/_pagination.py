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


#: openai's words when a page has no next page to fetch.
NO_NEXT_PAGE = "No next page expected; please check `.has_next_page()` before calling `.get_next_page()`."


class PageInfo:
    """What the next page's request changes: its query ``params`` (a cursor), as openai's ``PageInfo``
    (which may also give a ``url`` or a ``json`` body; no list of this API pages that way)."""

    def __init__(self, *, params: dict[str, Any]) -> None:
        self.params = params

    def __repr__(self) -> str:
        return f"{type(self).__name__}(params={self.params})"


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

    def next_page_info(self) -> PageInfo | None:
        """What to ask for the next page, or ``None`` when there is none to ask for (a plain list)."""
        return None

    def has_next_page(self) -> bool:
        return bool(self.data) and self.next_page_info() is not None

    def next_page_options(self) -> RequestOptions | None:
        """The request for the page :meth:`next_page_info` describes, or ``None``.

        As in openai, this follows the cursor even on a page that says ``has_more: false`` (the
        next page is then empty): :meth:`has_next_page` is what reads ``has_more``.
        """
        info = self.next_page_info()
        if info is None or self._options is None:
            return None
        return dataclasses.replace(self._options, query={**(self._options.query or {}), **info.params})


class _CursorMixin:
    """Cursor paging: ``has_more`` and ``after=<id of the last item>``, as the files and batches lists."""

    has_more: bool | None
    data: list[Any]

    def next_page_info(self) -> PageInfo | None:
        if not self.data:
            return None
        last = getattr(self.data[-1], "id", None)
        return None if last is None else PageInfo(params={"after": last})

    def has_next_page(self) -> bool:
        if self.has_more is False:
            return False
        return bool(self.data) and self.next_page_info() is not None


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

        As in openai, a cursor page that says ``has_more: false`` still asks for the page after its
        last item (an empty one); :meth:`has_next_page` tells whether there is more.

        Raises:
            RuntimeError: when there is nothing to ask for (no items, or no cursor to follow).
        """
        options = self.next_page_options()
        if options is None or self._client is None:
            raise RuntimeError(NO_NEXT_PAGE)
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

        As in openai, a cursor page that says ``has_more: false`` still asks for the page after its
        last item (an empty one); :meth:`has_next_page` tells whether there is more.

        Raises:
            RuntimeError: when there is nothing to ask for (no items, or no cursor to follow).
        """
        options = self.next_page_options()
        if options is None or self._client is None:
            raise RuntimeError(NO_NEXT_PAGE)
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
