"""Image sizes from data URIs and OpenAI's vision token rule, without an imaging library."""

from __future__ import annotations

import base64
import binascii
import math
import struct

#: Assumed size of an image whose pixels we cannot see (an http URL): a typical 1024x1024 picture,
#: which costs 765 tokens at detail high/auto. Override with ``image_size=`` or ``--image-size``.
DEFAULT_IMAGE_SIZE = (1024, 1024)

LOW_DETAIL_TOKENS = 85
TILE_TOKENS = 170
TILE = 512


def image_tokens(width: int, height: int, detail: str = "auto") -> int:
    """Tokens an image costs by OpenAI's vision rule.

    ``low``: a flat 85. ``high``/``auto``: scale to fit inside 2048x2048, then scale the short side
    down to 768, and charge 85 plus 170 per 512-pixel tile.

    Raises:
        ValueError: a non-positive dimension.
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if detail == "low":
        return LOW_DETAIL_TOKENS
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / TILE) * math.ceil(h / TILE)
    return LOW_DETAIL_TOKENS + TILE_TOKENS * tiles


def size_from_data_uri(url: str) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF, JPEG or WebP given as a ``data:`` URI; None when unknown."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url.partition(",")
    if not sep or ";base64" not in header:
        return None
    try:
        # PNG/GIF/WebP keep their size in the first 30 bytes; JPEG may need the whole file.
        head = base64.b64decode(payload[:64] + "=" * (-len(payload[:64]) % 4))
        size = _size_from_header(head)
        if size is None and head[:2] == b"\xff\xd8":
            size = _jpeg_size(base64.b64decode(payload))
    except (binascii.Error, ValueError, struct.error):
        return None
    return size


def _size_from_header(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", data[6:10])
        return int(w), int(h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind = data[12:16]
        if kind == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return w, h
        if kind == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if kind == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return int(w) & 0x3FFF, int(h) & 0x3FFF
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        # SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(w), int(h)
        i += 2 + length
    return None
