"""CrewAI (crewai, on openai 2.x): the recipe of docs/frameworks/crewai.md.

CrewAI's native OpenAI provider builds a sync and an async openai client from one ``client_params``:
``holyclient.openai_compat.shared_http_client(client, aclient)`` is the one HTTP client both accept.
"""

from __future__ import annotations

from typing import Any

import openai
from pydantic import BaseModel


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"openai": openai.__version__, "crewai": version("crewai")}


def wire(client: Any, aclient: Any) -> Any:
    from crewai import LLM

    from holyclient.openai_compat import shared_http_client

    # recipe
    llm = LLM(
        model="openai/gpt-4.1",
        base_url=str(client.base_url),
        api_key="unused",  # holyclient adds its own key
        client_params={"http_client": shared_http_client(client, aclient)},
    )
    # end recipe
    return llm


def call(llm: Any) -> str:
    return str(llm.call("hello"))


async def stream(llm: Any) -> list[str]:
    """``acall`` with ``stream=True``: the async client, streaming."""
    llm.stream = True
    return [str(await llm.acall("hello"))]


class Person(BaseModel):
    name: str


def structured(llm: Any) -> Any:
    return _person(llm.call("a person called Ada", response_model=Person))


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """``LLM.call(..., response_model=...)``, CrewAI's structured output (openai's ``parse()``, a JSON
    schema), sync and async, on ``model``."""
    import asyncio

    llm = wire(client, aclient)
    llm = type(llm)(
        **{**llm.model_dump(exclude={"model"}), "model": model, "client_params": llm.client_params}
    )
    sync = _person(llm.call("a person called Ada", response_model=Person))
    asynchronous = _person(asyncio.run(llm.acall("a person called Ada", response_model=Person)))
    return {"sync": sync, "async": asynchronous}


def _person(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    return Person.model_validate_json(value).model_dump() if isinstance(value, str) else value
