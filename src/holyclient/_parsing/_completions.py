"""``response_format`` classes to request JSON, and completions back to :class:`ParsedChatCompletion`.

Sans-IO: the resources call :func:`response_format_param` while building the request and
:func:`parse_chat_completion` on the validated response; the stream state calls the same functions,
so ``parse()`` and ``stream()`` decode identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, cast
from weakref import WeakKeyDictionary

import pydantic

from .._exceptions import ContentFilterFinishReasonError, LengthFinishReasonError
from ._schema import is_basemodel_type, is_dataclass_like_type, to_strict_json_schema
from ._tools import is_parseable_tool, parse_tool_arguments
from ._types import ParsedChatCompletion, ParsedChatCompletionMessage

ResponseFormatT = TypeVar("ResponseFormatT")

#: Schemas are generated once per class: ``model_json_schema()`` is the dearest step of a ``parse()``.
_FORMAT_CACHE: WeakKeyDictionary[type, dict[str, Any]] = WeakKeyDictionary()
_ADAPTERS: WeakKeyDictionary[type, pydantic.TypeAdapter[Any]] = WeakKeyDictionary()


def is_rich_response_format(response_format: object) -> bool:
    """True for a class to decode into; a dict (or nothing) is sent as is and not decoded."""
    return response_format is not None and not isinstance(response_format, Mapping)


def response_format_param(response_format: object) -> Mapping[str, Any] | None:
    """The ``response_format`` request field for a class (strict ``json_schema``), or a dict as given.

    Raises:
        TypeError: for a class that is neither a pydantic model nor a pydantic dataclass.
    """
    if response_format is None or isinstance(response_format, Mapping):
        return response_format
    if not isinstance(response_format, type):
        raise TypeError(f"Unsupported response_format {response_format!r}: pass a pydantic model or a dict")
    cached = _FORMAT_CACHE.get(response_format)
    if cached is not None:
        return cached
    if is_basemodel_type(response_format):
        schema = to_strict_json_schema(response_format)
    elif is_dataclass_like_type(response_format):
        schema = to_strict_json_schema(_adapter(response_format))
    else:
        raise TypeError(f"Unsupported response_format type - {response_format!r}")
    param = {
        "type": "json_schema",
        "json_schema": {"schema": schema, "name": response_format.__name__, "strict": True},
    }
    _FORMAT_CACHE[response_format] = param
    return param


def has_parseable_input(response_format: object, tools: Iterable[Mapping[str, Any]] | None) -> bool:
    """Whether anything will be decoded, i.e. whether a cut or filtered answer is an error."""
    return is_rich_response_format(response_format) or any(is_parseable_tool(t) for t in tools or ())


def parse_content(response_format: type[ResponseFormatT], content: str) -> ResponseFormatT:
    """``content`` validated into ``response_format``.

    Raises:
        pydantic.ValidationError: when the content does not fit the class.
    """
    if is_basemodel_type(response_format):
        return cast(ResponseFormatT, response_format.model_validate_json(content))
    if is_dataclass_like_type(response_format):
        return cast(ResponseFormatT, _adapter(response_format).validate_json(content))
    raise TypeError(f"Unable to automatically parse response format type {response_format!r}")


def maybe_parse_content(response_format: object, message: ParsedChatCompletionMessage[Any]) -> Any:
    """The message content decoded, or ``None`` (no class, no content, or a refusal)."""
    if is_rich_response_format(response_format) and message.content and not message.refusal:
        return parse_content(cast(type, response_format), message.content)
    return None


def parse_chat_completion(
    completion: ParsedChatCompletion[Any],
    response_format: object,
    tools: Iterable[Mapping[str, Any]] | None,
) -> ParsedChatCompletion[Any]:
    """Fill ``message.parsed`` and each tool call's ``parsed_arguments`` in place; return ``completion``.

    Raises:
        LengthFinishReasonError: a choice stopped at the token limit (its JSON would be cut).
        ContentFilterFinishReasonError: a choice was stopped by the content filter.
        pydantic.ValidationError: content or arguments that do not fit their class.
    """
    tool_list = list(tools or ())
    for choice in completion.choices:
        if choice.finish_reason == "length":
            raise LengthFinishReasonError(completion=completion)
        if choice.finish_reason == "content_filter":
            raise ContentFilterFinishReasonError(completion=completion)
        message = choice.message
        for call in message.tool_calls or ():
            if call.type == "function" and call.function is not None:
                call.function.parsed_arguments = parse_tool_arguments(
                    tool_list, call.function.name, call.function.arguments
                )
        message.tool_calls = message.tool_calls or None  # openai's parsed message always has the key
        message.parsed = maybe_parse_content(response_format, message)
    return completion


def _adapter(cls: type) -> pydantic.TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = pydantic.TypeAdapter(cls)
    return adapter
