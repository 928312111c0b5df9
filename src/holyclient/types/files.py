"""Files (``client.files``), as the Batch API uses them."""

from __future__ import annotations

from ._model import BaseModel


# openai's fields in openai's order, so that a file prints and dumps as openai's does.
class FileObject(BaseModel):
    id: str
    bytes: int = 0
    created_at: int = 0
    filename: str = ""
    object: str = "file"
    purpose: str = ""
    status: str | None = None
    """Deprecated by the API, still sent: ``uploaded``, ``processed`` or ``error``."""
    expires_at: int | None = None
    status_details: str | None = None


class FileDeleted(BaseModel):
    id: str
    deleted: bool
    object: str = "file"
