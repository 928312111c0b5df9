"""A stored response's input items (``client.responses.input_items.list``) read as openai reads them: a
user's message is a ``ResponseInputMessageItem`` of ``ResponseInputText`` / ``ResponseInputImage`` parts,
the assistant's an output message, a tool's result a ``ResponseFunctionToolCallOutputItem``; each prints
and dumps as openai's."""

from __future__ import annotations

from typing import Any

from differential.conftest import Differential

INPUT: list[dict[str, Any]] = [
    {"role": "developer", "content": "Be brief."},
    {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "What is in this picture?"},
            {"type": "input_image", "image_url": "https://example.com/cat.png"},
        ],
    },
    {"role": "assistant", "content": "A cat."},
    {"type": "function_call_output", "call_id": "call_1", "output": "42"},
]


def show(items: Any) -> None:
    for item in items:
        print(type(item).__name__, [type(part).__name__ for part in getattr(item, "content", None) or []])
        print(item)
        print(item.model_dump(exclude_unset=True))


def test_input_items_are_openais_classes_and_print_as_openais(differential: Differential) -> None:
    def script(c: Any) -> None:
        response = c.responses.create(model="gpt-4.1", input=INPUT)
        page = c.responses.input_items.list(response.id, order="asc")
        show(page.data)
        print(page.has_more, page.has_next_page())
        show(c.responses.input_items.list(c.responses.create(model="gpt-4.1", input="hi").id))

    theirs, _ours = differential.check_script(script)
    assert "ResponseInputMessageItem ['ResponseInputText', 'ResponseInputImage']" in theirs.result
    assert "ResponseFunctionToolCallOutputItem []" in theirs.result


async def test_async_input_items_are_openais_classes_and_print_as_openais(differential: Differential) -> None:
    async def script(c: Any) -> None:
        response = await c.responses.create(model="gpt-4.1", input=INPUT)
        show([item async for item in c.responses.input_items.list(response.id)])

    theirs, _ours = await differential.acheck_script(script)
    assert "ResponseInputMessageItem ['ResponseInputText']" in theirs.result
