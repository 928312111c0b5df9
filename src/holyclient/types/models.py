"""The ``/models`` listing (as ``openai.types.Model``)."""

from __future__ import annotations

from .._send._pagination import SyncPage
from ._model import BaseModel as _Model


class Model(_Model):
    id: str
    object: str = "model"
    created: int = 0
    owned_by: str = ""


class ModelList(SyncPage[Model]):
    """The ``/models`` listing; iterating it yields the models, as the official SDK's page does."""
