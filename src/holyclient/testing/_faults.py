"""Programmable faults: what can go wrong with one request, and a seeded random mix of them.

A :class:`Fault` is plain data; the server decides how to act it out for the request it lands on
(a stream cut on a JSON request truncates the body instead, for example). Faults come from three
places, consulted in this order for every ``/v1`` request that passed routing, auth, validation
and rate limits: the one-shot queue (``server.enqueue``), the optional ``hook`` callable, then the
:class:`FaultMix`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

#: Upper bound on any hang, so a forgotten fault can never wedge a test run for long.
MAX_HANG_SECONDS = 600.0

_STATUS_DEFAULTS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Bad request (injected fault)."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided (injected fault)."),
    403: ("permission_denied", None, "You are not allowed to use this model (injected fault)."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist (injected fault)."),
    408: ("server_error", None, "Request timed out (injected fault)."),
    409: ("server_error", None, "Conflict (injected fault)."),
    422: ("invalid_request_error", None, "Unprocessable entity (injected fault)."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests (injected fault)."),
    500: ("server_error", None, "The server had an error while processing your request (injected fault)."),
    502: ("server_error", None, "Bad gateway (injected fault)."),
    503: (
        "server_error",
        None,
        "The engine is currently overloaded, please try again later (injected fault).",
    ),
    504: ("server_error", None, "Gateway timeout (injected fault)."),
}


@dataclass(frozen=True)
class Fault:
    """One fault to inject into one request. Build it with the class methods, not directly.

    Kinds: ``status`` (an error response), ``drop`` (close without any response), ``malformed``
    (200 with a non-JSON body, after the full latency), ``stream_cut`` (close part-way through the
    body), ``stream_error`` (an SSE ``data: {"error": ...}`` event part-way through a stream; a JSON
    request gets the error as a status response instead), ``hang`` (no answer for ``seconds``, then
    close), ``delay`` (extra latency, then a normal answer); and the stream faults of
    :mod:`._fault_streams`: ``slow_first_event`` (the head at once, the first event ``seconds`` later),
    ``stall`` (silent for ``seconds`` after ``after_chunks`` events, the connection open),
    ``malformed_event`` (one event that is not JSON after ``after_chunks``, the rest intact) and
    ``ends_early`` (a clean end after ``after_chunks`` events: no ``finish_reason``, no ``[DONE]``).
    """

    kind: str
    name: str
    status_code: int = 500
    error_type: str = "server_error"
    error_code: str | None = None
    message: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    after_chunks: int = 2
    seconds: float = 0.0
    delay: float = 0.0
    comments_every: float = 0.0
    """``slow_first_event`` / ``stall``: a keep-alive comment (``: PROCESSING``) this often while silent (0: none)."""

    @classmethod
    def status(
        cls,
        status: int,
        *,
        retry_after: float | str | None = None,
        retry_after_ms: float | None = None,
        should_retry: bool | None = None,
        message: str | None = None,
        error_type: str | None = None,
        error_code: str | None = None,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
    ) -> Fault:
        """An error response with an OpenAI-shaped body.

        Args:
            status: any HTTP status from 400 to 599.
            retry_after: ``Retry-After`` value: seconds (int or float) or an HTTP date string.
            retry_after_ms: ``retry-after-ms`` value, in milliseconds.
            should_retry: sets ``x-should-retry: true|false``.
            message, error_type, error_code: override the error body fields.
            headers: extra response headers.
            delay: seconds to wait before answering (by default an error answers at once).
        """
        if not 400 <= status <= 599:
            raise ValueError(f"fault status must be 400..599, got {status}")
        default_type, default_code, default_message = _STATUS_DEFAULTS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None, "Injected fault.")
        )
        extra: list[tuple[str, str]] = []
        if retry_after is not None:
            extra.append(("Retry-After", retry_after if isinstance(retry_after, str) else f"{retry_after:g}"))
        if retry_after_ms is not None:
            extra.append(("retry-after-ms", f"{retry_after_ms:g}"))
        if should_retry is not None:
            extra.append(("x-should-retry", "true" if should_retry else "false"))
        extra.extend((headers or {}).items())
        return cls(
            kind="status",
            name=str(status),
            status_code=status,
            error_type=error_type or default_type,
            error_code=error_code if error_code is not None else default_code,
            message=message or default_message,
            headers=tuple(extra),
            delay=delay,
        )

    @classmethod
    def insufficient_quota(cls) -> Fault:
        """A 429 that is not a rate limit: the account is out of credit (clients must not retry)."""
        fault = cls.status(
            429,
            error_type="insufficient_quota",
            error_code="insufficient_quota",
            message="You exceeded your current quota, please check your plan and billing details.",
        )
        return replace(fault, name="insufficient_quota")

    @classmethod
    def drop(cls, *, delay: float = 0.0) -> Fault:
        """Close the connection without sending a response (after ``delay`` seconds)."""
        return cls(kind="drop", name="drop", delay=delay)

    @classmethod
    def malformed(cls) -> Fault:
        """Answer 200 with a body that is not valid JSON, after the server's full latency."""
        return cls(kind="malformed", name="malformed", status_code=200)

    @classmethod
    def stream_cut(cls, after_chunks: int = 2) -> Fault:
        """Close the connection after ``after_chunks`` SSE events (JSON requests: half the body)."""
        return cls(kind="stream_cut", name="stream_cut", after_chunks=after_chunks)

    @classmethod
    def stream_error(
        cls,
        after_chunks: int = 2,
        *,
        message: str = "The server had an error while processing your request.",
        error_type: str = "server_error",
        error_code: str | None = None,
        status: int = 500,
    ) -> Fault:
        """Send ``data: {"error": ...}`` after ``after_chunks`` events, then end the stream.

        A non-streaming request gets the same error as a ``status`` response instead.
        """
        return cls(
            kind="stream_error",
            name="stream_error",
            status_code=status,
            error_type=error_type,
            error_code=error_code,
            message=message,
            after_chunks=after_chunks,
        )

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Fault:
        """Send nothing for ``seconds`` (capped at 600), then close: longer than a client timeout."""
        return cls(kind="hang", name="hang", seconds=min(max(seconds, 0.0), MAX_HANG_SECONDS))

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Wait ``seconds`` on top of the server's latency, then answer normally."""
        return cls(kind="delay", name="delay", seconds=max(seconds, 0.0))

    @classmethod
    def slow_first_event(cls, seconds: float, *, comments_every: float = 0.0) -> Fault:
        """A stream whose head comes at once and whose first event comes ``seconds`` later (a model slow to
        its first token, or one that thinks silently); a JSON request gets its answer ``seconds`` late.

        Args:
            comments_every: send an SSE comment (``: PROCESSING``) this often while waiting, as relays
                do to keep a connection open (0: silent).
        """
        return cls(
            kind="slow_first_event",
            name="slow_first_event",
            seconds=max(seconds, 0.0),
            comments_every=max(comments_every, 0.0),
        )

    @classmethod
    def stall(cls, after_chunks: int = 2, seconds: float = 30.0, *, comments_every: float = 0.0) -> Fault:
        """Send ``after_chunks`` events, then nothing for ``seconds`` (capped as ``hang``) with the
        connection open, then close it: a stream that goes silent. A JSON request gets half its body
        before the silence."""
        return cls(
            kind="stall",
            name="stall",
            after_chunks=after_chunks,
            seconds=min(max(seconds, 0.0), MAX_HANG_SECONDS),
            comments_every=max(comments_every, 0.0),
        )

    @classmethod
    def malformed_event(cls, after_chunks: int = 2) -> Fault:
        """One event that is not valid JSON after ``after_chunks`` events; the rest of the stream intact
        (a relay that garbles one event). A JSON request gets a body that is not JSON (as ``malformed``)."""
        return cls(kind="malformed_event", name="malformed_event", after_chunks=after_chunks)

    @classmethod
    def ends_early(cls, after_chunks: int = 2) -> Fault:
        """End the stream cleanly after ``after_chunks`` events: no ``finish_reason``, no ``[DONE]`` (a
        proxy that closes streams that way). A JSON request gets its answer as usual."""
        return cls(kind="ends_early", name="ends_early", after_chunks=after_chunks)

    @classmethod
    def context_length_exceeded(cls, window: int = 128_000) -> Fault:
        """A 400 ``context_length_exceeded``, worded as OpenAI's: the prompt does not fit ``window``."""
        return cls.status(
            400,
            error_code="context_length_exceeded",
            message=(
                f"This model's maximum context length is {window} tokens. However, your messages "
                f"resulted in {window + 1000} tokens. Please reduce the length of the messages."
            ),
        )._named("context_length_exceeded")

    @classmethod
    def content_filter(cls) -> Fault:
        """A 400 ``content_filter`` refusal of the prompt, worded as Azure OpenAI's."""
        return cls.status(
            400,
            error_code="content_filter",
            message=(
                "The response was filtered due to the prompt triggering Azure OpenAI's content management "
                "policy. Please modify your prompt and retry."
            ),
        )._named("content_filter")

    def _named(self, name: str) -> Fault:
        return replace(self, name=name)


