"""One chat request's counting state, the way OpenAI frames messages (see :mod:`holyclient.tokens._count`
for the rules). Kept apart so the counting API and its quality rules read on their own."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._core import as_mapping, message_mapping
from . import _tokenizer
from ._images import image_tokens, size_from_data_uri

if TYPE_CHECKING:
    import tiktoken
    from pydantic import BaseModel

    #: A chat message: a dict (or TypedDict), or a message model such as ``response.choices[0].message``.
    MessageLike = Mapping[str, Any] | BaseModel


class Counter:
    """One request's counting state: the encoding, the model's constants, and what was seen."""

    def __init__(self, enc: tiktoken.Encoding, model: str, image_size: tuple[int, int]) -> None:
        self.enc = enc
        self.image_size = image_size
        legacy = model.startswith("gpt-3.5-turbo-0301")
        self.per_message = 4 if legacy else 3
        self.per_name = -1 if legacy else 1
        self.approximate = False
        self.saw_system = False

    def text(self, text: str) -> int:
        return _tokenizer.count(self.enc, text)

    def messages(self, messages: Iterable[MessageLike], *, pad_system: bool) -> int:
        count = _tokenizer.count
        enc = self.enc
        encode = enc.encode_ordinary
        long_text = _tokenizer.CHUNKED_FROM
        tokens = 3  # every reply is primed with <|start|>assistant<|message|>
        for message in messages:
            if type(message) is not dict:  # the common case skips the call
                message = message_mapping(message)
            tokens += self.per_message
            role = message.get("role")
            system = role == "system" or role == "developer"
            for key, value in message.items():
                if isinstance(value, str):
                    if key == "tool_call_id":
                        continue
                    if key == "content" and system and pad_system and not self.saw_system:
                        value += "\n"  # tool definitions are appended to the first system message
                    # _tokenizer.count inlined: this loop is the hot path of every estimate.
                    tokens += len(encode(value)) if len(value) < long_text else count(enc, value)
                    if key == "name":
                        tokens += self.per_name
                elif value is None:
                    continue
                elif key == "content":
                    tokens += self._parts(value)
                elif key == "tool_calls":
                    tokens += self._tool_calls(value)
                elif key == "function_call" and (call := as_mapping(value)) is not None:
                    tokens += self._call(call)
            if system:
                self.saw_system = True
            elif role == "tool" or role == "function":
                tokens -= 2  # results are shown under the function's name, not a role header
        return tokens

    def _parts(self, parts: Any) -> int:
        if not isinstance(parts, list):
            raise TypeError("message 'content' must be a string, null or a list of parts")
        tokens = 0
        for item in parts:
            part = as_mapping(item)
            if part is None:
                raise TypeError("each content part must be an object")
            kind = part.get("type")
            if kind in ("text", "input_text", "output_text") or (kind is None and "text" in part):
                tokens += self.text(str(part.get("text", "")))
            elif kind == "refusal":
                tokens += self.text(str(part.get("refusal", "")))
            elif kind == "image_url":
                tokens += self._image(part.get("image_url"))
            else:  # input_audio, file, ...: billed by rules we cannot apply offline
                self.approximate = True
        return tokens

    def _image(self, image: Any) -> int:
        if isinstance(image, str):
            image = {"url": image}
        if not isinstance(image, Mapping):
            raise TypeError("'image_url' must be an object with a 'url'")
        detail = str(image.get("detail") or "auto")
        size = size_from_data_uri(str(image.get("url", "")))
        width, height = size or self.image_size
        return image_tokens(width, height, detail)

    def _tool_calls(self, calls: Any) -> int:
        if not isinstance(calls, list):
            raise TypeError("'tool_calls' must be a list")
        tokens = 0
        for item in calls:
            call = as_mapping(item)
            function = as_mapping(call.get("function")) if call is not None else None
            if function is not None:
                tokens += self._call(function)
        return tokens

    def _call(self, function: Mapping[str, Any]) -> int:
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if arguments is not None else ""
        return self.text(str(function.get("name", ""))) + self.text(arguments) + 3

    def choice(self, choice: Any) -> int:
        if choice == "none":
            return 1
        if isinstance(choice, Mapping):
            function = choice.get("function", choice)
            if isinstance(function, Mapping) and isinstance(function.get("name"), str):
                return self.text(function["name"]) + 4
        return 0


def function_defs(tools: Sequence[Mapping[str, Any]] | None, counter: Counter) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for tool in tools or ():
        if not isinstance(tool, Mapping):
            raise TypeError("each tool must be an object")
        function = tool.get("function")
        if tool.get("type", "function") == "function" and isinstance(function, Mapping):
            out.append(function)
        else:  # built-in tools (web search, ...) are described to the model by the server
            counter.approximate = True
    return out
