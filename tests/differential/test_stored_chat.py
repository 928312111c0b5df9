"""Stored chat completions, differentially: ``chat.completions.list/retrieve/update/delete`` and
``chat.completions.messages.list`` through openai and holyclient on the local server, sync and async."""

from __future__ import annotations

from typing import Any

from differential.conftest import Differential


def _store_three(c: Any) -> list[str]:
    ids = []
    for i, model in enumerate(("gpt-4.1", "gpt-4o", "gpt-4.1")):
        completion = c.chat.completions.create(
            model=model,
            messages=[
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": f"question {i}"},
            ],
            store=True,
            metadata={"run": "a" if i < 2 else "b"},
        )
        ids.append(completion.id)
    c.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "not stored"}])
    return ids


def test_list_walks_every_page_and_filters_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        _store_three(c)
        first = c.chat.completions.list(limit=2)
        return {
            "all": [x.id for x in c.chat.completions.list(limit=2)],  # iterating fetches the next page
            "first_page": first.data,
            "has_more": first.has_next_page(),
            "by_model": [x.model for x in c.chat.completions.list(model="gpt-4.1")],
            "by_metadata": [x.metadata for x in c.chat.completions.list(metadata={"run": "b"})],
            "desc": [x.id for x in c.chat.completions.list(order="desc")],
        }

    _theirs, ours = differential.check(app)
    assert len(ours.result["all"]) == 3
    assert ours.result["by_metadata"] == [{"run": "b"}]


def test_retrieve_update_delete_and_messages_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        ids = _store_three(c)
        retrieved = c.chat.completions.retrieve(ids[0])
        updated = c.chat.completions.update(ids[0], metadata={"reviewed": "yes"})
        messages = c.chat.completions.messages.list(ids[1], limit=1)
        deleted = c.chat.completions.delete(ids[2])
        try:
            c.chat.completions.retrieve(ids[2])
        except Exception as exc:  # the 404 is part of the result
            missing = type(exc).__name__
        return {
            "retrieved": retrieved,
            "updated": updated,
            "messages": [m for m in messages],
            "first_message_page": messages.data,
            "deleted": deleted,
            "missing": missing,
            "left": [x.id for x in c.chat.completions.list()],
        }

    _theirs, ours = differential.check(app)
    assert ours.result["deleted"]["deleted"] is True
    assert [m["role"] for m in ours.result["messages"]] == ["system", "user"]
    assert ours.result["missing"] == "NotFoundError"


def test_a_streamed_completion_with_store_is_stored_as_openai_sees_it(differential: Differential) -> None:
    def app(c: Any) -> Any:
        chunks = list(
            c.chat.completions.create(
                model="gpt-4.1",
                messages=[{"role": "user", "content": "stream and store"}],
                stream=True,
                store=True,
            )
        )
        return c.chat.completions.retrieve(chunks[0].id).choices[0].message.content

    _theirs, ours = differential.check(app)
    assert ours.result == "Echo: stream and store"


async def test_async_stored_completions_match_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        ids = []
        for i in range(3):
            completion = await c.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": f"q{i}"}], store=True
            )
            ids.append(completion.id)
        listed = [x.id async for x in c.chat.completions.list(limit=2)]
        page = await c.chat.completions.list(limit=2)
        messages = [m async for m in c.chat.completions.messages.list(ids[0])]
        updated = await c.chat.completions.update(ids[1], metadata={"k": "v"})
        deleted = await c.chat.completions.delete(ids[2])
        return {
            "listed": listed,
            "page": page.data,
            "more": page.has_next_page(),
            "messages": messages,
            "updated": updated,
            "deleted": deleted,
            "retrieved": await c.chat.completions.retrieve(ids[0]),
        }

    _theirs, ours = await differential.acheck(app)
    assert len(ours.result["listed"]) == 3
