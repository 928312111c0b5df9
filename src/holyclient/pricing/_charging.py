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
* **background**: how the endpoint takes part in a *background* response's charge. ``"defers"``
  (``POST /responses``): an answer that is still running (``background: true``, ``status`` ``queued``
  or ``in_progress``, ``usage: null``) reports its usage later, so its hold is kept -- under the
  response's id, against the budget -- instead of being released. ``"collects"`` (retrieving the
  response, its stream replayed, cancelling or deleting it): an answer that shows the response ended
  charges the kept hold, once: at the usage it reports, else (cancelled, failed or deleted without
  usage) as uncertain spend. See :mod:`holyclient.pricing._ledger`.
* **maybe_billed**: the failures *after the request was handed to the wire* whose outcome is
  unknown, so the request may have been billed: ``"timeout"`` (no answer in time), ``"dropped"``
  (the connection failed after sending), ``"cancelled"`` (the caller cancelled the task or
  interrupted the call while it waited for the answer), ``"unreadable"`` (a 2xx whose body could not
  be read: the work was done, its usage is lost). A failure before sending releases the hold.

**Routes nobody declared fail closed.** A request to a route this table does not name -- an openai
method holyclient has no resource for (``fine_tuning.jobs.create``, ``containers.create``) sent through
``as_openai()``, a ``client.post("/relay/specific")`` -- may start billed work that holyclient cannot
price. It is :data:`UNDECLARED`, an ``"unpriced"`` endpoint: a client with a budget refuses it before
sending, with an error naming the route (the budget could not be checked); a client without one sends
it and counts it as an unpriced request (its answer's usage is charged if it reports any; a failure
after sending is uncertain). A ``GET`` is no exception: a relay's route may do billed work whatever its
method, and an unknown is never taken for free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

__all__ = [
    "AFTER_SENDING",
    "CHAT",
    "ENDPOINTS",
    "RUNNING",
    "UNDECLARED",
    "Charging",
    "FailureKind",
    "addressed",
    "charging_for",
    "routes",
]

FailureKind = Literal["timeout", "dropped", "cancelled", "unreadable"]
Holds = Literal["prompt+output", "prompt", "unpriced", "nothing"]
StreamUsage = Literal["ask", "final event"]
Background = Literal["defers", "collects"]

#: The ``status`` of a response still running (a background response reports its usage later).
RUNNING = frozenset({"queued", "in_progress"})

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
        background: ``"defers"`` or ``"collects"``: its part in a background response's charge.
        declared: False for a route no declaration names (:data:`UNDECLARED`, whose ``name`` is then the
            request's ``"METHOD /path"``).
    """

    name: str
    counts: str | None
    holds: Holds
    settles: bool
    stream: StreamUsage | None = None
    text_events: frozenset[str] = frozenset()
    maybe_billed: frozenset[FailureKind] = frozenset()
    background: Background | None = None
    declared: bool = True

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


def _collects(name: str, stream: StreamUsage | None = None) -> Charging:
    """Free itself, but it may end a background response: the hold kept for it is charged then."""
    return Charging(name, None, "nothing", settles=False, stream=stream, background="collects")


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
    background="defers",
)
EMBEDDING = Charging("embedding", "/embeddings", "prompt", settles=True, maybe_billed=AFTER_SENDING)

#: A request to a route no declaration names (``client.post("/relay/specific")``, an openai method sent
#: through ``as_openai()`` that holyclient has no resource for): it may be billed and cannot be priced, so
#: it is unpriced -- refused by a budget, counted as unpriced without one (see the module docstring).
#: :func:`charging_for` names each such request's route in its ``name``.
UNDECLARED = Charging(
    "request to an undeclared endpoint",
    None,
    "unpriced",
    settles=True,
    maybe_billed=AFTER_SENDING,
    declared=False,
)
#: An undeclared ``GET`` or ``HEAD``: a read, which asks the server for no work; nothing is held, and the
#: usage its answer reports, if any, is charged.

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
    # a response retrieved (or its stream replayed) repeats the usage billed when it was made -- except a
    # background response's, which is charged then, once (``background="collects"``)
    "GET /responses/{response_id}": _collects("response retrieved", stream="final event"),
    "DELETE /responses/{response_id}": _collects("response deleted"),
    "POST /responses/{response_id}/cancel": _collects("response cancelled"),
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
        _TEMPLATES.append((_method, re.compile(re.sub(r"\{[^}]+\}", "([^/]+)", _path) + "$"), _charging))
    else:
        _EXACT[(_method, _path)] = _charging


def routes() -> list[str]:
    """Every declared route, ``"METHOD /path"``."""
    return list(ENDPOINTS)


def _relative(path: str) -> str:
    path = path.split("?", 1)[0].rstrip("/") or "/"
    return path[3:] if path.startswith("/v1/") else path


def addressed(path: str) -> str | None:
    """The id a request to a declared route addresses (``resp_1`` of ``/responses/resp_1/cancel``), or None."""
    path = _relative(path)
    for _, pattern, _ in _TEMPLATES:
        found = pattern.match(path)
        if found is not None:
            return found.group(1)
    return None


def charging_for(method: str, path: str) -> Charging:
    """The money rules of a request to ``path`` (relative to the API root; a leading ``/v1`` and a
    query string are ignored): its endpoint's declaration, else :data:`UNDECLARED` named after the
    request's route."""
    method = method.upper()
    found = _EXACT.get((method, path))
    if found is not None:
        return found
    path = _relative(path)
    found = _EXACT.get((method, path))
    if found is not None:
        return found
    for template_method, pattern, charging in _TEMPLATES:
        if template_method == method and pattern.match(path):
            return charging
    return replace(UNDECLARED, name=f"{method} {path}")
