"""``holyclient doctor``'s judges: what came back from a probe (an :class:`Observation`) turned into a
:class:`Row` -- ``supported``, ``not supported`` or ``different`` (it answered, but not as OpenAI does) --
with the evidence. Pure functions, no I/O; the probes that feed them are in ``_doctor_probes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SUPPORTED, NOT_SUPPORTED, DIFFERENT, INFO = "supported", "not supported", "different", "info"


@dataclass
class Observation:
    """What one probe got back.

    Attributes:
        status: HTTP status, ``None`` when no response arrived (then ``error`` says why).
        headers: response headers (lower-case names).
        body: the parsed JSON body (``None`` if not JSON or a stream).
        events: the parsed chunks of a stream.
        exception: the holyclient exception class an error status maps to (``AuthenticationError`` ...).
        latency / ttft: seconds to the whole answer / to the first chunk with output.
    """

    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    events: list[Any] = field(default_factory=list)
    exception: str | None = None
    error: str | None = None
    latency: float | None = None
    ttft: float | None = None

    def failure(self) -> str:
        """Evidence for a request that did not succeed."""
        if self.status is None:
            return f"no response: {self.error}"
        if self.error is not None:
            return f"HTTP {self.status}, then {self.error}"
        message = ""
        if isinstance(self.body, Mapping) and isinstance(self.body.get("error"), Mapping):
            message = str(self.body["error"].get("message") or "")[:120]
        return f"HTTP {self.status} {self.exception or ''}: {message}".rstrip(": ")


@dataclass(frozen=True)
class Row:
    feature: str
    verdict: str
    evidence: str
    required: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "feature": self.feature,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "required": self.required,
        }


Judge = Callable[[Observation], tuple[str, str]]


def _ok(seen: Observation) -> bool:
    return seen.status is not None and 200 <= seen.status < 300 and seen.error is None


def _message(seen: Observation) -> Mapping[str, Any] | None:
    try:
        message = seen.body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return None
    return message if isinstance(message, Mapping) else None


def _needs_ok(check: Callable[[Observation], tuple[str, str]]) -> Judge:
    """A judge that first requires a 2xx answer (anything else is ``not supported``, with the error)."""

    def judge(seen: Observation) -> tuple[str, str]:
        if not _ok(seen):
            return NOT_SUPPORTED, seen.failure()
        return check(seen)

    return judge


def judge_key(seen: Observation) -> tuple[str, str]:
    if seen.status in (401, 403):
        return NOT_SUPPORTED, f"key rejected: {seen.failure()}"
    if _ok(seen):
        return SUPPORTED, f"HTTP {seen.status} on a 1-token chat request"
    return DIFFERENT, f"key not confirmed: {seen.failure()}"


def judge_models(wanted: Sequence[str]) -> Judge:
    @_needs_ok
    def judge(seen: Observation) -> tuple[str, str]:
        data = seen.body.get("data") if isinstance(seen.body, Mapping) else None
        if not isinstance(data, list):
            return DIFFERENT, "HTTP 200 but no 'data' list"
        ids = {m.get("id") for m in data if isinstance(m, Mapping)}
        missing = [m for m in wanted if m not in ids]
        if missing:
            return DIFFERENT, f"{len(ids)} models listed; not listed: {', '.join(missing)}"
        listed = f"; {', '.join(wanted)} listed" if wanted else ""
        return SUPPORTED, f"{len(ids)} models listed{listed}"

    return judge


@_needs_ok
def judge_chat(seen: Observation) -> tuple[str, str]:
    message = _message(seen)
    if message is None or not isinstance(message.get("content"), str):
        return DIFFERENT, "HTTP 200 but no choices[0].message.content"
    usage = seen.body.get("usage")
    if not isinstance(usage, Mapping) or "prompt_tokens" not in usage:
        return DIFFERENT, "answered, but without usage"
    return SUPPORTED, f"answered {message['content'][:40]!r}; usage {usage.get('total_tokens')} tokens"


def _stream_parts(seen: Observation) -> tuple[int, bool]:
    deltas = sum(1 for e in seen.events if isinstance(e, Mapping) and e.get("choices"))
    usage = any(isinstance(e, Mapping) and isinstance(e.get("usage"), Mapping) for e in seen.events)
    return deltas, usage


@_needs_ok
def judge_stream(seen: Observation) -> tuple[str, str]:
    deltas, _ = _stream_parts(seen)
    if not deltas:
        return DIFFERENT, "HTTP 200 but no chunks with choices"
    return SUPPORTED, f"{deltas} chunks"


@_needs_ok
def judge_stream_usage(seen: Observation) -> tuple[str, str]:
    deltas, usage = _stream_parts(seen)
    if usage:
        return SUPPORTED, "usage chunk sent with stream_options.include_usage"
    if deltas:
        return NOT_SUPPORTED, "stream ended without a usage chunk"
    return DIFFERENT, "no chunks"


@_needs_ok
def judge_tools(seen: Observation) -> tuple[str, str]:
    message = _message(seen) or {}
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return DIFFERENT, "answered in text: tool_choice was not honoured"
    function = calls[0].get("function") or {}
    try:
        json.loads(function.get("arguments") or "")
    except ValueError:
        return DIFFERENT, f"called {function.get('name')!r} with arguments that are not JSON"
    return SUPPORTED, f"called {function.get('name')!r} with JSON arguments"


@_needs_ok
def judge_json(seen: Observation) -> tuple[str, str]:
    content = (_message(seen) or {}).get("content")
    try:
        value = json.loads(content or "")
    except ValueError:
        return DIFFERENT, f"content is not JSON: {str(content)[:40]!r}"
    if not isinstance(value, dict):
        return DIFFERENT, "content is JSON but not an object"
    return SUPPORTED, f"JSON object with keys {sorted(value)[:5]}"


@_needs_ok
def judge_n(seen: Observation) -> tuple[str, str]:
    choices = seen.body.get("choices") if isinstance(seen.body, Mapping) else None
    count = len(choices) if isinstance(choices, list) else 0
    if count == 2:
        return SUPPORTED, "2 choices for n=2"
    return DIFFERENT, f"{count} choice(s) for n=2"


@_needs_ok
def judge_logprobs(seen: Observation) -> tuple[str, str]:
    try:
        content = seen.body["choices"][0]["logprobs"]["content"]
    except (KeyError, IndexError, TypeError):
        content = None
    if isinstance(content, list) and content:
        return SUPPORTED, f"{len(content)} token logprobs"
    return DIFFERENT, "answered, but choices[0].logprobs is empty"


@_needs_ok
def judge_embeddings(seen: Observation) -> tuple[str, str]:
    try:
        vector = seen.body["data"][0]["embedding"]
    except (KeyError, IndexError, TypeError):
        return DIFFERENT, "HTTP 200 but no data[0].embedding"
    return SUPPORTED, f"{len(vector)}-dimensional vector" if isinstance(vector, list) else "base64 vector"


@_needs_ok
def judge_responses(seen: Observation) -> tuple[str, str]:
    output = seen.body.get("output") if isinstance(seen.body, Mapping) else None
    if not isinstance(output, list):
        return DIFFERENT, "HTTP 200 but no 'output' list"
    return SUPPORTED, f"{len(output)} output item(s)"


def judge_error(status: int, exception: str) -> Judge:
    def judge(seen: Observation) -> tuple[str, str]:
        if seen.status == status and seen.exception == exception:
            return SUPPORTED, f"HTTP {status} -> {exception}"
        if seen.status is None:
            return NOT_SUPPORTED, seen.failure()
        got = f"HTTP {seen.status}" + (f" -> {seen.exception}" if seen.exception else "")
        return DIFFERENT, f"expected HTTP {status} -> {exception}, got {got}"

    return judge


def derived_rows(seen: Mapping[str, Observation]) -> list[Row]:
    """Rows judged from every observation: rate-limit headers, latency and time to first token."""
    names: set[str] = set()
    for observation in seen.values():
        names.update(
            k
            for k in observation.headers
            if k.startswith("x-ratelimit-") or k in ("retry-after", "retry-after-ms")
        )
    if names:
        limits = Row("rate-limit headers", SUPPORTED, ", ".join(sorted(names)), False)
    else:
        limits = Row(
            "rate-limit headers", NOT_SUPPORTED, "no x-ratelimit-* or Retry-After header seen", False
        )
    chat, stream = seen.get("chat"), seen.get("streaming")
    parts = []
    if chat is not None and chat.latency is not None and _ok(chat):
        parts.append(f"chat {chat.latency * 1000:.0f} ms")
    if stream is not None and stream.ttft is not None:
        parts.append(f"first token {stream.ttft * 1000:.0f} ms")
    latency = Row("latency", INFO, "; ".join(parts) or "not measured", False)
    return [limits, latency]
