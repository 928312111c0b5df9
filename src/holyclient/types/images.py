"""Image generation (``client.images.generate``)."""

from __future__ import annotations

from typing import Any

from ._model import BaseModel

# openai's fields in openai's order (and openai's class names in ``repr``), so that a response prints
# and dumps as openai's does.


class Image(BaseModel):
    b64_json: str | None = None
    """The image, base64-encoded, for ``response_format="b64_json"`` and the gpt-image models."""
    revised_prompt: str | None = None
    url: str | None = None


class ImagesUsageTokensDetails(BaseModel):
    image_tokens: int | None = None
    text_tokens: int | None = None

    def __repr_name__(self) -> str:
        return "UsageInputTokensDetails"


class ImagesUsageOutputTokensDetails(ImagesUsageTokensDetails):
    def __repr_name__(self) -> str:
        return "UsageOutputTokensDetails"


class ImagesUsage(BaseModel):
    input_tokens: int = 0
    input_tokens_details: ImagesUsageTokensDetails | None = None
    output_tokens: int = 0
    total_tokens: int = 0
    output_tokens_details: ImagesUsageOutputTokensDetails | None = None

    def __repr_name__(self) -> str:
        return "Usage"  # ``openai.types.images_response.Usage``


class ImagesResponse(BaseModel):
    created: int = 0
    background: str | None = None
    data: list[Image] | None = None
    output_format: str | None = None
    quality: str | None = None
    safety_identifier: str | None = None
    size: str | None = None
    svg_usage: dict[str, Any] | None = None
    usage: ImagesUsage | None = None
