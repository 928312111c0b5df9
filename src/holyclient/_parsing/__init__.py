"""Structured outputs, client-side: strict schemas from pydantic models, and decoding the answers.

``_schema`` turns a model into the strict JSON schema, ``_tools`` makes pydantic function tools and
decodes their arguments, ``_completions`` builds the ``response_format`` field and decodes a
completion into :class:`ParsedChatCompletion`. ``_capabilities`` says which way a model can be asked
for structured output, and ``_portable*`` drive a ``parse()`` through the fallbacks (a forced tool
call, JSON mode) on a model that cannot take a JSON schema. No I/O anywhere here.
"""

from __future__ import annotations

from ._capabilities import METHODS, forget_learned, learn, methods_for, table_features
from ._completions import (
    has_parseable_input,
    is_rich_response_format,
    maybe_parse_content,
    parse_chat_completion,
    response_format_param,
)
from ._portable_chat import StructuredChat
from ._portable_responses import StructuredResponse
from ._portable_stream import ChatToolAsContent, ResponseToolAsText
from ._portable_wire import HEADER as STRUCTURED_OUTPUT_HEADER
from ._portable_wire import Frame, WireChat, WireResponse, wire_plan
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
    "METHODS",
    "STRUCTURED_OUTPUT_HEADER",
    "ChatToolAsContent",
    "Frame",
    "ParsedChatCompletion",
    "ParsedChatCompletionMessage",
    "ParsedChoice",
    "ParsedFunction",
    "ParsedFunctionToolCall",
    "PydanticFunctionTool",
    "ResponseToolAsText",
    "StructuredChat",
    "StructuredResponse",
    "WireChat",
    "WireResponse",
    "find_tool",
    "forget_learned",
    "has_parseable_input",
    "is_rich_response_format",
    "learn",
    "maybe_parse_content",
    "methods_for",
    "parse_chat_completion",
    "parse_response",
    "parse_text",
    "parse_tool_arguments",
    "pydantic_function_tool",
    "response_format_param",
    "responses_tools",
    "table_features",
    "text_param",
    "to_strict_json_schema",
    "validate_input_tools",
    "wire_plan",
]
