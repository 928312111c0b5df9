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
two methods). With no step, the call goes straight to the client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ._adapter import Call

__all__ = ["CallStep", "arun_steps", "default_steps", "run_steps"]

Send = Callable[["Call"], Any]
AsyncSend = Callable[["Call"], Awaitable[Any]]


class CallStep(Protocol):
    """A step around one call of the transport (see the module docstring)."""

    def send(self, call: Call, send: Send) -> Any: ...

    async def asend(self, call: Call, send: AsyncSend) -> Any: ...


def default_steps() -> tuple[CallStep, ...]:
    """The steps every transport runs unless given others (``HolyTransport(client, steps=...)``)."""
    return ()


def run_steps(steps: tuple[CallStep, ...], call: Call, send: Send) -> Any:
    """``call`` through ``steps`` (the first outermost), then ``send``."""
    if not steps:
        return send(call)
    step, rest = steps[0], steps[1:]
    return step.send(call, lambda inner: run_steps(rest, inner, send))


async def arun_steps(steps: tuple[CallStep, ...], call: Call, send: AsyncSend) -> Any:
    """Async twin of :func:`run_steps`."""
    if not steps:
        return await send(call)
    step, rest = steps[0], steps[1:]
    return await step.asend(call, lambda inner: arun_steps(rest, inner, send))
