"""Plain openai: ``client.as_openai()`` used as an ``openai.OpenAI`` (docs/frameworks/index.md)."""

from __future__ import annotations

from typing import Any

import openai

USER = [{"role": "user", "content": "hello"}]


def versions() -> dict[str, str]:
    return {"openai": openai.__version__}


def wire(client: Any, aclient: Any) -> Any:
    # recipe
    sync = client.as_openai()  # a genuine openai.OpenAI
    # end recipe
    return sync


def call(sync: Any) -> str:
    return str(sync.chat.completions.create(model="gpt-4.1", messages=USER).choices[0].message.content)


def stream(sync: Any) -> list[str]:
    chunks = list(sync.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))
    assert all(chunk.choices for chunk in chunks), "a chunk without choices reached the caller"
    return [chunk.choices[0].delta.content or "" for chunk in chunks]


def structured(sync: Any) -> Any:
    completion = sync.chat.completions.parse(
        model="gpt-4.1",
        messages=USER,
        response_format={
            "type": "json_schema",
            "json_schema": {
                "name": "person",
                "schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            },
        },
    )
    return completion.choices[0].message.content


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """openai's own ``parse()`` with a pydantic class: ``response_format`` ``json_schema``."""
    from pydantic import BaseModel

    class Person(BaseModel):
        name: str

    completion = client.as_openai().chat.completions.parse(
        model=model, messages=[{"role": "user", "content": "a person called Ada"}], response_format=Person
    )
    return completion.choices[0].message.parsed.model_dump()
