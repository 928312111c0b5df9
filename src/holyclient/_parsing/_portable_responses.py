"""``responses.parse()`` on every model: the Responses shapes of each way of asking. Sans-IO.

As for chat (:mod:`._portable_chat`): the ``tool`` way sends a flat strict function tool and forces its
call; the call becomes an output message whose ``output_text`` holds the arguments and their ``parsed``
value, so ``response.output_parsed`` and ``output_text`` read as after a ``json_schema`` answer. The
``json_object`` way sends ``text.format`` ``json_object`` with the schema in ``instructions``. An
answer that does not validate is repaired once (the answer and the errors go back as input items);
a second failure raises pydantic's ``ValidationError``, as openai's ``responses.parse()`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pydantic

from .._core import NOT_GIVEN
from ..types._parsed_response import (
    ParsedResponse,
    ParsedResponseFunctionToolCall,
    ParsedResponseOutputMessage,
    ParsedResponseOutputText,
)
from ._portable import REPAIR, TOOL_REPAIR, Structured, error_text, json_text
from ._responses import parse_response, text_param


def _given(value: Any) -> Any:
    return None if value is NOT_GIVEN else value


def output_message(item_id: str, text: str, parsed: Any) -> ParsedResponseOutputMessage[Any]:
    """An assistant message holding ``text`` and its decoded value, as a ``json_schema`` answer has."""
    message: ParsedResponseOutputMessage[Any] = ParsedResponseOutputMessage.model_validate(
        {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        }
    )
    message.content[0].parsed = parsed  # type: ignore[attr-defined]
    return message


class StructuredResponse(Structured):
    """The attempts of one ``responses.parse()`` (see :mod:`holyclient._parsing._portable`).

    Args:
        args: ``parse()``'s arguments with the tools made flat and ``text`` without a format.
        text_format: the class to validate into, or a ``text.format`` of type ``json_schema`` given as
            data (see :class:`~._portable.Structured`).
        methods: the ways to try, in order.
        learn: called with a way the server refused.
    """

    def __init__(
        self,
        args: Mapping[str, Any],
        text_format: type | Mapping[str, Any],
        methods: Iterable[str],
        learn: Callable[[str], None],
    ) -> None:
        super().__init__(str(args.get("model")), text_format, methods, learn)
        self._args = dict(args)
        self._tools: list[Mapping[str, Any]] = list(_given(args.get("tools")) or ())

    def request(self) -> dict[str, Any]:
        """``parse()``'s arguments for the next attempt, the format asked for the current way."""
        args = dict(self._args)
        params = dict(args.get("params") or {})
        text = _given(args.get("text"))
        if self.method == "json_schema":
            if isinstance(self.format, Mapping):
                args["text"] = {**(text or {}), "format": {"type": "json_schema", **self.format}}
            else:
                args["text"] = text_param(text, self.format)
        elif self.method == "tool":
            args["tools"] = [*self._tools, self.output_tool()]
            if "tool_choice" not in params:
                params["tool_choice"] = "required" if self._tools else {"type": "function", "name": self.name}
        else:
            args["text"] = {**(text or {}), "format": {"type": "json_object"}}
            ours = self.instruction()
            given = params.get("instructions")
            params["instructions"] = f"{given}\n\n{ours}" if given else ours
        if self.repair is not None:
            source = _given(args.get("input"))
            items = [{"role": "user", "content": source}] if isinstance(source, str) else list(source or ())
            args["input"] = [*items, *self.repair]
        args["params"] = params
        return args

    def output_tool(self) -> dict[str, Any]:
        """The flat tool whose parameters are the schema (the ``tool`` way)."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.tool_description(),
            "parameters": self.schema,
            "strict": self.strict,
        }

    def answered(self, response: ParsedResponse[Any]) -> bool:
        """Decode an answer in place: ``True`` when it is the result, ``False`` to send the repair request.

        Raises:
            pydantic.ValidationError: output that does not fit the class, repaired once already.
        """
        self.record(response.usage)
        if self.native or self.method == "json_schema":
            parse_response(response, self.format, self._tools)
            self.finish(response)
            return True
        parse_response(response, None, self._tools)  # the caller's tools' arguments
        return self.as_asked(response)

    def as_asked(self, response: ParsedResponse[Any]) -> bool:
        """An answer of the ``tool`` or ``json_object`` way made to read as a ``json_schema`` one, in place
        (the output tool's call becomes an output message holding its arguments). ``True`` when it is the
        result, ``False`` to send the repair request (see :meth:`answered`)."""
        found = self._candidate(response)
        if found is not None:
            index, item, text = found
            try:
                parsed: Any = self.validate(text)
            except pydantic.ValidationError as error:
                if response.status != "incomplete" and self.invalid(self._repair(item, text, error)):
                    return False
                raise
            item_id = (
                "msg_" + (item.call_id or self.name)
                if isinstance(item, ParsedResponseFunctionToolCall)
                else item.id
            )
            response.output[index : index + 1] = [output_message(item_id, text, parsed)]
        self.finish(response)
        return True

    def _candidate(self, response: ParsedResponse[Any]) -> tuple[int, Any, str] | None:
        """Where the answer is: our function call, else the first text (``None``: only the caller's calls)."""
        first_text: tuple[int, Any, str] | None = None
        for index, item in enumerate(response.output):
            if isinstance(item, ParsedResponseFunctionToolCall) and item.name == self.name:
                return index, item, item.arguments
            if isinstance(item, ParsedResponseOutputMessage) and first_text is None:
                texts = [p.text for p in item.content if isinstance(p, ParsedResponseOutputText)]
                first_text = (index, item, json_text("".join(texts)))
        if first_text is None and not any(
            isinstance(i, ParsedResponseFunctionToolCall) for i in response.output
        ):
            return len(response.output), None, ""  # nothing at all: not valid, repaired
        return first_text

    def _repair(self, item: Any, text: str, error: pydantic.ValidationError) -> list[dict[str, Any]]:
        errors = error_text(error)
        if isinstance(item, ParsedResponseFunctionToolCall):
            return [
                {"type": "function_call", "call_id": item.call_id, "name": self.name, "arguments": text},
                {
                    "type": "function_call_output",
                    "call_id": item.call_id,
                    "output": TOOL_REPAIR.format(errors=errors, name=self.name),
                },
            ]
        return [
            {"role": "assistant", "content": text},
            {"role": "user", "content": REPAIR.format(errors=errors)},
        ]
