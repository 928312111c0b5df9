"""Image generation (``client.images.generate``)."""

from __future__ import annotations

from ._model import BaseModel


class Image(BaseModel):
    b64_json: str | None = None
    """The image, base64-encoded, for ``response_format="b64_json"`` and the gpt-image models."""
    url: str | None = None
    revised_prompt: str | None = None


class ImagesUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: dict[str, int] | None = None


class ImagesResponse(BaseModel):
    created: int = 0
    data: list[Image] | None = None
    background: str | None = None
    output_format: str | None = None
    quality: str | None = None
    size: str | None = None
    usage: ImagesUsage | None = None
