"""LlamaIndex (llama-index-llms-openai, on openai 2.x): the recipe of docs/frameworks/llamaindex.md."""

from __future__ import annotations

from typing import Any

import openai
from llama_index.core.llms import ChatMessage
from llama_index.llms.openai import OpenAI
from pydantic import BaseModel


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"openai": openai.__version__, "llama-index-llms-openai": version("llama-index-llms-openai")}


def wire(client: Any, aclient: Any) -> Any:
    # recipe
    llm = OpenAI(
        model="gpt-4.1",
        api_key="unused",  # LlamaIndex wants one; the openai clients below hold holyclient's placeholder
        openai_client=client.as_openai(),
        async_openai_client=aclient.as_openai(),
        max_retries=0,  # LlamaIndex's own retry layer off: holyclient's policy retries, once
    )
    # end recipe
    return llm


def call(llm: Any) -> str:
    return str(llm.chat([ChatMessage(role="user", content="hello")]).message.content)


def stream(llm: Any) -> list[str]:
    return [str(part.delta) for part in llm.stream_chat([ChatMessage(role="user", content="hello")])]


class Person(BaseModel):
    name: str


def structured(llm: Any) -> Any:
    return (
        llm.as_structured_llm(Person)
        .chat([ChatMessage(role="user", content="a person called Ada")])
        .raw.model_dump()
    )


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """``as_structured_llm`` as LlamaIndex defaults it (a function call) on ``model``: LlamaIndex's
    ``OpenAI`` for OpenAI's models, ``OpenAILike`` (the page's second recipe) for the relay's others."""
    if model.startswith("gpt-"):
        llm = wire(client, aclient)
    else:
        from llama_index.llms.openai_like import OpenAILike

        llm = OpenAILike(
            model=model,
            api_key="unused",
            openai_client=client.as_openai(),
            async_openai_client=aclient.as_openai(),
            is_chat_model=True,
            is_function_calling_model=True,
            max_retries=0,
        )
    structured = llm.as_structured_llm(Person)
    return structured.chat([ChatMessage(role="user", content="a person called Ada")]).raw.model_dump()
