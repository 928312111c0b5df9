"""The Responses create and retrieve operations, declared once: ``responses.py`` gives them their methods,
``_responses_parse.py`` builds ``parse()``/``stream()`` requests from the same declarations."""

from __future__ import annotations

from ..types.responses import Response, ResponseStreamEvent
from ._operation import StreamingOperation

CREATE = StreamingOperation("POST", "/responses", Response, ResponseStreamEvent)
RETRIEVE = StreamingOperation("GET", "/responses/{response_id}", Response, ResponseStreamEvent)
