"""Pages at their edges: no next page after the last (a plain list, an empty cursor page, items without
an ``id`` to continue after), the error that says so, and ``for`` over an awaited async page."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient, Client
from holyclient._core._request import RequestOptions
from holyclient._send._pagination import AsyncCursorPage, SyncCursorPage
from holyclient.types.models import Model
from support import KEY

BASE = "http://127.0.0.1:9/v1"
MODELS: dict[str, Any] = {
    "object": "list",
    "data": [{"id": "m1", "object": "model", "created": 1, "owned_by": "o"}],
}
NO_NEXT = (
    "^No next page expected; please check `.has_next_page\\(\\)` before calling `.get_next_page\\(\\)`.$"
)
LIST = RequestOptions(method="GET", path="/files")


def _handler(_: Any) -> httpx2.Response:
    return httpx2.Response(200, json=MODELS)


def test_a_cursor_page_with_more_but_no_items_has_no_next_page() -> None:
    page = SyncCursorPage[Any].model_validate({"data": [], "has_more": True})._bind(object(), LIST)
    assert page.next_page_options() is None


def test_a_cursor_page_whose_last_item_has_no_id_has_no_next_page() -> None:
    page = SyncCursorPage[dict[str, Any]].model_validate({"data": [{"name": "x"}], "has_more": True})
    page._bind(object(), LIST)
    assert page.next_page_options() is None and not page.has_next_page()


def test_sync_get_next_page_after_the_last_page_says_to_check_has_next_page() -> None:
    http = httpx2.Client(transport=httpx2.MockTransport(_handler))
    with Client(api_key=KEY, base_url=BASE, http_client=http) as client:
        page = client.models.list()
        assert not page.has_next_page()
        with pytest.raises(RuntimeError, match=NO_NEXT):
            page.get_next_page()


async def test_async_get_next_page_after_the_last_page_says_to_check_has_next_page() -> None:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(_handler))
    async with AsyncClient(api_key=KEY, base_url=BASE, http_client=http) as client:
        page = await client.models.list()
        assert [model.id for model in page] == ["m1"]  # a plain ``for`` walks the awaited page
        with pytest.raises(RuntimeError, match=NO_NEXT):
            await page.get_next_page()


async def test_async_cursor_page_without_a_client_has_no_next_page_to_fetch() -> None:
    page = AsyncCursorPage[Model].model_validate({"data": [MODELS["data"][0]], "has_more": True})
    page._bind(None, LIST)
    assert page.next_page_options() is not None  # a cursor to follow, but no client to follow it with
    with pytest.raises(RuntimeError, match=NO_NEXT):
        await page.get_next_page()
