"""Structured outputs, client-side: strict schemas from pydantic models, and decoding the answers.

``_schema`` turns a model into the strict JSON schema, ``_tools`` makes pydantic function tools and
decodes their arguments, ``_completions`` builds the ``response_format`` field and decodes a
completion into :class:`ParsedChatCompletion`. No I/O anywhere here.
"""

from __future__ import annotations

from ._completions import (
    has_parseable_input,
    is_rich_response_format,
    maybe_parse_content,
    parse_chat_completion,
    response_format_param,
)
from ._responses import parse_response, parse_text, responses_tools, text_param
from ._schema import to_strict_json_schema
from ._tools import (
    PydanticFunctionTool,
    find_tool,
    parse_tool_arguments,
    pydantic_function_tool,
    validate_input_tools,
)
from ._types import (
    ParsedChatCompletion,
    ParsedChatCompletionMessage,
    ParsedChoice,
    ParsedFunction,
    ParsedFunctionToolCall,
)

__all__ = [
    "ParsedChatCompletion",
    "ParsedChatCompletionMessage",
    "ParsedChoice",
    "ParsedFunction",
    "ParsedFunctionToolCall",
    "PydanticFunctionTool",
    "find_tool",
    "has_parseable_input",
    "is_rich_response_format",
    "maybe_parse_content",
    "parse_chat_completion",
    "parse_response",
    "parse_text",
    "parse_tool_arguments",
    "pydantic_function_tool",
    "response_format_param",
    "responses_tools",
    "text_param",
    "to_strict_json_schema",
    "validate_input_tools",
]