#: Names accepted by :func:`fault_from_name`, besides any three-digit status from 400 to 599.
FAULT_NAMES = (
    "insufficient_quota",
    "drop",
    "malformed",
    "stream_cut",
    "stream_error",
    "hang",
    "delay",
    "slow_first_event",
    "stall",
    "malformed_event",
    "ends_early",
    "context_length_exceeded",
    "content_filter",
)

#: The mix used when ``FaultMix(kinds=None)``: the transient faults a retrying client must survive.
DEFAULT_KINDS: dict[str, float] = {
    "429": 3.0,
    "500": 1.0,
    "502": 1.0,
    "503": 1.0,
    "drop": 1.0,
    "malformed": 1.0,
    "hang": 1.0,
}


def fault_from_name(name: str, *, retry_after: float | None = 1.0, hang_seconds: float = 30.0) -> Fault:
    """Build the fault a mix or the ``--faults`` option names (``"429"``, ``"drop"``, ...)."""
    if name.isdigit() and len(name) == 3:
        status = int(name)
        return Fault.status(status, retry_after=retry_after if status == 429 else None)
    if name == "insufficient_quota":
        return Fault.insufficient_quota()
    if name == "drop":
        return Fault.drop()
    if name == "malformed":
        return Fault.malformed()
    if name == "stream_cut":
        return Fault.stream_cut()
    if name == "stream_error":
        return Fault.stream_error()
    if name == "hang":
        return Fault.hang(hang_seconds)
    if name == "delay":
        return Fault.slow(1.0)
    named: dict[str, Callable[[], Fault]] = {
        "slow_first_event": lambda: Fault.slow_first_event(hang_seconds),
        "stall": lambda: Fault.stall(seconds=hang_seconds),
        "malformed_event": Fault.malformed_event,
        "ends_early": Fault.ends_early,
        "context_length_exceeded": Fault.context_length_exceeded,
        "content_filter": Fault.content_filter,
    }
    if name in named:
        return named[name]()
    raise ValueError(
        f"unknown fault kind {name!r}; expected a status 400..599 or one of {', '.join(FAULT_NAMES)}"
    )


