"""The local server's chat answer: one :class:`ChatPlan` per request, rendered as JSON or as SSE events.

The rules that decide the content (echo, tools, stop, usage) live in :mod:`._handlers`; this module
turns them into the completion object and its stream, computed once per request.
"""

from __future__ import annotations

import hashlib
import math
import random
import re

from . import _providers, _variation
from ._handlers import (
    FINGERPRINT,
    JSON,
    answer_text,
    chosen_tool,
    content_text,
    last_user_text,
    prompt_tokens,
    tool_arguments,
)
from ._json_body import dumps as _dumps
from ._prefill import continued, prefill_of
from ._scripted_turns import Turn
from ._usage_shapes import UsagePlan

_PIECES = re.compile(r"\s*\S+|\s+")


class ChatPlan:
    """Everything both the JSON and the streamed answer need, computed once per request."""

    __slots__ = (
        "arguments",
        "call_id",
        "content",
        "finish",
        "function",
        "logprobs",
        "model",
        "n",
        "prompt_tokens",
        "reasoning",
        "usage_plan",
    )

    def __init__(
        self,
        body: JSON,
        request_id: str,
        *,
        persona: str = "default",
        rng: random.Random | None = None,
        noise: float = 0.0,
        billing: str = "chars",
        turn: Turn | None = None,
    ) -> None:
        messages = body["messages"]
        user_text = last_user_text(messages)
        self.model: str = body["model"]
        self.n: int = body.get("n") or 1
        self.logprobs = bool(body.get("logprobs"))
        if billing == "foreign":
            from ._foreign import foreign_prompt_tokens

            self.prompt_tokens = foreign_prompt_tokens(body, content_text)
        elif persona == "default":
            self.prompt_tokens = prompt_tokens(messages)
        else:
            self.prompt_tokens = _variation.other_prompt_tokens(messages, content_text)
        chosen = chosen_tool(body, user_text) if turn is None else None
        #: how the model's family reports usage (cache reads and writes, reasoning, cost), set by the relay
        self.usage_plan: UsagePlan | None = None
        self.reasoning = _providers.reasoning_for(body, user_text)
        self.function: JSON | None = None
        self.arguments = ""
        self.call_id = ""
        if turn is not None:  # scripted: exactly this answer
            self.content, self.finish = turn.content, turn.finish_reason
            if turn.tool is not None:
                self.function, self.arguments, self.content = {"name": turn.tool}, turn.arguments, ""
                self.call_id = "call_" + hashlib.blake2b(request_id.encode(), digest_size=12).hexdigest()
        elif chosen is not None:
            self.function, self.finish = chosen
            self.arguments = tool_arguments(self.function, user_text)
            self.call_id = "call_" + hashlib.blake2b(request_id.encode(), digest_size=12).hexdigest()
            self.content = ""
        else:
            self.content, self.finish = answer_text(body, user_text, persona, rng, noise)
            prefill = prefill_of(body)
            if prefill is not None:  # asked to continue a started answer: the rest of it
                self.content = continued(self.content, prefill)

    @property
    def completion_tokens(self) -> int:
        if self.function is not None:
            per_choice = math.ceil((len(self.function["name"]) + len(self.arguments)) / 4) + 3
        else:
            per_choice = math.ceil(len(self.content) / 4)
        return per_choice * self.n

    def usage(self) -> JSON:
        completion = self.completion_tokens
        usage = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": self.prompt_tokens + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        return usage if self.usage_plan is None else self.usage_plan.chat(usage)

    def _tool_call(self) -> JSON:
        assert self.function is not None
        return {
            "id": self.call_id,
            "type": "function",
            "function": {"name": self.function["name"], "arguments": self.arguments},
        }

    def completion(self, completion_id: str, created: int) -> JSON:
        message: JSON
        if self.function is not None:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [self._tool_call()],
                "refusal": None,
            }
        else:
            message = {"role": "assistant", "content": self.content, "refusal": None}
        if self.reasoning is not None:
            message["reasoning_content"] = self.reasoning
        logprobs = (
            _variation.logprobs_content(_PIECES.findall(self.content))
            if self.logprobs and self.function is None
            else None
        )
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": self.model,
            "choices": [
                {"index": i, "message": message, "logprobs": logprobs, "finish_reason": self.finish}
                for i in range(self.n)
            ],
            "usage": self.usage(),
            "service_tier": "default",
            "system_fingerprint": FINGERPRINT,
        }

    def deltas(self) -> list[JSON]:
        """The ``delta`` objects of one choice, first (role) to last content piece."""
        thinking = [{"reasoning_content": p} for p in _PIECES.findall(self.reasoning or "")]
        answer = self._answer_deltas()
        if not thinking:
            return answer
        rest = {key: value for key, value in answer[0].items() if key != "role"}
        return [{"role": "assistant", "content": None}, *thinking, rest, *answer[1:]]

    def _answer_deltas(self) -> list[JSON]:
        if self.function is not None:
            call = self._tool_call()
            first: JSON = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["function"]["name"], "arguments": ""},
                    }
                ],
            }
            return [first] + [
                {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
                for piece in _PIECES.findall(self.arguments)
            ]
        return [{"role": "assistant", "content": "", "refusal": None}] + [
            {"content": piece} for piece in _PIECES.findall(self.content)
        ]

    def events(self, completion_id: str, created: int, include_usage: bool) -> list[bytes]:
        """Every SSE event of the stream (``data: {...}\\n\\n``), in order, without ``[DONE]``.

        The envelope shared by all chunks is serialised once and only the deltas per chunk: streams
        are where a naive ``json.dumps`` per chunk would make the server the benchmark's bottleneck.
        """
        envelope = _dumps(
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model,
                "service_tier": "default",
                "system_fingerprint": FINGERPRINT,
            }
        )
        head = "data: " + envelope[:-1] + ',"choices":[{"index":'
        tail = "}]" + (',"usage":null}\n\n' if include_usage else "}\n\n")
        out: list[bytes] = []
        for delta in self.deltas():
            delta_text = _dumps(delta)
            for i in range(self.n):
                out.append(
                    f'{head}{i},"delta":{delta_text},"logprobs":null,"finish_reason":null{tail}'.encode()
                )
        finish = _dumps(self.finish)
        for i in range(self.n):
            out.append(f'{head}{i},"delta":{{}},"logprobs":null,"finish_reason":{finish}{tail}'.encode())
        if include_usage:
            out.append(f'data: {envelope[:-1]},"choices":[],"usage":{_dumps(self.usage())}}}\n\n'.encode())
        return out


# -- models ------------------------------------------------------------------------------------
