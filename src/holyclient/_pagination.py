"""List results as openai's pages: iterate a page for every item of every page (auto-paging).

``client.files.list()`` returns a :class:`SyncCursorPage`; ``for f in page`` walks all pages, fetching
the next one (``after=<last id>``) only when the previous is used up. The async client returns an
:class:`AsyncPaginator`: ``await`` it for the first page, or ``async for`` over it for every item.
Deciding whether and how to fetch the next page is plain data (:func:`next_page_options`); the sync
and async pages only send.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Generator, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import Field

from ._base import RequestOptions
from .types._base import BaseModel

if TYPE_CHECKING:
    from ._client import AsyncClient, Client

T = TypeVar("T", bound=BaseModel)


class _PageData(BaseModel, Generic[T]):
    """One page as the API sends it (``data``, ``has_more``, ``first_id``/``last_id``)."""

    object: str = "list"
    data: list[T] = Field(default_factory=list)
    has_more: bool | None = None
    first_id: str | None = None
    last_id: str | None = None


@lru_cache(maxsize=64)
def page_model(item_cls: type[BaseModel]) -> type[_PageData[Any]]:
    """The page model of ``item_cls``, built once per item class."""
    return _PageData[item_cls]  # type: ignore[valid-type]


def next_page_options(
    options: RequestOptions, page: _PageData[Any], *, cursor: bool
) -> RequestOptions | None:
    """The request for the page after ``page``, or None when it is the last (openai's rule)."""
    if not cursor or page.has_more is False or not page.data:
        return None
    last_id = getattr(page.data[-1], "id", None)
    if last_id is None:
        return None
    return dataclasses.replace(options, query={**(options.query or {}), "after": last_id})


class _BasePage(Generic[T]):
    _cursor = True

    def __init__(self, page: _PageData[T], options: RequestOptions, item_cls: type[T]) -> None:
        self._page = page
        self._options = options
        self._item_cls = item_cls

    @property
    def data(self) -> list[T]:
        return self._page.data

    @property
    def has_more(self) -> bool | None:
        return self._page.has_more

    @property
    def object(self) -> str:
        return self._page.object

    def next_page_info(self) -> RequestOptions | None:
        return next_page_options(self._options, self._page, cursor=self._cursor)

    def has_next_page(self) -> bool:
        return self.next_page_info() is not None

    def to_dict(self) -> dict[str, Any]:
        return self._page.to_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data={self.data!r}, has_more={self.has_more!r})"


class SyncCursorPage(_BasePage[T]):
    """A page of a cursor-paginated list (files, batches); iterating it yields every item of every page."""

    def __init__(
        self, client: Client, page: _PageData[T], options: RequestOptions, item_cls: type[T]
    ) -> None:
        super().__init__(page, options, item_cls)
        self._client = client

    @classmethod
    def fetch(cls, client: Client, options: RequestOptions, item_cls: type[T]) -> SyncCursorPage[T]:
        return cls(client, client._request(options, page_model(item_cls)), options, item_cls)

    def get_next_page(self) -> SyncCursorPage[T]:
        """The next page.

        Raises:
            RuntimeError: this is the last page (check :meth:`has_next_page` first).
        """
        options = self.next_page_info()
        if options is None:
            raise RuntimeError("No next page expected; check `.has_next_page()` before `.get_next_page()`.")
        return self.fetch(self._client, options, self._item_cls)

    def iter_pages(self) -> Iterator[SyncCursorPage[T]]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.get_next_page()

    def __iter__(self) -> Generator[T, None, None]:
        for page in self.iter_pages():
            yield from page.data


class SyncPage(SyncCursorPage[T]):
    """A list that comes in one page (``models.list``): iterating yields its items, no further request."""

    _cursor = False


class AsyncCursorPage(_BasePage[T]):
    """Async twin of :class:`SyncCursorPage`: ``async for`` yields every item of every page."""

    def __init__(
        self, client: AsyncClient, page: _PageData[T], options: RequestOptions, item_cls: type[T]
    ) -> None:
        super().__init__(page, options, item_cls)
        self._client = client

    @classmethod
    async def fetch(
        cls, client: AsyncClient, options: RequestOptions, item_cls: type[T]
    ) -> AsyncCursorPage[T]:
        return cls(client, await client._request(options, page_model(item_cls)), options, item_cls)

    async def get_next_page(self) -> AsyncCursorPage[T]:
        """The next page.

        Raises:
            RuntimeError: this is the last page (check :meth:`has_next_page` first).
        """
        options = self.next_page_info()
        if options is None:
            raise RuntimeError("No next page expected; check `.has_next_page()` before `.get_next_page()`.")
        return await self.fetch(self._client, options, self._item_cls)

    async def iter_pages(self) -> AsyncIterator[AsyncCursorPage[T]]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = await page.get_next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.data:
                yield item


class AsyncPage(AsyncCursorPage[T]):
    """Async twin of :class:`SyncPage`."""

    _cursor = False


class AsyncPaginator(Generic[T]):
    """What an async ``list()`` returns: ``await`` it for the first page, ``async for`` it for every item."""

    def __init__(
        self,
        client: AsyncClient,
        options: RequestOptions,
        item_cls: type[T],
        page_cls: type[AsyncCursorPage[T]] = AsyncCursorPage,
    ) -> None:
        self._client = client
        self._options = options
        self._item_cls = item_cls
        self._page_cls = page_cls

    def __await__(self) -> Generator[Any, None, AsyncCursorPage[T]]:
        return self._page_cls.fetch(self._client, self._options, self._item_cls).__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        page = await self
        async for item in page:
            yield item
