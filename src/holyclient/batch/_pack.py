"""Embedding input packing: many one-text lines sent as one request, answered as one line each.

Most embedding files hold one text per line; sent one by one they spend the provider's requests per
minute a hundred times faster than needed. :class:`Packer` gathers embedding requests with the same
model and parameters into one request of at most ``max_inputs`` inputs and ``max_tokens`` tokens;
:func:`unpack` gives each line its own result back -- its vectors (re-indexed from 0), the answer's
other fields, and its share of the usage (in proportion to its counted tokens, summing to the
answer's). :func:`split` halves a packed request, to isolate an input the server refuses (when the refusal
may be one input's: :func:`may_be_one_input`).

Sans-IO: the runner sends what the packer gives it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._constants import EMBEDDINGS_URL
from ._bodies import MAX_EMBEDDING_INPUTS
from ._types import BatchRequest, BatchResult, request_fingerprint

DEFAULT_PACK_INPUTS = 256
DEFAULT_PACK_TOKENS = 100_000


@dataclass(frozen=True)
class Part:
    """One input line inside a packed request: its id, how many inputs it holds, its counted tokens."""

    custom_id: str
    inputs: int
    tokens: int
    fingerprint: str | None


@dataclass(frozen=True)
class PackedRequest(BatchRequest):
    """An embeddings request made of several input lines (``parts``, in the order of ``body.input``)."""

    parts: tuple[Part, ...] = ()


def _inputs(value: Any) -> list[Any]:
    """A line's inputs as a list: a string or one token list is one input."""
    if isinstance(value, str) or (isinstance(value, list) and value and isinstance(value[0], int)):
        return [value]
    return list(value)


def _count(body: Mapping[str, Any]) -> int:
    from ..ratelimit import count_prompt_tokens

    return count_prompt_tokens(body, EMBEDDINGS_URL) or 1


@dataclass
class _Group:
    params: dict[str, Any]
    inputs: list[Any] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    tokens: int = 0


class Packer:
    """Gathers embedding requests into packed ones; other requests pass through unchanged.

    Args:
        max_inputs: most inputs in one request (the API allows 2,048).
        max_tokens: most counted tokens in one request.
    """

    def __init__(self, max_inputs: int = DEFAULT_PACK_INPUTS, max_tokens: int = DEFAULT_PACK_TOKENS) -> None:
        if not 1 <= max_inputs <= MAX_EMBEDDING_INPUTS:
            raise ValueError(f"max_inputs must be between 1 and {MAX_EMBEDDING_INPUTS}")
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        self.max_inputs = max_inputs
        self.max_tokens = max_tokens
        self._groups: dict[str, _Group] = {}

    def add(self, request: BatchRequest) -> list[BatchRequest]:
        """Take one request; returns the requests ready to send (none while a pack is filling)."""
        if request.url != EMBEDDINGS_URL or isinstance(request, PackedRequest):
            return [request]
        body = request.body
        inputs = _inputs(body.get("input"))
        params = {key: value for key, value in body.items() if key != "input"}
        # texts and token lists are never mixed in one request (the API takes one kind or the other)
        kind = "tokens" if not isinstance(inputs[0], str) else "text"
        key = kind + json.dumps(params, sort_keys=True, default=str)
        part = Part(request.custom_id, len(inputs), _count(body), request_fingerprint(body))
        ready: list[BatchRequest] = []
        group = self._groups.get(key)
        if group is not None and (
            len(group.inputs) + part.inputs > self.max_inputs or group.tokens + part.tokens > self.max_tokens
        ):
            ready.append(self._close(key))
            group = None
        if group is None:
            group = self._groups[key] = _Group(params)
        group.inputs += inputs
        group.parts.append(part)
        group.tokens += part.tokens
        if len(group.inputs) >= self.max_inputs or group.tokens >= self.max_tokens:
            ready.append(self._close(key))
        return ready

    def flush(self) -> list[BatchRequest]:
        """The packs still filling, to send now that the input has ended."""
        return [self._close(key) for key in list(self._groups)]

    def _close(self, key: str) -> BatchRequest:
        group = self._groups.pop(key)
        body = {**group.params, "input": group.inputs}
        first = group.parts[0]
        return PackedRequest(
            f"pack:{first.custom_id}+{len(group.parts) - 1}", body, EMBEDDINGS_URL, tuple(group.parts)
        )


def split(request: PackedRequest) -> tuple[PackedRequest, PackedRequest]:
    """The two halves of a packed request (by parts), to isolate an input the server refuses."""
    middle = len(request.parts) // 2
    inputs = request.body["input"]
    cut = sum(part.inputs for part in request.parts[:middle])
    halves = []
    for parts, chunk in ((request.parts[:middle], inputs[:cut]), (request.parts[middle:], inputs[cut:])):
        body = {**request.body, "input": chunk}
        halves.append(
            replace(request, custom_id=f"pack:{parts[0].custom_id}+{len(parts) - 1}", body=body, parts=parts)
        )
    return halves[0], halves[1]


def may_be_one_input(result: BatchResult) -> bool:
    """Whether halving a packed request the server refused could isolate the input at fault.

    Only a 400 that blames the inputs (``param`` ``input``, or no ``param`` at all: the server did not
    say) can; one that names another parameter (``dimensions``, ``encoding_format``) is the same for
    every line of the pack, so halving would send about twice as many requests to learn it once per line.
    """
    if result.status_code != 400:
        return False
    error = result.body.get("error") if isinstance(result.body, Mapping) else None
    param = error.get("param") if isinstance(error, Mapping) else None
    return (
        not isinstance(param, str) or not param or param == "input" or param.startswith(("input[", "input."))
    )


def _shares(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainders), summing to ``total``."""
    whole = sum(weights) or 1
    exact = [total * w / whole for w in weights]
    shares = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in order[: total - sum(shares)]:
        shares[i] += 1
    return shares


def _result(part: Part, result: BatchResult, **fields: Any) -> BatchResult:
    return replace(result, custom_id=part.custom_id, fingerprint=part.fingerprint, **fields)


def unpack(request: PackedRequest, result: BatchResult) -> list[BatchResult]:
    """One result per line of ``request``: its own vectors and usage share, or the request's failure."""
    if not result.ok:
        return [_result(part, result, usage=None) for part in request.parts]
    body = result.body
    data = sorted(body["data"], key=lambda item: item.get("index", 0) if isinstance(item, dict) else 0)
    if len(data) != sum(part.inputs for part in request.parts) or not all(isinstance(d, dict) for d in data):
        error = {
            "code": "invalid_response",
            "message": f"the answer holds {len(data)} embeddings for {len(request.body['input'])} inputs",
        }
        return [_result(part, result, error=error, usage=None) for part in request.parts]
    usage = result.usage or {}
    prompt = _shares(int(usage.get("prompt_tokens") or 0), [part.tokens for part in request.parts])
    total = _shares(int(usage.get("total_tokens") or 0), [part.tokens for part in request.parts])
    rest = {key: value for key, value in body.items() if key not in ("data", "usage")}
    results = []
    start = 0
    for part, p, t in zip(request.parts, prompt, total, strict=True):
        own = [{**item, "index": i} for i, item in enumerate(data[start : start + part.inputs])]
        start += part.inputs
        share = {"prompt_tokens": p, "total_tokens": t}
        results.append(
            _result(
                part,
                result,
                body={**rest, "data": own, "usage": share},
                usage={**share, "completion_tokens": 0},
            )
        )
    return results
