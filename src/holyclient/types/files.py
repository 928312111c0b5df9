"""Files (``client.files``), as the Batch API uses them."""

from __future__ import annotations

from ._model import BaseModel


class FileObject(BaseModel):
    id: str
    object: str = "file"
    bytes: int = 0
    created_at: int = 0
    filename: str = ""
    purpose: str = ""
    status: str | None = None
    """Deprecated by the API, still sent: ``uploaded``, ``processed`` or ``error``."""
    status_details: str | None = None
    expires_at: int | None = None


class FileDeleted(BaseModel):
    id: str
    object: str = "file"
    deleted: bool
