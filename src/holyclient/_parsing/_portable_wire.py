"""Structured output asked as data -- a framework's ``response_format`` (chat) or ``text.format``
(Responses) of type ``json_schema``, through ``as_openai()`` -- on every model. Sans-IO.

The ways, their order, what is learned from a refusal and the one repair are ``parse()``'s own
(:class:`~._portable_chat.StructuredChat`, :class:`~._portable_responses.StructuredResponse`, whose
request shapes and answer reading these subclasses use); only the ends differ: the request is a JSON body
(the framework's, with the format asked the way the model can take), and the answer is handed back as
the bytes of a ``json_schema`` answer -- the JSON object as the message ``content`` (an output message's
``output_text``), ``finish_reason`` ``"stop"`` -- so the framework reads what it asked for. A model known
to take a JSON schema gets no plan (:func:`wire_plan` is ``None``): its request and answer are untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pydantic

from ._capabilities import learn, methods_for
from ._portable_chat import StructuredChat
from ._portable_responses import StructuredResponse
from ._portable_stream import ChatToolAsContent, ResponseToolAsText

__all__ = ["HEADER", "WireChat", "WireResponse", "wire_plan"]

#: The response header that says an answer was adapted, and how it was asked (``tool``, ``json_object``).
HEADER = "x-holyclient-structured-output"

#: One streamed event as the transport hands it on: its ``event:`` name (or ``None``) and its data.
Frame = tuple[str | None, bytes]

_CHAT_OWN = ("model", "messages", "tools", "response_format")
_RESPONSES_OWN = ("model", "input", "tools", "text")
#: Answers handed on as they are: cut or filtered, they cannot be the object asked for, and the
#: framework reports them as it does for any model.
_UNFINISHED = frozenset({"length", "content_filter"})


def wire_plan(endpoint: str, path: str, body: Mapping[str, Any] | None) -> WireChat | WireResponse | None:
    """The attempts of a request whose format the model may not take as asked; ``None`` for any other
    request, and for a model known to take a JSON schema (nothing changes for it)."""
    if body is None:
        return None
    if path == "/chat/completions":
        fmt = body.get("response_format")
        if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
            return None
        schema = fmt.get("json_schema")
        kind: type[WireChat] | type[WireResponse] = WireChat
    elif path == "/responses":
        text = body.get("text")
        fmt = text.get("format") if isinstance(text, Mapping) else None
        if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
            return None
        schema = {key: value for key, value in fmt.items() if key != "type"}
        kind = WireResponse
    else:
        return None
    model = body.get("model")
    if not isinstance(model, str) or not isinstance(schema, Mapping):
        return None
    methods = methods_for(endpoint, model)
    if methods == ("json_schema",):
        return None
    return kind(body, schema, methods, lambda method: learn(endpoint, model, method))


class WireChat(StructuredChat):
    """A chat body's attempts (see the module docstring)."""

    def __init__(
        self,
        body: Mapping[str, Any],
        schema: Mapping[str, Any],
        methods: tuple[str, ...],
        learn: Callable[[str], None],
    ) -> None:
        args: dict[str, Any] = {
            "model": body["model"],
            "messages": list(body.get("messages") or ()),
            "params": {key: value for key, value in body.items() if key not in _CHAT_OWN},
        }
        if body.get("tools"):
            args["tools"] = list(body["tools"])
        super().__init__(args, schema, methods, learn)

    @property
    def adapted(self) -> bool:
        """Whether the current way is not the one the framework asked for."""
        return self.method != "json_schema"

    def body(self) -> dict[str, Any]:
        """The next attempt's body."""
        args = self.request()
        body: dict[str, Any] = {"model": args["model"], "messages": args["messages"]}
        if args.get("tools"):
            body["tools"] = args["tools"]
        if "response_format" in args:
            body["response_format"] = args["response_format"]
        body.update(args["params"])
        return body

    def answer(self, content: bytes) -> bytes | None:
        """The answer's bytes as the framework asked for them; ``None`` to send the repair request."""
        from ._types import ParsedChatCompletion

        if not self.adapted:
            return content
        completion: ParsedChatCompletion[Any] = ParsedChatCompletion.model_validate_json(content)
        self.record(completion.usage)
        if any(choice.finish_reason in _UNFINISHED for choice in completion.choices):
            return content
        try:
            if not self.as_asked(completion):
                return None
        except pydantic.ValidationError:  # repaired once already: the framework's own check reports it
            return content
        exclude = {"choices": {"__all__": {"message": {"parsed"}}}}
        return completion.model_dump_json(exclude_unset=True, by_alias=True, exclude=exclude).encode()

    def frames(self) -> Callable[[Frame], list[Frame]] | None:
        """What each streamed chunk becomes (the output tool's argument deltas as ``content``), or
        ``None`` when the chunks are handed on as they are."""
        if self.method != "tool":
            return None
        from ..types._chat import ChatCompletionChunk

        translate = ChatToolAsContent(self.name)

        def frame(event: Frame) -> list[Frame]:
            chunk = translate(ChatCompletionChunk.model_validate_json(event[1]))
            return [(event[0], chunk.model_dump_json(exclude_unset=True, by_alias=True).encode())]

        return frame


class WireResponse(StructuredResponse):
    """A Responses body's attempts (see the module docstring)."""

    def __init__(
        self,
        body: Mapping[str, Any],
        schema: Mapping[str, Any],
        methods: tuple[str, ...],
        learn: Callable[[str], None],
    ) -> None:
        text = body.get("text")
        rest = {key: value for key, value in dict(text or {}).items() if key != "format"}
        args: dict[str, Any] = {
            "model": body["model"],
            "input": body.get("input"),
            "text": rest or None,
            "params": {key: value for key, value in body.items() if key not in _RESPONSES_OWN},
        }
        if body.get("tools"):
            args["tools"] = list(body["tools"])
        super().__init__(args, schema, methods, learn)

    @property
    def adapted(self) -> bool:
        return self.method != "json_schema"

    def body(self) -> dict[str, Any]:
        args = self.request()
        body: dict[str, Any] = {"model": args["model"], "input": args["input"]}
        if args.get("tools"):
            body["tools"] = args["tools"]
        if args.get("text") is not None:
            body["text"] = args["text"]
        body.update(args["params"])
        return body

    def answer(self, content: bytes) -> bytes | None:
        """As :meth:`WireChat.answer`: the output tool's call becomes an output message."""
        from ..types._parsed_response import ParsedResponse

        if not self.adapted:
            return content
        response: ParsedResponse[Any] = ParsedResponse.model_validate_json(content)
        self.record(response.usage)
        if response.status == "incomplete":
            return content
        try:
            if not self.as_asked(response):
                return None
        except pydantic.ValidationError:
            return content
        data = response.to_dict(mode="json")
        for item in data.get("output") or ():
            for part in item.get("content") or () if isinstance(item, dict) else ():
                if isinstance(part, dict):
                    part.pop("parsed", None)
        return json.dumps(data).encode()

    def frames(self) -> Callable[[Frame], list[Frame]] | None:
        if self.method != "tool":
            return None
        from ..types._responses import ResponseStreamEvent

        translate = ResponseToolAsText(self.name)

        def frame(event: Frame) -> list[Frame]:
            events = translate(ResponseStreamEvent.model_validate_json(event[1]))
            return [
                (
                    getattr(out, "type", event[0]),
                    out.model_dump_json(exclude_unset=True, by_alias=True).encode(),
                )
                for out in events
            ]

        return frame
