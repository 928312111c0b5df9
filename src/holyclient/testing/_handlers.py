"""Pure response builders for the local server: request dict in, OpenAI-shaped dict out. No I/O.

Content is a deterministic function of the request, so tests can assert on it:

* the assistant says ``"Echo: <text of the last user message>"``; when ``response_format`` asks for JSON,
  an instance of the request's schema (``json_schema``'s, or in JSON mode one written in the prompt:
  :mod:`._prompt_schema`), strings set to the text, else ``{"echo": <text>}``; cut at the first ``stop`` sequence and at ``max_tokens * 4``
  characters (``finish_reason="length"``);
* with ``tools``, the tool policy of :mod:`._tool_policy` (a call until a tool result is in the turn,
  then the final answer or, under ``"required"``, the output tool); arguments are an instance of the
  function's JSON schema;
* usage: ``prompt_tokens = sum(ceil(chars / 4) + 3 per message)``, ``completion_tokens =
  ceil(chars of each choice / 4)`` summed over ``n`` choices;
* embeddings: see :mod:`._vectors_fake`.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

from .._core._message_checks import ROLES, message_problem
from . import _providers, _variation
from ._prompt_schema import prompt_schema

JSON = dict[str, Any]

DEFAULT_MODELS = (
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "o3-mini",
    "text-embedding-3-small",
    "text-embedding-3-large",
    "text-embedding-ada-002",
)
FINGERPRINT = "fp_holyclient"


class InvalidRequest(Exception):
    """A request the API would answer 400, with the offending parameter."""

    #: the answer's status and error type (a relay's refusal may differ: see ``_relay.RelayError``)
    status = 400
    type_ = "invalid_request_error"

    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


# -- text and tokens -------------------------------------------------------------------------------
def content_text(content: Any) -> str:
    """The text of a message ``content``: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    return ""


def instruction_texts(messages: Any) -> list[str]:
    """The system, developer and user text of chat ``messages`` (or Responses input items)."""
    return [
        content_text(m.get("content"))
        for m in messages or ()
        if isinstance(m, dict) and m.get("role") in ("system", "developer", "user")
    ]


def messages_chars(messages: list[Any]) -> int:
    """Total characters of message text (the basis of prompt tokens and the TPM cost)."""
    return sum(len(content_text(m.get("content"))) for m in messages if isinstance(m, dict))


def prompt_tokens(messages: list[Any]) -> int:
    return sum(
        math.ceil(len(content_text(m.get("content"))) / 4) + 3 for m in messages if isinstance(m, dict)
    )


