"""The ``/models`` listing (as ``openai.types.Model``)."""

from __future__ import annotations

from collections.abc import Iterator

from ._base import BaseModel as _Model


class Model(_Model):
    id: str
    object: str = "model"
    created: int = 0
    owned_by: str = ""


class ModelList(_Model):
    """The ``/models`` listing; iterating it yields the models, as the official SDK's page does."""

    object: str = "list"
    data: list[Model]

    def __iter__(self) -> Iterator[Model]:  # type: ignore[override]
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)
