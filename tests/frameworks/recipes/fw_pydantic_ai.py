"""pydantic-ai (pydantic-ai-slim[openai]): the recipe of docs/frameworks/pydantic-ai.md."""

from __future__ import annotations

from typing import Any

import openai
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"openai": openai.__version__, "pydantic-ai-slim": version("pydantic-ai-slim")}


def wire(client: Any, aclient: Any) -> Any:
    # recipe
    model = OpenAIChatModel("gpt-4.1", provider=OpenAIProvider(openai_client=aclient.as_openai()))
    agent = Agent(model)
    # end recipe
    return agent


async def call(agent: Any) -> str:
    return str((await agent.run("hello")).output)


async def stream(agent: Any) -> list[str]:
    async with agent.run_stream("hello") as result:
        return [str(text) async for text in result.stream_text(delta=True)]


class Person(BaseModel):
    name: str


async def structured(agent: Any) -> Any:
    return (await agent.run("a person called Ada", output_type=Person)).output.model_dump()


async def traced(agent: Any) -> None:
    """A run with pydantic-ai's OpenTelemetry instrumentation on."""
    agent.instrument = True
    await agent.run("hello")


async def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """An agent's ``output_type`` as pydantic-ai defaults it (an output tool) on ``model``."""
    agent = Agent(OpenAIChatModel(model, provider=OpenAIProvider(openai_client=aclient.as_openai())))
    return (await agent.run("a person called Ada", output_type=Person)).output.model_dump()
