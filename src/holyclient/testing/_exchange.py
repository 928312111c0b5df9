"""One request on its way through the local server, and the OpenAI-shaped error body it may end in."""

from __future__ import annotations

from typing import Any

from ._chat_plan import ChatPlan
from ._config import RecordedRequest
from ._http import HTTPConnection
from ._http_parse import Request


class Exchange:
    """Per-request state passed between the steps of ``App.handle``."""

    __slots__ = (
        "body",
        "conn",
        "cost",
        "endpoint",
        "events",
        "extra",
        "include_usage",
        "payload",
        "plan",
        "raw",
        "record",
        "req",
        "rid",
        "stream",
        "turn",
    )

    def __init__(self, req: Request, conn: HTTPConnection, rid: str, endpoint: str) -> None:
        self.req = req
        self.conn = conn
        self.rid = rid
        self.endpoint = endpoint
        self.body: dict[str, Any] = {}
        self.extra: list[tuple[str, str]] = []
        self.record: RecordedRequest | None = None
        self.payload: dict[str, Any] | None = None
        #: a non-JSON answer (speech, a transcription as text, file content): its type and bytes
        self.raw: tuple[str, bytes] | None = None
        #: a stream that is not a chat completion's (Responses API, completions): its events, complete
        self.events: list[bytes] | None = None
        self.plan: ChatPlan | None = None
        self.stream = False
        self.include_usage = False
        self.cost = 0
        #: the scripted answer this request took (given back when a fault answers instead)
        self.turn: Any = None


def error_body(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}
