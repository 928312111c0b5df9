"""The ``/models`` listing (as ``openai.types.Model``)."""

from __future__ import annotations

from ._model import BaseModel as _Model


class Model(_Model):
    id: str
    object: str = "model"
    created: int = 0
    owned_by: str = ""