def parse_kinds(spec: str) -> dict[str, float]:
    """Parse ``"429=3,500=1,drop"`` (a missing weight means 1) into a weight mapping."""
    kinds: dict[str, float] = {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, weight_text = item.partition("=")
        name = name.strip()
        try:
            weight = float(weight_text) if sep else 1.0
        except ValueError:
            raise ValueError(f"invalid weight {weight_text!r} for fault kind {name!r}") from None
        if weight < 0:
            raise ValueError(f"negative weight for fault kind {name!r}")
        fault_from_name(name)  # validates the name
        kinds[name] = weight
    if not kinds:
        raise ValueError("empty fault list")
    return kinds


@dataclass
class FaultMix:
    """A seeded random mix: each request gets a fault with probability ``rate``.

    Args:
        rate: probability in [0, 1] that a request gets a fault.
        kinds: fault name -> relative weight (see :data:`DEFAULT_KINDS` and :func:`fault_from_name`).
        seed: seeds the generator, so the same request order yields the same faults.
        retry_after: ``Retry-After`` seconds on 429s (``None`` to send none).
        hang_seconds: how long ``hang`` faults stay silent (set it above your client timeout).
    """

    rate: float = 0.2
    kinds: Mapping[str, float] | None = None
    seed: int | None = 0
    retry_after: float | None = 1.0
    hang_seconds: float = 30.0
    _rng: random.Random = field(init=False, repr=False)
    _faults: list[Fault] = field(init=False, repr=False)
    _weights: list[float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], got {self.rate}")
        kinds = dict(self.kinds if self.kinds is not None else DEFAULT_KINDS)
        self._faults = [
            fault_from_name(name, retry_after=self.retry_after, hang_seconds=self.hang_seconds)
            for name in kinds
        ]
        self._weights = [float(w) for w in kinds.values()]
        if self.rate > 0 and sum(self._weights) <= 0:
            raise ValueError("fault weights must not all be zero")
        self._rng = random.Random(self.seed)

    def next(self) -> Fault | None:
        """Draw the fault for the next request, or ``None``."""
        if self.rate <= 0 or self._rng.random() >= self.rate:
            return None
        return self._rng.choices(self._faults, self._weights)[0]
