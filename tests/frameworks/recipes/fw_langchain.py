"""LangChain (langchain-openai): the recipe of docs/frameworks/langchain.md."""

from __future__ import annotations

from typing import Any

import langchain_openai
import openai
from langchain_openai import ChatOpenAI
from pydantic import BaseModel


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"openai": openai.__version__, "langchain-openai": version("langchain-openai")}


def wire(client: Any, aclient: Any) -> Any:
    # recipe
    sync, asynchronous = client.as_openai(), aclient.as_openai()
    llm = ChatOpenAI(
        model="gpt-4.1",
        root_client=sync,
        client=sync.chat.completions,
        root_async_client=asynchronous,
        async_client=asynchronous.chat.completions,
    )
    # end recipe
    return llm


def call(llm: Any) -> str:
    return str(llm.invoke("hello").content)


def stream(llm: Any) -> list[str]:
    return [str(chunk.content) for chunk in llm.stream("hello")]


class Person(BaseModel):
    name: str


def structured(llm: Any) -> Any:
    return llm.with_structured_output(Person).invoke("a person called Ada").model_dump()


assert langchain_openai  # imported for the version check above


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """``with_structured_output`` as LangChain defaults it (method ``json_schema``) on ``model``."""
    llm = wire(client, aclient).model_copy(update={"model_name": model})
    return llm.with_structured_output(Person).invoke("a person called Ada").model_dump()
