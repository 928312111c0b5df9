"""Walking pages by hand (``iter_pages()``, ``has_next_page()``, ``next_page_info()``,
``get_next_page()``) as openai does, sync and async, on the cursor-paged files list: the same pages, the
same ``after`` cursors sent. On the last page (``has_more`` false) both SDKs' ``get_next_page()`` still
request the page after the last id (an empty one); on a page with no items both raise ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

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


def test_get_next_page_past_the_last_page_asks_for_the_page_after_its_last_id_like_openai(
    differential: Differential,
) -> None:
    def script(c: Any) -> None:
        c.files.create(file=("f.jsonl", JSONL), purpose="batch")
        only = c.files.list(limit=2)
        print(only.has_more, only.has_next_page(), only.next_page_info() is not None)
        after = only.get_next_page()
        print(after.data, after.has_more, after.has_next_page(), after.next_page_info())
        try:
            after.get_next_page()
        except RuntimeError as error:
            print(error)

    theirs, ours = differential.check_script(script)
    assert theirs.result.splitlines()[0] == "False False True"
    assert "please check `.has_next_page()`" in ours.result
    assert [r["query"].get("after") is not None for r in ours.requests if r["method"] == "GET"] == [
        False,
        True,
    ]


async def test_async_get_next_page_past_the_last_page_asks_for_the_page_after_its_last_id_like_openai(
    differential: Differential,
) -> None:
    async def script(c: Any) -> None:
        await c.files.create(file=("f.jsonl", JSONL), purpose="batch")
        only = await c.files.list(limit=2)
        print(only.has_more, only.has_next_page(), only.next_page_info())
        after = await only.get_next_page()
        print(after.data, after.has_more, after.has_next_page(), after.next_page_info())
        try:
            await after.get_next_page()
        except RuntimeError as error:
            print(error)

    await differential.acheck_script(script)


def test_next_page_info_names_the_cursor_like_openai(differential: Differential) -> None:
    def script(c: Any) -> None:
        for i in range(3):
            c.files.create(file=(f"f{i}.jsonl", JSONL), purpose="batch")
        first = c.files.list(limit=2)
        info = first.next_page_info()
        print(
            type(info).__name__,
            info.params == {"after": first.data[-1].id},
            repr(info).startswith("PageInfo("),
        )
        print(c.models.list().next_page_info())

    theirs, _ours = differential.check_script(script)
    assert theirs.result == "PageInfo True True\nNone\n"
