"""The ``/models`` listing (as ``openai.types.Model``)."""

from __future__ import annotations

from ._model import BaseModel as _Model


class Model(_Model):
    # openai's fields in openai's order, so that a model prints and dumps as openai's does.
    id: str
    created: int = 0
    object: str = "model"
    owned_by: str = ""
    shutdown_date: str | None = None
