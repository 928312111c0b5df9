"""The OpenAI Agents SDK (openai-agents): the recipe of docs/frameworks/openai-agents.md."""

from __future__ import annotations

from typing import Any

import openai
from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from pydantic import BaseModel


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"openai": openai.__version__, "openai-agents": version("openai-agents")}


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def wire(client: Any, aclient: Any) -> Any:
    set_tracing_disabled(True)  # the SDK's own traces go to api.openai.com: see the page
    # recipe
    model = OpenAIChatCompletionsModel(model="gpt-4.1", openai_client=aclient.as_openai())
    agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=[get_weather])
    # end recipe
    return agent


async def call(agent: Any) -> str:
    return str((await Runner.run(agent, "hello")).final_output)


async def stream(agent: Any) -> list[str]:
    from openai.types.responses import ResponseTextDeltaEvent

    result = Runner.run_streamed(agent, "hello")
    texts = []
    async for event in result.stream_events():
        if event.type == "raw_response_event" and isinstance(event.data, ResponseTextDeltaEvent):
            texts.append(event.data.delta)
    return texts


class Person(BaseModel):
    name: str


async def structured(agent: Any) -> Any:
    """A tool call (the model calls ``get_weather``, the SDK runs it and sends the result back), then a
    structured output."""
    weather = await Runner.run(agent, "use get_weather for Paris")
    typed = agent.clone(output_type=Person, tools=[])
    person = await Runner.run(typed, "a person called Ada")
    return {"weather": str(weather.final_output), "person": person.final_output.model_dump()}


def trace_export_key(aclient: Any) -> str:
    """The key the SDK would export its traces to api.openai.com with, after the docs' one-line setup for
    every agent (``set_default_openai_client``, which by default uses the client's key for tracing)."""
    from agents import set_default_openai_client
    from agents.tracing import default_exporter

    set_default_openai_client(aclient.as_openai())
    return str(default_exporter().api_key)


async def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """An agent's ``output_type`` as the SDK sends it (``response_format`` ``json_schema``) on ``model``."""
    set_tracing_disabled(True)
    chat = OpenAIChatCompletionsModel(model=model, openai_client=aclient.as_openai())
    agent = Agent(name="assistant", instructions="Be brief.", model=chat, output_type=Person)
    return (await Runner.run(agent, "a person called Ada")).final_output.model_dump()
