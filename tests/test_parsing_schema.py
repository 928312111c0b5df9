"""Pydantic models become the same strict JSON schema as with the official SDK."""

from __future__ import annotations

import datetime
import enum
from typing import Literal, Optional, Union

import pydantic
import pytest
from openai.lib._pydantic import to_strict_json_schema as openai_strict_schema
from pydantic import BaseModel, Field

from holyclient import pydantic_function_tool
from holyclient._parsing import response_format_param, to_strict_json_schema


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Step(BaseModel):
    explanation: str
    output: str


class MathResponse(BaseModel):
    steps: list[Step]
    final_answer: str


class Address(BaseModel):
    """Where someone lives."""

    street: str
    city: str = "Paris"
    zip: Optional[str] = None  # noqa: UP045 - the Optional spelling is what users write


class Person(BaseModel):
    name: str = Field(description="full name")
    age: int | None = None
    color: Color
    kind: Literal["a", "b"]
    home: Address = Field(description="the main address")
    others: list[Address] = []
    tags: dict[str, int] = {}
    either: Union[Step, Address]  # noqa: UP007


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=0, le=9)


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Household(BaseModel):
    pets: list[Cat | Dog] = Field(description="every pet")
    favourite: Cat | Dog = Field(discriminator="kind")
    colors: list[Color] = []
    by_name: dict[str, Address] = {}
    moved_in: datetime.date | None = None
    spare: Address | None = None


@pydantic.dataclasses.dataclass
class Point:
    x: float
    y: float


MODELS = [Step, MathResponse, Address, Person, Tree, Household]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_strict_schema_matches_openai(model: type[BaseModel]) -> None:
    assert to_strict_json_schema(model) == openai_strict_schema(model)


def test_strict_schema_of_a_type_adapter_matches_openai() -> None:
    adapter = pydantic.TypeAdapter(Point)
    assert to_strict_json_schema(adapter) == openai_strict_schema(adapter)


def test_every_object_is_closed_and_requires_all_its_properties() -> None:
    schema = to_strict_json_schema(Person)
    assert schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"])
    address = schema["$defs"]["Address"]
    assert address["additionalProperties"] is False
    assert address["required"] == ["street", "city", "zip"]
    assert "default" not in address["properties"]["zip"]  # a None default says nothing


def test_a_described_ref_is_inlined() -> None:
    home = to_strict_json_schema(Person)["properties"]["home"]
    assert "$ref" not in home
    assert home["description"] == "the main address"
    assert home["additionalProperties"] is False


def test_non_models_are_refused() -> None:
    with pytest.raises(TypeError):
        to_strict_json_schema(dict)  # type: ignore[arg-type]


def test_response_format_for_a_class_matches_openai() -> None:
    from openai.lib._parsing._completions import type_to_response_format_param

    assert response_format_param(MathResponse) == type_to_response_format_param(MathResponse)
    assert response_format_param(Point) == type_to_response_format_param(Point)


def test_response_format_dicts_pass_through_and_other_classes_are_refused() -> None:
    fmt = {"type": "json_object"}
    assert response_format_param(fmt) is fmt
    assert response_format_param(None) is None
    with pytest.raises(TypeError, match="Unsupported response_format"):
        response_format_param(int)


def test_pydantic_function_tool_matches_openai() -> None:
    import openai

    assert pydantic_function_tool(Address) == openai.pydantic_function_tool(Address)
    named = pydantic_function_tool(Step, name="step", description="one step")
    assert named == openai.pydantic_function_tool(Step, name="step", description="one step")
    assert named["function"].model is Step