def max_tokens_of(body: JSON) -> int | None:
    value = body.get("max_tokens")
    if value is None:
        value = body.get("max_completion_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def chat_cost(body: JSON) -> int:
    """Token cost of a chat request for TPM limits: ceil(message chars / 4) + max_tokens (default 16)."""
    max_tokens = max_tokens_of(body)
    return math.ceil(messages_chars(body.get("messages") or []) / 4) + (
        16 if max_tokens is None else max_tokens
    )


# -- validation --------------------------------------------------------------------------------
def validate_chat(body: JSON, disabled_features: frozenset[str] = frozenset()) -> None:
    """Raise :class:`InvalidRequest` for what the API would answer 400 (a switched-off feature included)."""
    unsupported = _variation.unsupported_parameter(body, disabled_features)
    if unsupported is not None:
        raise InvalidRequest(
            f"Unsupported parameter: '{unsupported}' is not supported with this model.",
            unsupported,
            "unsupported_parameter",
        )
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InvalidRequest("'messages' must be a non-empty array", "messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidRequest(
                f"Invalid value for 'messages[{i}]': expected an object with a role", f"messages[{i}]"
            )
        problem = message_problem(message)
        if problem is not None:  # worded as the real API words it
            name, _, code = problem
            param = f"messages[{i}].{name}"
            if code == "invalid_value":
                allowed = ", ".join(f"'{role}'" for role in ROLES)
                text = f"Invalid value: {message[name]!r}. Supported values are: {allowed}."
            else:
                text = f"Missing required parameter: '{param}'."
            raise InvalidRequest(text, param, code)
    n = body.get("n", 1)
    if n is None:
        n = 1
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 128:
        raise InvalidRequest("'n' must be an integer between 1 and 128", "n")
    max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
    if max_tokens is not None and (
        not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
    ):
        raise InvalidRequest("'max_tokens' must be a positive integer", "max_tokens")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise InvalidRequest("'tools' must be an array", "tools")
    lost = _providers.lost_reasoning(body)
    if lost is not None:
        raise InvalidRequest(*lost)


# -- chat --------------------------------------------------------------------------------------
def last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def _tool_functions(body: JSON) -> list[JSON]:
    functions = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            function = tool["function"]
            if isinstance(function.get("name"), str):
                functions.append(function)
    return functions


def chosen_tool(body: JSON, user_text: str) -> tuple[JSON, str] | None:
    """The function to call and the finish_reason, or ``None`` for a text answer (the policy of
    :mod:`._tool_policy`)."""
    from ._tool_policy import chat_turn, choose

    tool_result, called = chat_turn(body["messages"])
    return choose(
        _tool_functions(body), body.get("tool_choice"), user_text, tool_result=tool_result, called=called
    )


def _sample_value(schema: Any, text: str, root: Any = None) -> Any:
    if not isinstance(schema, dict):
        return text
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and isinstance(root, dict):
        target: Any = root
        for key in ref[2:].split("/"):
            target = target.get(key) if isinstance(target, dict) else None
        return _sample_value(target, text, root)
    variants = schema.get("anyOf")
    if isinstance(variants, list) and variants:  # the first non-null variant
        chosen = next((v for v in variants if isinstance(v, dict) and v.get("type") != "null"), variants[0])
        return _sample_value(chosen, text, root)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "array":
        return [_sample_value(schema.get("items"), text, root)]
    if kind == "object":
        return {k: _sample_value(v, text, root) for k, v in (schema.get("properties") or {}).items()}
    return text


def tool_arguments(function: JSON, text: str) -> str:
    parameters = function.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(properties, dict):
        return "{}"
    return json.dumps({k: _sample_value(v, text, parameters) for k, v in properties.items()})


def answer_text(
    body: JSON, user_text: str, persona: str = "default", rng: random.Random | None = None, noise: float = 0.0
) -> tuple[str, str]:
    fmt = body.get("response_format")
    schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        schema = prompt_schema(instruction_texts(body.get("messages")))  # JSON mode: the prompt's schema
    if (
        isinstance(fmt, dict)
        and fmt.get("type") in ("json_object", "json_schema")
        and isinstance(schema, dict)
    ):
        content = json.dumps(_sample_value(schema, user_text, schema))  # an instance of the schema
    elif isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema"):
        content = json.dumps({"echo": user_text})
    else:
        content = f"Echo: {user_text}"
    content = _variation.vary(content, body, user_text, persona, rng, noise)
    finish = "stop"
    stop = body.get("stop")
    stops = [stop] if isinstance(stop, str) else [s for s in stop or [] if isinstance(s, str) and s]
    cut = min((i for i in (content.find(s) for s in stops if s) if i >= 0), default=-1)
    if cut >= 0:
        content = content[:cut]
    max_tokens = max_tokens_of(body)
    if max_tokens is not None and len(content) > max_tokens * 4:
        content = content[: max_tokens * 4]
        finish = "length"
    return content, finish


def text_tokens(text: str) -> int:
    """Tokens of ``text`` by the servers' rule of 4 characters a token."""
    return math.ceil(len(text) / 4)


def require_model(body: JSON) -> str:
    """``body['model']``, refused as the API refuses a missing one."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("you must provide a model parameter", "model")
    return model


def cut_text(text: str, limit: Any) -> tuple[str, bool]:
    """``text`` cut at ``limit`` tokens (4 characters each), and whether it was cut."""
    if isinstance(limit, int) and not isinstance(limit, bool) and len(text) > limit * 4:
        return text[: limit * 4], True
    return text, False


def model_object(model_id: str) -> JSON:
    return {"id": model_id, "object": "model", "created": 1_700_000_000, "owned_by": "holyclient"}


def models_list(models: tuple[str, ...]) -> JSON:
    return {"object": "list", "data": [model_object(m) for m in models]}
