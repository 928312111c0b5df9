"""What a Responses API answer echoes of its request -- its tools, reasoning, conversation -- and why it
stopped early, as openai's models (``FunctionTool(...)``, ``Reasoning(...)``) rather than plain dicts, so
a printed ``Response`` reads the same through either SDK.

``FunctionTool`` and ``CustomTool`` are written here because the spec lacks their ``async`` field, which
openai's models have, and ``ImageGeneration`` because the spec has no schema for it. Every other kind of
tool (and of ``tool_choice`` object) is the generated tree's class for its ``type`` (the ``Tool`` union of
``types/responses/tool.py``). A tool of a kind neither knows, or one whose fields a generated class
refuses, stays a :class:`ResponseTool` keeping every field the server sent: a new kind of tool never
breaks reading a response (openai's own models read anything too; it calls an unknown one a
``FunctionTool``).
"""

from __future__ import annotations

import functools
import importlib
import typing
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from ._model import BaseModel

# Fields in openai's order, each optional (openai reads a response without validating it; a field the
# server leaves out must not fail a response here either).


class FunctionTool(BaseModel):
    name: str = ""
    parameters: dict[str, Any] | None = None
    strict: bool | None = None
    type: str = "function"
    allowed_callers: list[str] | None = None
    async_: bool | None = Field(default=None, alias="async")
    defer_loading: bool | None = None
    description: str | None = None
    output_schema: dict[str, Any] | None = None


class CustomTool(BaseModel):
    name: str = ""
    type: str = "custom"
    allowed_callers: list[str] | None = None
    async_: bool | None = Field(default=None, alias="async")
    defer_loading: bool | None = None
    description: str | None = None
    format: Any | None = None

    @field_validator("format", mode="before")
    @classmethod
    def _format_by_type(cls, value: Any) -> Any:
        """``Text(...)`` or ``Grammar(...)``, as openai's ``CustomToolInputFormat``."""
        if not isinstance(value, dict):
            return value
        return _validated(value, _format_kinds()) or value


class ImageGeneration(BaseModel):
    type: str = "image_generation"
    action: str | None = None
    background: str | None = None
    complexity: str | None = None
    frame_count: int | None = None
    frame_duration_ms: int | None = None
    input_fidelity: str | None = None
    input_image_mask: Any | None = None
    model: str | None = None
    moderation: str | None = None
    output_compression: int | None = None
    output_format: str | None = None
    partial_images: int | None = None
    quality: str | None = None
    size: str | None = None
    svg: Any | None = None

    @field_validator("input_image_mask", mode="before")
    @classmethod
    def _mask(cls, value: Any) -> Any:
        """``ImageGenerationInputImageMask(...)``, as openai's."""
        if not isinstance(value, dict):
            return value
        try:
            return _generated("responses.tool", "ImageGenerationInputImageMask").model_validate(value)
        except ValidationError:
            return value


class ResponseTool(BaseModel):
    """A tool of a kind this version does not know: every field the server sent, as attributes."""

    if typing.TYPE_CHECKING:
        type: str


class Reasoning(BaseModel):
    context: str | None = None
    effort: str | None = None
    generate_summary: str | None = None
    mode: str | None = None
    summary: str | None = None


class IncompleteDetails(BaseModel):
    reason: str | None = None


class Conversation(BaseModel):
    id: str = ""


def tools_by_type(value: Any) -> Any:
    """Each tool dict of a response's ``tools`` as the model its ``type`` names."""
    if not isinstance(value, list):
        return value
    kinds = _tool_kinds()
    return [
        (_validated(item, kinds) or ResponseTool.model_validate(item)) if isinstance(item, dict) else item
        for item in value
    ]


def _validated(item: dict[str, Any], kinds: dict[str, type[BaseModel]]) -> BaseModel | None:
    """``item`` as the class its ``type`` names; None for an unknown type or fields the class refuses."""
    cls = kinds.get(str(item.get("type")))
    if cls is None:
        return None
    try:
        return cls.model_validate(item)
    except ValidationError:  # a field the spec requires is missing or of another type
        return None


def tool_choice_by_type(value: Any) -> Any:
    """A response's ``tool_choice``: a string as sent, an object as the model its ``type`` names."""
    if not isinstance(value, dict):
        return value
    return _validated(value, _tool_choice_kinds()) or value


@functools.cache
def _tool_kinds() -> dict[str, type[BaseModel]]:
    return {
        **_kinds(typing.get_args(_generated("responses.tool", "Tool"))),
        "function": FunctionTool,
        "custom": CustomTool,
        "image_generation": ImageGeneration,
    }


@functools.cache
def _tool_choice_kinds() -> dict[str, type[BaseModel]]:
    # openai's ToolChoice union, but for its apply_patch and shell members, which the generated tree gets
    # wrong (they carry ToolChoiceTypes' type values); an object of either is kept as sent
    names = ("Allowed", "Types", "Function", "Mcp", "Custom")
    return _kinds([_generated(f"responses.tool_choice_{n.lower()}", f"ToolChoice{n}") for n in names])


@functools.cache
def _format_kinds() -> dict[str, type[BaseModel]]:
    return _kinds(typing.get_args(_generated("shared.custom_tool_input_format", "CustomToolInputFormat")))


def _kinds(members: Iterable[Any]) -> dict[str, type[BaseModel]]:
    """``type`` value -> class, for generated models whose ``type`` field is a ``Literal``."""
    kinds: dict[str, type[BaseModel]] = {}
    for member in members:
        field = getattr(member, "model_fields", {}).get("type")
        if field is not None and typing.get_origin(field.annotation) is Literal:
            kinds.update(dict.fromkeys(typing.get_args(field.annotation), member))
    return kinds


def _generated(module: str, name: str) -> Any:
    """``name`` of the generated module ``module`` (under ``types/``).

    The generated tree re-exports this module's classes, so it cannot be imported above; it is loaded
    here on first use, as ``types/__init__`` loads it for every other caller.
    """
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)
