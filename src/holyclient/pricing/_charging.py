"""How each endpoint is charged: one declaration per endpoint, which every caller asks.

Whether a request is held against the budget, how its prompt is counted, where its answer reports
usage, how a stream of it reports usage, and which failures after sending may still have been billed
are properties of the *endpoint*, so they are written once, here, in :data:`ENDPOINTS`: the client's
send pipeline, its streams, the batch runner, a Router and the framework transports all ask
:func:`charging_for` (an :class:`~holyclient.resources._operation.Operation` carries its own as
``operation.charging``, read from this table when it is declared, and a test walks every operation
against the table). Nothing decides these from the shape of a body.

The table lives here, below the send pipeline, rather than beside each operation in ``resources/``:
requests that no resource method built -- a batch file's lines, ``client.post(...)``, a request an
``openai`` client hands to holyclient's transport -- must find their endpoint's rules without
importing every resource module.

The vocabulary:

* **counts**: the endpoint path the token counter reads the body as (``None``: nothing to count).
* **holds**: what a request holds against a budget before it is sent -- ``"prompt+output"`` (a
  generation: the prompt plus its output allowance, see :mod:`holyclient.pricing._tracker` for the
  policy), ``"prompt"`` (embeddings: nothing is generated), ``"unpriced"`` (it costs money but
  holyclient has no price for it: a client with a budget refuses it, since the budget could not be
  checked) or ``"nothing"`` (free).
* **settles**: the answer's ``usage`` is charged (False for answers that repeat usage billed
  elsewhere: a stored completion retrieved, a batch's totals, a response replayed).
* **stream**: how a stream reports its usage -- ``"ask"`` (only when the request asks with
  ``stream_options.include_usage``), ``"final event"`` (the Responses API's ``response.completed``)
  or ``None`` (not charged as a stream).
* **maybe_billed**: the failures *after the request was handed to the wire* whose outcome is
  unknown, so the request may have been billed: ``"timeout"`` (no answer in time), ``"dropped"``
  (the connection failed after sending), ``"cancelled"`` (the caller cancelled the task or
  interrupted the call while it waited for the answer), ``"unreadable"`` (a 2xx whose body could not
  be read: the work was done, its usage is lost). A failure before sending releases the hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AFTER_SENDING",
    "CHAT",
    "ENDPOINTS",
    "UNDECLARED",
    "Charging",
    "FailureKind",
    "charging_for",
    "routes",
]

FailureKind = Literal["timeout", "dropped", "cancelled", "unreadable"]
Holds = Literal["prompt+output", "prompt", "unpriced", "nothing"]
StreamUsage = Literal["ask", "final event"]

#: Every failure after sending leaves a billed endpoint's outcome unknown.
AFTER_SENDING: frozenset[FailureKind] = frozenset({"timeout", "dropped", "cancelled", "unreadable"})


@dataclass(frozen=True, slots=True)
class Charging:
    """One endpoint's money rules (see the module docstring for each field).

    Attributes:
        name: what a request to it is, for messages ("chat completion").
        counts: the endpoint path the token counter reads the body as, or None.
        holds: what a request holds against a budget before it is sent.
        settles: whether the usage its answer reports is charged.
        stream: how a stream of it reports usage (None: not charged as a stream).
        text_events: stream event types whose ``delta`` is generated text (counted when a stream ends
            without usage); Chat and completion chunks carry their text in ``choices``.
        maybe_billed: failures after sending whose request may have been billed.
    """

    name: str
    counts: str | None
    holds: Holds
    settles: bool
    stream: StreamUsage | None = None
    text_events: frozenset[str] = frozenset()
    maybe_billed: frozenset[FailureKind] = frozenset()

    @property
    def billed(self) -> bool:
        """Whether a request to the endpoint costs money (it is then held, settled, maybe billed)."""
        return self.holds != "nothing"

    @property
    def generates(self) -> bool:
        """Whether the endpoint generates output tokens (its hold includes an output allowance)."""
        return self.holds == "prompt+output"


def _free(name: str) -> Charging:
    return Charging(name, None, "nothing", settles=False)


def _unpriced(name: str) -> Charging:
    return Charging(name, None, "unpriced", settles=True, maybe_billed=AFTER_SENDING)


CHAT = Charging(
    "chat completion",
    "/chat/completions",
    "prompt+output",
    settles=True,
    stream="ask",
    maybe_billed=AFTER_SENDING,
)
COMPLETION = Charging(
    "completion", "/completions", "prompt+output", settles=True, stream="ask", maybe_billed=AFTER_SENDING
)
RESPONSE = Charging(
    "response",
    "/responses",
    "prompt+output",
    settles=True,
    stream="final event",
    # generated text only: ``response.audio.delta`` is base64 audio, not text to count
    text_events=frozenset(
        {
            "response.output_text.delta",
            "response.refusal.delta",
            "response.function_call_arguments.delta",
            "response.custom_tool_call_input.delta",
            "response.reasoning_text.delta",
            "response.reasoning_summary_text.delta",
            "response.audio.transcript.delta",
        }
    ),
    maybe_billed=AFTER_SENDING,
)
EMBEDDING = Charging("embedding", "/embeddings", "prompt", settles=True, maybe_billed=AFTER_SENDING)

#: An endpoint no declaration names (``client.post("/relay/specific")``): nothing is held and no
#: outcome is assumed, but usage its answer reports is charged -- holyclient cannot know more.
UNDECLARED = Charging("request to an undeclared endpoint", None, "nothing", settles=True)

#: Every endpoint the clients offer, by ``"METHOD /path"`` (paths relative to the API root, ``{id}``
#: fields as in the operations' declarations).
ENDPOINTS: dict[str, Charging] = {
    "POST /chat/completions": CHAT,
    "GET /chat/completions": _free("stored chat completions listed"),
    # a stored completion retrieved repeats the usage billed when it was made
    "GET /chat/completions/{completion_id}": _free("stored chat completion retrieved"),
    "POST /chat/completions/{completion_id}": _free("stored chat completion updated"),
    "DELETE /chat/completions/{completion_id}": _free("stored chat completion deleted"),
    "GET /chat/completions/{completion_id}/messages": _free("stored chat messages listed"),
    "POST /completions": COMPLETION,
    "POST /embeddings": EMBEDDING,
    # free at OpenAI; the price table lists the moderation models at $0
    "POST /moderations": _free("moderation"),
    "POST /responses": RESPONSE,
    # a response retrieved (or its stream replayed) repeats the usage billed when it was made
    "GET /responses/{response_id}": _free("response retrieved"),
    "DELETE /responses/{response_id}": _free("response deleted"),
    "POST /responses/{response_id}/cancel": _free("response cancelled"),
    "GET /responses/{response_id}/input_items": _free("response input items listed"),
    "POST /responses/input_tokens": _free("input tokens counted"),
    # priced per image, per audio second or per character: not in holyclient's price table
    "POST /images/generations": _unpriced("image generation"),
    "POST /images/edits": _unpriced("image edit"),
    "POST /images/variations": _unpriced("image variation"),
    "POST /audio/speech": _unpriced("speech"),
    "POST /audio/transcriptions": _unpriced("transcription"),
    "POST /audio/translations": _unpriced("translation"),
    # a batch is billed by the server as it runs; its object repeats those totals (``usage_is_billed``)
    "POST /batches": _free("batch created"),
    "GET /batches": _free("batches listed"),
    "GET /batches/{batch_id}": _free("batch retrieved"),
    "POST /batches/{batch_id}/cancel": _free("batch cancelled"),
    "POST /files": _free("file uploaded"),
    "GET /files": _free("files listed"),
    "GET /files/{file_id}": _free("file retrieved"),
    "DELETE /files/{file_id}": _free("file deleted"),
    "GET /files/{file_id}/content": _free("file content read"),
    "GET /models": _free("models listed"),
    "GET /models/{model}": _free("model retrieved"),
}

_EXACT: dict[tuple[str, str], Charging] = {}
_TEMPLATES: list[tuple[str, re.Pattern[str], Charging]] = []
for _route, _charging in ENDPOINTS.items():
    _method, _path = _route.split(" ", 1)
    if "{" in _path:
        _TEMPLATES.append((_method, re.compile(re.sub(r"\{[^}]+\}", "[^/]+", _path) + "$"), _charging))
    else:
        _EXACT[(_method, _path)] = _charging


def routes() -> list[str]:
    """Every declared route, ``"METHOD /path"``."""
    return list(ENDPOINTS)


def charging_for(method: str, path: str) -> Charging:
    """The money rules of a request to ``path`` (relative to the API root; a leading ``/v1`` and a
    query string are ignored): its endpoint's declaration, or :data:`UNDECLARED`."""
    method = method.upper()
    found = _EXACT.get((method, path))
    if found is not None:
        return found
    path = path.split("?", 1)[0].rstrip("/") or "/"
    if path.startswith("/v1/"):
        path = path[3:]
    found = _EXACT.get((method, path))
    if found is not None:
        return found
    for template_method, pattern, charging in _TEMPLATES:
        if template_method == method and pattern.match(path):
            return charging
    return UNDECLARED
