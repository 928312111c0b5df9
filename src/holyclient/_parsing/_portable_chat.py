"""``chat.completions.parse()`` on every model: the chat shapes of each way of asking. Sans-IO.

The ``tool`` way sends the schema as a strict function tool and forces its call (``tool_choice`` names it,
or is ``"required"`` when the caller's own tools are sent too); the call's arguments become the message
``content`` and ``parsed``, and the call is taken out of ``tool_calls`` (``finish_reason`` ``"stop"``
when it was the only one), so the result reads as a ``json_schema`` answer does. The ``json_object`` way
sends JSON mode with the schema in a first system message. An answer that does not validate is repaired
once (the answer and the validation errors are sent back); a second failure raises pydantic's
``ValidationError``, a cut or filtered answer openai's ``LengthFinishReasonError`` /
``ContentFilterFinishReasonError``, as openai's ``parse()`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pydantic

from .._core import NOT_GIVEN
from ._completions import parse_chat_completion, response_format_param
from ._portable import REPAIR, TOOL_REPAIR, Structured, error_text, json_text
from ._types import ParsedChatCompletion, ParsedChatCompletionMessage


def _given(value: Any) -> Any:
    return None if value is NOT_GIVEN else value


class StructuredChat(Structured):
    """The attempts of one ``chat.completions.parse()`` (see :mod:`holyclient._parsing._portable`).

    Args:
        args: ``parse()``'s arguments (``model``, ``messages``, ``tools`` checked, call options,
            ``params``), without ``response_format``.
        response_format: the class to validate into, or the ``json_schema`` object of a
            ``response_format`` given as data (see :class:`~._portable.Structured`).
        methods: the ways to try, in order (:func:`holyclient._parsing._capabilities.methods_for`).
        learn: called with a way the server refused.
    """

    def __init__(
        self,
        args: Mapping[str, Any],
        response_format: type | Mapping[str, Any],
        methods: Iterable[str],
        learn: Callable[[str], None],
    ) -> None:
        super().__init__(str(args.get("model")), response_format, methods, learn)
        self._args = dict(args)
        self._args["messages"] = list(args["messages"])
        self._tools: list[Mapping[str, Any]] = list(_given(args.get("tools")) or ())

    def request(self) -> dict[str, Any]:
        """``parse()``'s arguments for the next attempt, the format asked for the current way."""
        args = dict(self._args)
        params = dict(args.get("params") or {})
        messages = list(args["messages"])
        if self.method == "json_schema":
            args["response_format"] = self.json_schema_param()
        elif self.method == "tool":
            args["tools"] = [*self._tools, self.output_tool()]
            if "tool_choice" not in params:
                named = {"type": "function", "function": {"name": self.name}}
                params["tool_choice"] = "required" if self._tools else named
        else:
            args["response_format"] = {"type": "json_object"}
            messages.insert(0, {"role": "system", "content": self.instruction()})
        args["messages"] = [*messages, *(self.repair or ())]
        args["params"] = params
        return args

    def json_schema_param(self) -> Mapping[str, Any]:
        """The ``response_format`` of the ``json_schema`` way: the class's strict schema, or the one given."""
        if isinstance(self.format, Mapping):
            return {"type": "json_schema", "json_schema": dict(self.format)}
        param = response_format_param(self.format)
        assert param is not None
        return param

    def output_tool(self) -> dict[str, Any]:
        """The tool whose parameters are the schema (the ``tool`` way)."""
        function = {
            "name": self.name,
            "description": self.tool_description(),
            "parameters": self.schema,
            "strict": self.strict,
        }
        return {"type": "function", "function": function}

    def answered(self, completion: ParsedChatCompletion[Any]) -> bool:
        """Decode an answer in place: ``True`` when it is the result, ``False`` to send the repair request.

        Raises:
            LengthFinishReasonError, ContentFilterFinishReasonError: a cut or filtered answer.
            pydantic.ValidationError: content that does not fit the class, repaired once already.
        """
        self.record(completion.usage)
        if self.native or self.method == "json_schema":
            parse_chat_completion(completion, self.format, self._tools)
            self.finish(completion)
            return True
        parse_chat_completion(completion, None, self._tools)  # finish reasons; the caller's tools' arguments
        return self.as_asked(completion)

    def as_asked(self, completion: ParsedChatCompletion[Any]) -> bool:
        """An answer of the ``tool`` or ``json_object`` way made to read as a ``json_schema`` one, in place:
        the JSON (the output tool's arguments, or the reply's JSON out of any fence or prose) as the
        message ``content`` and decoded as ``parsed``, the output tool's call taken out of ``tool_calls``.
        ``True`` when it is the result, ``False`` to send the repair request (see :meth:`answered`)."""
        for choice in completion.choices:
            message = choice.message
            if message.refusal:
                continue
            call = self._our_call(message)
            if call is None and not message.content and message.tool_calls:
                continue  # the model called one of the caller's tools
            text = call.function.arguments if call is not None else json_text(message.content)
            try:
                message.parsed = self.validate(text)
            except pydantic.ValidationError as error:
                if len(completion.choices) == 1 and self.invalid(self._repair(message, call, text, error)):
                    return False
                raise
            message.content = text
            if call is not None:
                rest = [c for c in message.tool_calls or () if c is not call]
                message.tool_calls = rest or None
                if not rest and choice.finish_reason == "tool_calls":
                    choice.finish_reason = "stop"
        self.finish(completion)
        return True

    def _our_call(self, message: ParsedChatCompletionMessage[Any]) -> Any:
        if self.method != "tool":
            return None
        for call in message.tool_calls or ():
            if call.function is not None and call.function.name == self.name:
                return call
        return None

    def _repair(
        self, message: ParsedChatCompletionMessage[Any], call: Any, text: str, error: pydantic.ValidationError
    ) -> list[dict[str, Any]]:
        """The messages that send the answer back with what is wrong with it."""
        errors = error_text(error)
        if call is None:
            return [
                {"role": "assistant", "content": message.content or ""},
                {"role": "user", "content": REPAIR.format(errors=errors)},
            ]
        sent: dict[str, Any] = {
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {"id": call.id, "type": "function", "function": {"name": self.name, "arguments": text}}
            ],
        }
        reasoning = (message.model_extra or {}).get("reasoning_content")
        if reasoning:  # DeepSeek's thinking mode refuses a tool loop that drops it
            sent["reasoning_content"] = reasoning
        reply = TOOL_REPAIR.format(errors=errors, name=self.name)
        return [sent, {"role": "tool", "tool_call_id": call.id, "content": reply}]
