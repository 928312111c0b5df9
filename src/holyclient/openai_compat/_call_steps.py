"""The transport's extension point: steps around each call a request becomes.

A feature that adapts what a framework sends or what it gets back -- send a model the form of a request
it takes (structured output as a tool call where ``response_format`` is refused), hand the framework the
answer in the shape it asked for -- is a :class:`CallStep`. It sees the :class:`~._adapter.Call` the
request became and ``send``, the rest of the chain (ending at the client's call path: its budget, retries,
span, usage), and returns the call's raw result (``.http_response``, ``.parse()``), or its own.

- It may change the call: ``dataclasses.replace(call, options=call.options.with_body(body))`` (a new body
  drops openai's encoding of the old one, and the request is built anew from the options).
- It may call ``send`` more than once (a fallback after a refusal): every call is counted and priced.
- It may hand back another result: an object with ``http_response`` (an ``httpx2.Response``, read) and
  ``parse()``; a non-streamed ``http_response`` of the HTTP library's own class is handed to openai as is.

Steps run in the order given, the first outermost, in both the sync and the async transport (hence the
two methods). With no step, the call goes straight to the client. The transports run
:func:`default_steps`: the structured-output step (:mod:`._structured`), which passes every call it has
nothing to adapt straight on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ._structured import StructuredStep

if TYPE_CHECKING:
    from ._adapter import Call

__all__ = ["CallStep", "StructuredOutput", "arun_steps", "default_steps", "run_steps"]

Send = Callable[["Call"], Any]
AsyncSend = Callable[["Call"], Awaitable[Any]]


class CallStep(Protocol):
    """A step around one call of the transport (see the module docstring)."""

    def send(self, call: Call, send: Send) -> Any: ...

    async def asend(self, call: Call, send: AsyncSend) -> Any: ...


class StructuredOutput:
    """The structured-output step (:class:`~._structured.StructuredStep`: a framework's JSON schema asked
    the way the model can take it) as a call step of the transports over ``client``."""

    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client

    def send(self, call: Call, send: Send) -> Any:
        step = StructuredStep.of(self.client, call.options)
        if step is None:
            return send(call)
        return step.send(lambda options: send(dataclasses.replace(call, options=options)))

    async def asend(self, call: Call, send: AsyncSend) -> Any:
        step = StructuredStep.of(self.client, call.options)
        if step is None:
            return await send(call)
        return await step.asend(lambda options: send(dataclasses.replace(call, options=options)))


def default_steps(client: Any) -> tuple[CallStep, ...]:
    """The steps a transport over ``client`` runs unless given others (``HolyTransport(client, steps=...)``)."""
    return (StructuredOutput(client),)


def run_steps(steps: tuple[CallStep, ...], call: Call, send: Send) -> Any:
    """``call`` through ``steps`` (the first outermost), then ``send``."""
    if len(steps) == 1:  # the last step calls ``send`` itself: no layer around it
        return steps[0].send(call, send)
    if not steps:
        return send(call)
    return steps[0].send(call, lambda inner: run_steps(steps[1:], inner, send))


async def arun_steps(steps: tuple[CallStep, ...], call: Call, send: AsyncSend) -> Any:
    """Async twin of :func:`run_steps`."""
    if len(steps) == 1:
        return await steps[0].asend(call, send)
    if not steps:
        return await send(call)
    return await steps[0].asend(call, lambda inner: arun_steps(steps[1:], inner, send))
