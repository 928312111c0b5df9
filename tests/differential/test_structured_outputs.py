"""Structured outputs, differentially: the same ``parse()`` app through openai and holyclient on the local server."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from differential.conftest import Differential


class Inner(BaseModel):
    tags: list[str]
    score: float | None = None


class Outer(BaseModel):
    """A nested structured answer."""

    title: str
    inner: Inner
    items: list[Inner] = []


class GetWeather(BaseModel):
    city: str
    days: int


USER = [{"role": "user", "content": "describe GetWeather"}]


def as_data(completion: Any) -> dict[str, Any]:
    """A parsed completion as data; parsed values keep their class name (openai's generic models warn
    when dumped with a parsed value, so the dump is done here without warnings)."""
    data: dict[str, Any] = completion.model_dump(mode="json", exclude_unset=True, warnings=False)
    for i, choice in enumerate(completion.choices):
        message = data["choices"][i]["message"]
        parsed = choice.message.parsed
        message["parsed"] = [type(parsed).__name__, parsed.model_dump() if parsed is not None else None]
        for j, call in enumerate(choice.message.tool_calls or []):
            arguments = call.function.parsed_arguments
            message["tool_calls"][j]["function"]["parsed_arguments"] = [
                type(arguments).__name__,
                arguments.model_dump() if isinstance(arguments, BaseModel) else arguments,
            ]
    return data


def test_parse_with_nested_models_sends_and_returns_what_openai_does(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: as_data(c.chat.completions.parse(model="gpt-4.1", messages=USER, response_format=Outer))
    )
    assert ours.result["choices"][0]["message"]["parsed"][0] == "Outer"
    assert ours.requests[0]["body"]["response_format"]["json_schema"]["strict"] is True


def test_beta_parse_matches_openai(differential: Differential) -> None:
    differential.check(
        lambda c: as_data(
            c.beta.chat.completions.parse(model="gpt-4.1", messages=USER, response_format=Outer)
        )
    )


def test_parse_with_tools_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        sdk = __import__(type(c).__module__.split(".")[0])
        tools = [sdk.pydantic_function_tool(GetWeather)]
        return as_data(
            c.chat.completions.parse(model="gpt-4.1", messages=USER, tools=tools, tool_choice="required")
        )

    _theirs, ours = differential.check(app)
    call = ours.result["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["parsed_arguments"][0] == "GetWeather"


def test_a_cut_answer_raises_the_same_error_class(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: c.chat.completions.parse(
            model="gpt-4.1", messages=USER, response_format=Outer, max_tokens=2
        ),
        expect_error="LengthFinishReasonError",
    )
    assert ours.result["error"] == "LengthFinishReasonError"


async def test_async_parse_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        return as_data(await c.chat.completions.parse(model="gpt-4.1", messages=USER, response_format=Outer))

    await differential.acheck(app)
