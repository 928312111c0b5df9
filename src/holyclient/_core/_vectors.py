"""Embeddings travel as base64 unless the caller chose a format, as openai does.

openai asks for ``encoding_format="base64"`` when the caller does not set it (a quarter of the bytes of
JSON floats, and no float parsing) and decodes the vectors back to lists of floats, so the caller sees
floats either way. An explicit ``encoding_format`` is sent and returned untouched: ``"base64"`` gives
the base64 strings.
"""

from __future__ import annotations

import array
import base64
import dataclasses
import sys
from typing import Any, TypeVar

from ._request import RequestOptions, omitted

T = TypeVar("T")


def prefer_base64(options: RequestOptions, encoding_format: Any) -> RequestOptions:
    """Ask for base64 when the caller left ``encoding_format`` out (an ``extra_body`` value still wins)."""
    if not omitted(encoding_format) or options.body is None:
        return options
    return dataclasses.replace(options, body={"encoding_format": "base64", **options.body})


def decode_embeddings(response: T, encoding_format: Any) -> T:
    """Base64 vectors of ``response`` as floats, unless the caller asked for a format explicitly.

    ``response`` may be a raw response (``with_raw_response``): its parsed object is decoded, so
    ``.parse()`` gives floats too.

    Raises:
        ValueError: the response has no embeddings at all (openai raises the same).
    """
    if not omitted(encoding_format):
        return response
    parsed = getattr(response, "_parsed", response)  # RawResponse / StreamedResponse keep the model there
    data = getattr(parsed, "data", None)
    if not data:
        raise ValueError("No embedding data received")
    for item in data:
        if isinstance(item.embedding, str):
            item.embedding = base64_floats(item.embedding)
    return response


def base64_floats(encoded: str) -> list[float]:
    """A base64 embedding (little-endian float32, as the API sends it) as floats."""
    values = array.array("f", base64.b64decode(encoded))
    if sys.byteorder == "big":  # the API sends little-endian float32
        values.byteswap()
    return values.tolist()
