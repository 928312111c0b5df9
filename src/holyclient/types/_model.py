"""The base of every response model.

Every model allows extra fields (``extra="allow"``): a field the server adds tomorrow is kept on the
object instead of breaking today's client. ``to_dict()`` / ``to_json()`` and ``_request_id`` behave
as on openai's models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel as _PydanticModel
from pydantic import ConfigDict


class BaseModel(_PydanticModel):
    """A response object; ``to_dict()`` gives back plain data, ``_request_id`` the server's request id."""

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    # Not a pydantic PrivateAttr: those are initialised on every nested object of every response, which
    # tripled the cost of parsing a chat completion. The id lives in the instance ``__dict__`` beside the
    # fields, where serialization and equality ignore it.
    @property
    def _request_id(self) -> str | None:
        """The ``x-request-id`` header of the response this object came from (set on top-level responses)."""
        value = self.__dict__.get("_request_id")
        return value if isinstance(value, str) else None

    @_request_id.setter
    def _request_id(self, request_id: str | None) -> None:
        self.__dict__["_request_id"] = request_id

    def to_dict(
        self,
        *,
        mode: Literal["json", "python"] = "python",
        use_api_names: bool = True,
        exclude_unset: bool = True,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
        warnings: bool = True,
    ) -> dict[str, Any]:
        """The model as plain data, unknown fields included; only the fields the server sent by default."""
        return self.model_dump(
            mode=mode,
            by_alias=use_api_names,
            exclude_unset=exclude_unset,
            exclude_defaults=exclude_defaults,
            exclude_none=exclude_none,
            warnings=warnings,
        )

    def to_json(
        self,
        *,
        indent: int | None = 2,
        use_api_names: bool = True,
        exclude_unset: bool = True,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
        warnings: bool = True,
    ) -> str:
        """The model as a JSON string (indented by 2 by default, as openai's ``to_json``)."""
        return self.model_dump_json(
            indent=indent,
            by_alias=use_api_names,
            exclude_unset=exclude_unset,
            exclude_defaults=exclude_defaults,
            exclude_none=exclude_none,
            warnings=warnings,
        )
