"""Walking pages by hand (``iter_pages()``, ``has_next_page()``, ``get_next_page()``) as openai does,
sync and async, on the cursor-paged files list: the same pages, the same ``after`` cursors sent.

One documented difference, kept out of the shared apps: on the last page (``has_more`` false) openai's
``get_next_page()`` still requests a page after the last id, holyclient's raises ``RuntimeError`` as
both SDKs do when a page has no items (check ``has_next_page()`` first, as both document).
"""

from __future__ import annotations

from typing import Any

import pytest

from differential.conftest import Differential

JSONL = b'{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m"}}\n'


def by_hand(first: Any) -> dict[str, Any]:
    second = first.get_next_page()
    return {"first": [f.id for f in first.data], "second": [f.id for f in second.data]}


def test_iter_pages_and_get_next_page_walk_the_pages_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        for i in range(5):
            c.files.create(file=(f"f{i}.jsonl", JSONL), purpose="batch")
        first = c.files.list(limit=2)
        pages = [[f.id for f in page.data] for page in first.iter_pages()]
        last = first.get_next_page().get_next_page()
        return {"pages": pages, **by_hand(first), "has_next": [first.has_next_page(), last.has_next_page()]}

    _theirs, ours = differential.check(app)
    assert [len(page) for page in ours.result["pages"]] == [2, 2, 1]
    assert ours.result["second"] == ours.result["pages"][1] and ours.result["has_next"] == [True, False]
    cursors = [r["query"].get("after") for r in ours.requests if r["method"] == "GET"]
    first_page = ours.result["pages"][0]
    assert cursors[:3] == [None, [first_page[-1]], [ours.result["pages"][1][-1]]]


async def test_async_iter_pages_and_get_next_page_walk_the_pages_like_openai(
    differential: Differential,
) -> None:
    async def app(c: Any) -> Any:
        for i in range(5):
            await c.files.create(file=(f"f{i}.jsonl", JSONL), purpose="batch")
        first = await c.files.list(limit=2)
        pages = [[f.id for f in page.data] async for page in first.iter_pages()]
        second = await first.get_next_page()
        last = await second.get_next_page()
        return {
            "pages": pages,
            "second": [f.id for f in second.data],
            "has_next": [first.has_next_page(), second.has_next_page(), last.has_next_page()],
        }

    _theirs, ours = await differential.acheck(app)
    assert [len(page) for page in ours.result["pages"]] == [2, 2, 1]
    assert ours.result["second"] == ours.result["pages"][1]
    assert ours.result["has_next"] == [True, True, False]


def test_get_next_page_on_the_last_page_raises_instead_of_sending(differential: Differential) -> None:
    with differential.holyclient_client() as client:
        client.files.create(file=("f.jsonl", JSONL), purpose="batch")
        only = client.files.list(limit=2)
        sent = len(differential.server.requests)
        assert not only.has_next_page()
        with pytest.raises(RuntimeError, match="has_next_page"):
            only.get_next_page()
    assert len(differential.server.requests) == sent
