"""The base of every response model.

Every model allows extra fields (``extra="allow"``): a field the server adds tomorrow is kept on the
object instead of breaking today's client.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel as _PydanticModel
from pydantic import ConfigDict


class BaseModel(_PydanticModel):
    """A response object; ``to_dict()`` gives back plain JSON-compatible data."""

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    def to_dict(self) -> dict[str, Any]:
        """The model as plain JSON-compatible data, unknown fields included."""
        return self.model_dump(mode="json", exclude_unset=True)
