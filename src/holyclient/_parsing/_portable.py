"""Structured outputs on a model that cannot take a JSON schema: the bookkeeping both APIs share. Sans-IO.

A ``parse()`` call is driven by a small state machine (:class:`Structured`; the chat and Responses
shapes are in :mod:`._portable_chat` and :mod:`._portable_responses`): it says which request to send
next, and what each answer or refusal means -- the next way of asking after a 400 that says the way is
unavailable (learned, so it is not sent again), one repair request after an answer that does not
validate, or the result. The resources only send what it asks for, each attempt through the client's
own call path (so budgets, retries, spans and usage apply to it as to any call), and await in the
async twin. The ways and their order are :data:`._capabilities.METHODS`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pydantic

from ..types._structured_output import StructuredAttempt, StructuredOutput, set_structured_output
from ._capabilities import rejects
from ._completions import parse_content, response_format_param

#: What the model is told in ``json_object`` mode; it says "json", which DeepSeek requires.
INSTRUCTION = (
    "Reply with one json object and nothing else: no prose, no code fence. "
    "It must be valid against this JSON schema:\n{schema}"
)
REPAIR = (
    "That json is not valid against the schema: {errors}. Reply again with only the corrected json object."
)
TOOL_REPAIR = "Invalid arguments: {errors}. Call {name} again with corrected arguments."
_NAME = re.compile(r"[^a-zA-Z0-9_-]")


#: What a JSON schema given as data (not a class) is validated as: one JSON object, the rest is the
#: framework's to check against its own model.
_JSON_OBJECT: pydantic.TypeAdapter[dict[str, Any]] = pydantic.TypeAdapter(dict[str, Any])


def tool_name(response_format: type | Mapping[str, Any]) -> str:
    """The output tool's name: the class name, or the schema's ``name``, in the characters allowed."""
    name = response_format.get("name") if isinstance(response_format, Mapping) else response_format.__name__
    return _NAME.sub("_", str(name or ""))[:64] or "final_answer"


def strict_schema(response_format: type) -> dict[str, Any]:
    """The strict JSON schema of the class, as the ``json_schema`` way sends it."""
    param = response_format_param(response_format)
    assert param is not None
    schema: dict[str, Any] = param["json_schema"]["schema"]
    return schema


def json_text(content: str | None) -> str:
    """The JSON in a reply: the reply itself, or what a code fence or surrounding prose holds."""
    text = (content or "").strip()
    fence = re.match(r"^```[a-zA-Z]*\s*(.*?)\s*```$", text, re.DOTALL)
    if fence:
        return fence.group(1)
    if text[:1] not in "{[":
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            return text[start : end + 1]
    return text


def error_text(error: pydantic.ValidationError) -> str:
    """A validation error in a few words the model can act on (no input values, no URLs)."""
    parts = []
    for item in error.errors(include_url=False)[:10]:
        where = ".".join(str(part) for part in item["loc"]) or "the value"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def _summed(usages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for usage in usages:
        for key, value in usage.items():
            if isinstance(value, bool) or value is None:
                total.setdefault(key, value)
            elif isinstance(value, int | float):
                total[key] = total.get(key, 0) + value
            elif isinstance(value, dict):
                total[key] = _summed([total.get(key) or {}, value])
    return total


def _cost(model: str, usage: dict[str, Any]) -> float | None:
    from ..pricing import UnknownModelError, cost_from_usage

    try:
        return cost_from_usage(model, usage).cost_usd
    except (UnknownModelError, ValueError, TypeError):
        return None


class Structured:
    """What one ``parse()`` call has tried and learned; the chat and Responses drivers build on it.

    The format is a class to validate into (``parse()``), or a JSON schema given as data -- the
    ``json_schema`` object of a request's ``response_format`` or its Responses ``text.format``, as a
    framework sends it through ``as_openai()`` -- whose answers are checked to be one JSON object.
    """

    def __init__(
        self,
        model: str,
        response_format: type | Mapping[str, Any],
        methods: Iterable[str],
        learn: Callable[[str], None],
    ) -> None:
        self.model = model
        self.format = response_format
        self._methods = list(methods)
        self.method = self._methods[0]
        self._learn = learn
        self.name = tool_name(response_format)
        if isinstance(response_format, Mapping):
            schema = response_format.get("schema")
            self.schema: dict[str, Any] = dict(schema) if isinstance(schema, Mapping) else {}
            self.description = str(response_format.get("description") or "").strip()
            self.strict = response_format.get("strict") is True
        else:
            self.schema = strict_schema(response_format)
            self.description = (response_format.__doc__ or "").strip()
            self.strict = True
        #: what the repair request appends to the conversation (``None``: no repair asked yet)
        self.repair: list[dict[str, Any]] | None = None
        self.attempts: list[StructuredAttempt] = []

    @property
    def native(self) -> bool:
        """Whether this call is openai's: the JSON schema and nothing else."""
        return self._methods == ["json_schema"]

    def instruction(self) -> str:
        return INSTRUCTION.format(schema=json.dumps(self.schema, separators=(",", ":")))

    def tool_description(self) -> str:
        return self.description or f"Give the final answer as {self.name}."

    def validate(self, text: str) -> Any:
        """``text`` decoded as the format asks.

        Raises:
            pydantic.ValidationError: it does not fit the class (or, for a schema given as data, is not
                one JSON object).
        """
        if isinstance(self.format, Mapping):
            return _JSON_OBJECT.validate_json(text)
        return parse_content(self.format, text)

    def rejected(self, error: BaseException) -> bool:
        """After an error: ``True`` to ask the next way (the refusal is learned), ``False`` to raise it."""
        if len(self._methods) < 2 or not rejects(error, self.method):
            return False
        self._learn(self.method)
        self.attempts.append(StructuredAttempt(self.method, "rejected"))
        self._methods.pop(0)
        self.method = self._methods[0]
        self.repair = None
        return True

    def record(self, usage: Any) -> None:
        """Note an answered attempt and what it used (priced when first asked)."""
        model = self.model
        self.attempts.append(
            StructuredAttempt(self.method, "answered", usage, lambda data: _cost(model, data))
        )

    def invalid(self, repair: list[dict[str, Any]]) -> bool:
        """The last answer did not validate: ``True`` when one repair request is to be sent."""
        if self.repair is not None:
            return False
        last = self.attempts[-1]
        self.attempts[-1] = StructuredAttempt(last.method, "invalid", last.answered_usage, last.price)
        self.repair = repair
        return True

    def finish(self, result: Any) -> None:
        """Record how ``result`` was obtained and, after several attempts, their usage together on it."""
        set_structured_output(result, StructuredOutput(self.method, tuple(self.attempts)))
        answered = [a for a in self.attempts if a.outcome != "rejected"]
        usage = getattr(result, "usage", None)
        if len(answered) > 1 and isinstance(usage, pydantic.BaseModel):
            result.usage = type(usage).model_validate(
                _summed(a.usage for a in answered if a.usage is not None)
            )
