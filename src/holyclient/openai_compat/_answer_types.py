"""What the client parses an answer as when a request came through the transport: the one place where
the transport touches money.

The transport never reserves, settles or counts: the client's pipeline does, from the request's method
and path, and settles from what the client parsed. So the transport only chooses *what* the client
parses each answer as (:func:`answer_type`), and that choice is written here, once:

- an answer whose endpoint is charged from its usage (its declaration,
  :func:`holyclient.pricing.charging_for`: a generation, an embedding), or takes part in a background
  response's charge (creating, retrieving, cancelling or deleting a response), is parsed as
  :class:`Answer`: its ``model`` and ``usage``, and a response's ``id``, ``status`` and ``background``,
  all the pipeline's settlement reads (openai parses the whole answer again for the caller; a model,
  not raw JSON, so that a garbled 2xx is the client's retryable ``APIResponseValidationError`` as on its
  own calls);
- any other answer is kept as ``bytes`` (nothing parsed: openai parses it);
- a stream's events are :class:`Event`\\s: what the stream meter reads of a chunk (usage, the text of
  its choices, a Responses event's type and delta), plus the event's bytes as the server sent them, so
  the transport hands the caller the server's own bytes, never a re-serialization.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import ConfigDict

from ..pricing import charging_for
from ..types._model import BaseModel

__all__ = ["Answer", "Event", "answer_type"]


class _Usage(BaseModel):
    """Token counts, whatever their names (chat's ``prompt_tokens``, the Responses API's ``input_tokens``)."""


class _Lean(BaseModel):
    """Only the declared fields are read: the rest of the answer is openai's to parse."""

    model_config = ConfigDict(extra="ignore", protected_namespaces=())


class Answer(_Lean):
    """A non-streamed answer as the settlement step reads it."""

    model: str | None = None
    usage: _Usage | None = None
    # where a Responses API answer stands (a background response reports its usage later)
    id: Any = None
    status: Any = None
    background: Any = None


class _Delta(_Lean):
    content: Any = None  # a string, or a list of parts (Mistral's Magistral): read as openai reads it
    refusal: str | None = None
    tool_calls: list[dict[str, Any]] | None = None


class _Choice(_Lean):
    delta: _Delta | None = None
    text: str | None = None
    finish_reason: str | None = None
    """Read to tell a stream that ended from one cut short (``Stream.truncated``, a Router's recovery)."""


class Event(_Lean):
    """One streamed event as the stream meter reads it, with its bytes as sent (:attr:`sse`)."""

    model: str | None = None
    usage: _Usage | None = None
    choices: list[_Choice] | None = None
    type: str | None = None
    delta: Any = None
    response: dict[str, Any] | None = None

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Self:
        event = super().model_validate_json(json_data, **kwargs)
        # beside the fields, as ``_request_id`` is: serialization and equality ignore it
        event.__dict__["sse"] = json_data.encode() if isinstance(json_data, str) else bytes(json_data)
        return event

    @property
    def sse(self) -> bytes:
        """The event's ``data`` as the server sent it."""
        data: bytes = self.__dict__["sse"]
        return data


def answer_type(method: str, path: str, *, stream: bool) -> type[Any]:
    """What the client parses the answer to ``method path`` as, so that its pipeline charges it."""
    if stream:
        return Event
    charging = charging_for(method, path)
    charged = charging.settles and charging.counts is not None
    return Answer if charged or charging.background is not None else bytes
