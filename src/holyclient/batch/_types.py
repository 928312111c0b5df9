"""The batch runner's values: a request, its result (and its OpenAI Batch API output line), the tallies."""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL

#: An output line's ``id`` as holyclient writes it: the request's fingerprint, then random hex. The
#: fingerprint lets a resume notice that INPUT changed under the same ``custom_id``.
_FINGERPRINTED_ID = re.compile(r"batch_req_([0-9a-f]{12})_[0-9a-f]{12}")
#: ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` without building an
#: encoder per call (a batch fingerprints every body)
_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
#: ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``: an output line, without building an
#: encoder per line
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
#: The random half of each output line's ``id``: unique per line, as the Batch API's are, not a secret (a
#: generator seeded once per process, rather than a system call per line).
_unique = random.Random(secrets.randbits(128)).getrandbits


def request_fingerprint(body: Mapping[str, Any]) -> str | None:
    """12 hex digits identifying a request body (``None`` for a body that is not plain JSON)."""
    try:
        text = _canonical(body)
    except (TypeError, ValueError):
        return None
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def line_fingerprint(line: Mapping[str, Any]) -> str | None:
    """The request fingerprint recorded in an output line's ``id`` (``None``: not recorded)."""
    match = _FINGERPRINTED_ID.fullmatch(str(line.get("id") or ""))
    return match.group(1) if match else None


@dataclass(frozen=True)
class BatchRequest:
    """One request of a batch.

    Attributes:
        custom_id: your identifier, unique within the batch; results carry it back.
        body: the request body (for chat: ``model``, ``messages``, any other parameter).
        url: the endpoint, as in the OpenAI Batch API input format: ``/v1/chat/completions`` (the
            default), ``/v1/embeddings``, ``/v1/completions``, ``/v1/responses`` or ``/v1/moderations``.
    """

    custom_id: str
    body: Mapping[str, Any]
    url: str = CHAT_COMPLETIONS_URL


@dataclass
class BatchResult:
    """The outcome of one request, after its retries.

    Attributes:
        custom_id: the request's ``custom_id``.
        status_code: the HTTP status of the last attempt, ``None`` when no response was obtained.
        request_id: the server's ``x-request-id`` of the last attempt.
        body: the parsed response body (the completion, or the error body the server sent).
        error: ``{"code", "message"}`` when the last attempt got no usable response (connection error,
            timeout, malformed body, refused before sending).
        attempts: attempts made (1 = no retry).
        model: the model that answered (or was asked), for per-model tallies.
        usage: the response's ``usage``, when it succeeded.
        fingerprint: the request body's :func:`request_fingerprint`, recorded in the output line's ``id``.
    """

    custom_id: str
    status_code: int | None = None
    request_id: str | None = None
    body: Any = None
    error: dict[str, str] | None = None
    attempts: int = 1
    model: str | None = None
    usage: Mapping[str, Any] | None = None
    fingerprint: str | None = None
    #: The answer's bytes and the body parsed from them (:meth:`keep_answer`); not copied by
    #: ``dataclasses.replace``, which builds results of other bodies.
    _answer: tuple[Any, bytes] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300

    def _id(self) -> str:
        if self.fingerprint:
            return f"batch_req_{self.fingerprint}_{_unique(48):012x}"
        return f"batch_req_{_unique(96):024x}"

    def output_line(self) -> dict[str, Any]:
        """This result in the OpenAI Batch API output format."""
        response = None
        if self.status_code is not None:
            response = {"status_code": self.status_code, "request_id": self.request_id, "body": self.body}
        return {"id": self._id(), "custom_id": self.custom_id, "response": response, "error": self.error}

    def keep_answer(self, content: bytes) -> None:
        """Keep the answer's bytes that :attr:`body` was parsed from (the key cut out), for
        :meth:`output_bytes` to write as they came."""
        self._answer = (self.body, content)

    def output_bytes(self) -> bytes:
        """:meth:`output_line` as one JSONL line, newline included.

        A 2xx answer the runner read is written as its bytes came (the key cut out), between the line's
        other fields, rather than parsed and encoded again: the same JSON, in the server's own spelling
        of it (its key order, its numbers), at a fraction of the cost. A body replaced since
        (``result.body = ...``) is encoded as usual; one changed in place is not seen -- give it a new
        dict. An answer that spans lines (pretty-printed) or is not UTF-8 is encoded as usual too.
        """
        answer = self._answer
        if (
            answer is not None
            and answer[0] is self.body
            and self.status_code is not None
            and self.error is None
        ):
            content = answer[1].strip()  # JSON's whitespace only: it was parsed
            if (
                content[:1] == b"{"
                and content[1:2] != b"\x00"
                and b"\n" not in content
                and b"\r" not in content
            ):
                head = (
                    f'{{"id":"{self._id()}","custom_id":{_compact(self.custom_id)},"response":'
                    f'{{"status_code":{self.status_code},"request_id":{_compact(self.request_id)},"body":'
                )
                return b"".join((head.encode(), content, b'},"error":null}\n'))
        return (_compact(self.output_line()) + "\n").encode()


def line_succeeded(line: Mapping[str, Any]) -> bool:
    """Whether a Batch API output line records a success (2xx response and no error)."""
    if line.get("error") is not None:
        return False
    response = line.get("response")
    if not isinstance(response, Mapping):
        return False
    status = response.get("status_code")
    return isinstance(status, int) and 200 <= status < 300


@dataclass
class ModelTally:
    """Requests and tokens of one model."""

    requests: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class BatchStats:
    """Running tallies of a batch (read them while it runs for progress).

    Attributes:
        started: requests taken from the input.
        done / succeeded / failed: requests finished, and how.
        attempts: HTTP attempts made; ``retries`` = attempts beyond each request's first.
        rate_limited: attempts answered 429 as a rate limit.
        success_seconds: summed duration of the successful attempts (see :attr:`mean_latency`), and
            ``successful_attempts`` their number (fewer than ``succeeded`` when embeddings are packed).
        models: per-model requests and tokens.
        elapsed: seconds since the run started (final once it ends).
    """

    started: int = 0
    done: int = 0
    succeeded: int = 0
    failed: int = 0
    attempts: int = 0
    retries: int = 0
    rate_limited: int = 0
    concurrency: int = 0
    elapsed: float = 0.0
    success_seconds: float = 0.0
    successful_attempts: int = 0
    models: dict[str, ModelTally] = field(default_factory=dict)

    @property
    def mean_latency(self) -> float | None:
        """Mean seconds of a successful attempt, as the runner saw it (``None`` before the first)."""
        count = self.successful_attempts or self.succeeded
        return self.success_seconds / count if count else None

    @property
    def prompt_tokens(self) -> int:
        return sum(t.prompt_tokens for t in self.models.values())

    @property
    def completion_tokens(self) -> int:
        return sum(t.completion_tokens for t in self.models.values())

    def record(self, result: BatchResult) -> None:
        self.done += 1
        model = result.model or "unknown"
        tally = self.models.get(model)
        if tally is None:
            tally = self.models[model] = ModelTally()
        tally.requests += 1
        if result.ok:
            self.succeeded += 1
            usage = result.usage or {}
            tally.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            tally.completion_tokens += int(usage.get("completion_tokens") or 0)
        else:
            self.failed += 1
            tally.failed += 1
