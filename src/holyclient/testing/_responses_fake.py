"""What the local server's ``POST /v1/responses`` answers: output items and their stream events. No I/O.

Deterministic, like the chat handler (:mod:`._handlers`), and following the same rules:

* with function ``tools``, the tool policy of :mod:`._tool_policy` (a call until a
  ``function_call_output`` is in the turn, then the final answer or, under ``"required"``, the output
  tool); the arguments are an instance of the function's JSON schema;
* ``text.format`` of type ``json_schema`` gets an instance of the schema, ``json_object`` one of the
  schema the instructions or input carry (else ``{"echo": <text>}``); otherwise the answer is ``"Echo: <text>"``;
* a stream sends each item as the API does: ``output_item.added``, the text or argument deltas, their
  ``.done`` event, ``output_item.done``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from ._handlers import (
    InvalidRequest,
    _sample_value,
    content_text,
    cut_text,
    instruction_texts,
    require_model,
    text_tokens,
    tool_arguments,
)
from ._json_body import sse
from ._prompt_schema import prompt_schema
from ._scripted_turns import Turn

JSON = dict[str, Any]
_PIECES = re.compile(r"\s*\S+|\s+")


def _functions(body: JSON) -> list[JSON]:
    return [
        tool
        for tool in body.get("tools") or []
        if isinstance(tool, dict) and tool.get("type") == "function" and isinstance(tool.get("name"), str)
    ]


def chosen_function(body: JSON, prompt: str) -> JSON | None:
    """The function tool the model calls, or ``None`` for a text answer (the policy of
    :mod:`._tool_policy`)."""
    from ._tool_policy import choose, responses_turn

    tool_result, called = responses_turn(body.get("input"))
    chosen = choose(_functions(body), body.get("tool_choice"), prompt, tool_result=tool_result, called=called)
    return None if chosen is None else chosen[0]


def answer_text(body: JSON, prompt: str) -> str:
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
        return json.dumps(_sample_value(fmt["schema"], prompt, fmt["schema"]))
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        items = body.get("input")
        texts = [str(body.get("instructions") or ""), prompt]
        texts += instruction_texts(items) if isinstance(items, list) else []
        schema = prompt_schema(texts)  # JSON mode: the schema the prompt carries
        return json.dumps(_sample_value(schema, prompt, schema) if schema else {"echo": prompt})
    return f"Echo: {prompt}"


def function_call_item(function: JSON, response_id: str, prompt: str) -> JSON:
    digest = hashlib.blake2b(response_id.encode(), digest_size=12).hexdigest()
    return {
        "id": "fc_" + response_id[5:],
        "type": "function_call",
        "status": "completed",
        "arguments": tool_arguments(function, prompt),
        "call_id": "call_" + digest,
        "name": function["name"],
    }


def item_tokens(item: JSON) -> int:
    if item["type"] == "function_call":
        return math.ceil((len(item["name"]) + len(item["arguments"])) / 4) + 3
    return math.ceil(len(item["content"][0]["text"]) / 4)


def item_events(item: JSON, output_index: int) -> list[tuple[str, JSON]]:
    """The stream events of one output item, ``output_item.added`` to ``output_item.done``."""
    if item["type"] == "function_call":
        ids = {"item_id": item["id"], "output_index": output_index}
        arguments = item["arguments"]
        return [
            (
                "response.output_item.added",
                {"output_index": output_index, "item": {**item, "arguments": "", "status": "in_progress"}},
            ),
            *[
                ("response.function_call_arguments.delta", {**ids, "delta": p})
                for p in _PIECES.findall(arguments)
            ],
            ("response.function_call_arguments.done", {**ids, "arguments": arguments}),
            ("response.output_item.done", {"output_index": output_index, "item": item}),
        ]
    text = item["content"][0]["text"]
    ids = {"item_id": item["id"], "output_index": output_index, "content_index": 0}
    empty_part = {"type": "output_text", "text": "", "annotations": []}
    return [
        (
            "response.output_item.added",
            {"output_index": output_index, "item": {**item, "status": "in_progress", "content": []}},
        ),
        ("response.content_part.added", {**ids, "part": empty_part}),
        *[("response.output_text.delta", {**ids, "delta": p, "logprobs": []}) for p in _PIECES.findall(text)],
        ("response.output_text.done", {**ids, "text": text, "logprobs": []}),
        ("response.content_part.done", {**ids, "part": item["content"][0]}),
        ("response.output_item.done", {"output_index": output_index, "item": item}),
    ]


# -- the whole response and its stream ----------------------------------------------------------
def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in reversed(value):
            if (
                isinstance(item, dict)
                and item.get("type", "message") == "message"
                and item.get("role") == "user"
            ):
                return content_text(item.get("content")) or "".join(
                    str(p.get("text", "")) for p in item.get("content") or [] if isinstance(p, dict)
                )
    return ""


def response_object(body: JSON, response_id: str, created: int, turn: Turn | None = None) -> JSON:
    """The complete ``Response`` of a ``POST /v1/responses`` (its output items are built above), or of the
    scripted ``turn``."""
    model = require_model(body)
    prompt = _input_text(body.get("input"))
    # a stored prompt template (``prompt: {"id": "pmpt_..."}``) stands in for the input, as on the API,
    # and so does an earlier turn (``previous_response_id``, ``conversation``): a continuation
    if (
        not prompt
        and body.get("input") is None
        and not isinstance(body.get("prompt"), dict)
        and not body.get("previous_response_id")
        and not body.get("conversation")
    ):
        raise InvalidRequest("'input' is required", "input")
    function = chosen_function(body, prompt) if turn is None else None
    cut = False
    if turn is not None and turn.tool is not None:
        item = {**function_call_item({"name": turn.tool}, response_id, prompt), "arguments": turn.arguments}
    elif function is not None:
        item = function_call_item(function, response_id, prompt)
    else:
        answer = answer_text(body, prompt) if turn is None else turn.content
        text, cut = cut_text(answer, body.get("max_output_tokens"))
        cut = cut or (turn is not None and turn.finish_reason == "length")
        item = {
            "id": "msg_" + response_id[5:],
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        }
    input_tokens = text_tokens(prompt) + 3
    output_tokens = item_tokens(item)
    text_config = body.get("text")
    text_config = text_config if isinstance(text_config, dict) else {}
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "error": None,
        "model": model,
        "instructions": body.get("instructions"),
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": body.get("tools") or [],
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}, **text_config},
        "metadata": body.get("metadata") or {},
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def usage_in_shape(relay: Any, body: JSON, response: JSON, cost_factor: float | None) -> JSON:
    """The response's usage as the relay reports it for the model's family (cache reads and writes,
    reasoning, cost: :mod:`._usage_shapes`); its input items are the prompt cache's pieces."""
    source = body.get("input")
    pieces: list[Any] = (
        [source] if isinstance(source, str) else [i for i in source or () if isinstance(i, dict)]
    )
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        pieces.insert(0, {"role": "developer", "content": instructions})
    usage: JSON = response["usage"]

    def tokens_of(piece: Any) -> int:
        return text_tokens(piece if isinstance(piece, str) else content_text(piece.get("content")))

    # The whole input is the prompt here (``response_object`` counts only the last user text): the cache
    # reads and writes are parts of it, and must fit in it.
    whole = sum(map(tokens_of, pieces)) + 3
    if whole > usage["input_tokens"]:
        usage["total_tokens"] += whole - usage["input_tokens"]
        usage["input_tokens"] = whole
    plan = relay.usage_plan(body, pieces, tokens_of, lambda: usage["output_tokens"], cost_factor)
    shaped: JSON = plan.responses(usage)
    return shaped


def input_token_count(body: JSON) -> JSON:
    """``POST /v1/responses/input_tokens``: the input tokens as ``response_object`` counts them."""
    require_model(body)
    return {
        "object": "response.input_tokens",
        "input_tokens": text_tokens(_input_text(body.get("input"))) + 3,
    }


def response_events(response: JSON) -> list[bytes]:
    """The SSE events of a streamed response, ``response.created`` to ``response.completed``."""
    pending = {
        **response,
        "status": "in_progress",
        "output": [],
        "usage": None,
        "incomplete_details": None,
    }
    events: list[tuple[str, JSON]] = [
        ("response.created", {"response": pending}),
        ("response.in_progress", {"response": pending}),
    ]
    for index, item in enumerate(response["output"]):
        events += item_events(item, index)
    events.append(("response." + str(response["status"]), {"response": response}))
    return [sse(kind, {"type": kind, "sequence_number": i, **data}) for i, (kind, data) in enumerate(events)]


# -- legacy completions ------------------------------------------------------------------------
