"""The items of a stored response's input (``client.responses.input_items.list``), told apart as openai
tells them apart.

openai reads each item as its ``ResponseItem`` union: a message from the user, system or developer whose
parts are all valid input parts is a ``ResponseInputMessageItem`` of ``ResponseInputText`` /
``ResponseInputImage`` / ``ResponseInputFile`` parts; any other item is the class its ``type`` names
(``message`` then means ``ResponseOutputMessage``, the assistant's). An item of a kind this module does
not know, or one its class cannot hold, is kept whole as the generic ``ResponseOutputItem``, so that a
new item never breaks an old client.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, SerializeAsAny, ValidationError, field_validator

from ._model import BaseModel
from ._responses import ResponseOutputItem, ResponseOutputMessage, ResponseReasoningItem
from .responses.response_function_tool_call_item import ResponseFunctionToolCallItem
from .responses.response_function_tool_call_output_item import ResponseFunctionToolCallOutputItem
from .responses.response_input_file import ResponseInputFile
from .responses.response_input_image import ResponseInputImage
from .responses.response_input_text import ResponseInputText

__all__ = ["InputItem", "ResponseInputMessageItem"]

#: The roles of an input message (the assistant's messages are output messages).
_INPUT_ROLES = frozenset({"user", "system", "developer"})
_INPUT_PARTS: dict[str, type[BaseModel]] = {
    "input_text": ResponseInputText,
    "input_image": ResponseInputImage,
    "input_file": ResponseInputFile,
}


class ResponseInputMessageItem(BaseModel):
    """A message of the response's input, from the user, the system or a developer."""

    id: str
    # SerializeAsAny: the parts are validated into their classes; dumps keep their fields.
    content: list[SerializeAsAny[BaseModel]] = Field(default_factory=list)
    role: str
    type: str = "message"
    status: str | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _parts_by_type(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [_INPUT_PARTS[part["type"]].model_validate(part) for part in value]


#: Other items by their ``type``, as openai's discriminator maps them.
_ITEM_KINDS: dict[str, type[BaseModel]] = {
    "message": ResponseOutputMessage,
    "function_call": ResponseFunctionToolCallItem,
    "function_call_output": ResponseFunctionToolCallOutputItem,
    "reasoning": ResponseReasoningItem,
}


def _input_item(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    kind = value.get("type")
    if kind == "message" and value.get("role") in _INPUT_ROLES:
        try:
            return ResponseInputMessageItem.model_validate(value)
        except (ValidationError, KeyError, TypeError):
            pass  # parts openai would not read as input parts either: an output message, as in openai
    cls = _ITEM_KINDS.get(str(kind))
    if cls is not None:
        try:
            return cls.model_validate(value)
        except ValidationError:
            pass
    return ResponseOutputItem.model_validate(value)


#: One input item: the class openai would give it (see the module docstring).
InputItem = Annotated[SerializeAsAny[BaseModel], BeforeValidator(_input_item)]
