"""The Responses create operation, declared once: ``responses.py`` gives it its methods and
``_responses_parse.py`` builds ``parse()``/``stream()`` requests from the same declaration."""

from __future__ import annotations

from ..types.responses import Response, ResponseStreamEvent
from ._operation import StreamingOperation

CREATE = StreamingOperation("POST", "/responses", Response, ResponseStreamEvent)
