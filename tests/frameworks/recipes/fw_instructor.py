"""instructor: the recipe of docs/frameworks/instructor.md."""

from __future__ import annotations

from typing import Any

import instructor
import openai
from pydantic import BaseModel


def versions() -> dict[str, str]:
    return {"openai": openai.__version__, "instructor": instructor.__version__}


class Person(BaseModel):
    name: str


def wire(client: Any, aclient: Any) -> Any:
    # recipe
    typed = instructor.from_openai(client.as_openai())
    # end recipe
    return typed


def call(typed: Any) -> str:
    person = typed.chat.completions.create(
        model="gpt-4.1", response_model=Person, messages=[{"role": "user", "content": "a person called Ada"}]
    )
    return str(person.name)


def stream(typed: Any) -> list[str]:
    partials = typed.chat.completions.create_partial(
        model="gpt-4.1", response_model=Person, messages=[{"role": "user", "content": "a person called Ada"}]
    )
    return [str(partial.name) for partial in partials]


def structured(typed: Any) -> Any:
    people = typed.chat.completions.create_iterable(
        model="gpt-4.1", response_model=Person, messages=[{"role": "user", "content": "Ada and Alan"}]
    )
    return [person.model_dump() for person in people]


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """instructor's default mode (a tool call) and its ``JSON_SCHEMA`` mode (``response_format``) on ``model``."""
    messages = [{"role": "user", "content": "a person called Ada"}]
    tools = instructor.from_openai(client.as_openai())
    schema = instructor.from_openai(client.as_openai(), mode=instructor.Mode.JSON_SCHEMA)
    return {
        "tools": tools.chat.completions.create(
            model=model, response_model=Person, messages=messages
        ).model_dump(),
        "json_schema": schema.chat.completions.create(
            model=model, response_model=Person, messages=messages
        ).model_dump(),
    }
