"""What the local server answers for images and audio. No I/O.

* images are a 1x1 PNG (``b64_json``) or an ``https://images.invalid/...`` URL;
* speech is ``ID3`` followed by the input text repeated to ``len(input) * 64`` bytes;
* a transcription is the uploaded file's bytes decoded as UTF-8.
"""

from __future__ import annotations

import base64
from typing import Any

from ._handlers import InvalidRequest, require_model
from ._json_body import dumps as _dumps

JSON = dict[str, Any]
PNG_1X1 = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode("ascii")


def images(body: JSON, created: int) -> JSON:
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt:
        raise InvalidRequest("'prompt' is required", "prompt")
    n = body.get("n") or 1
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 10:
        raise InvalidRequest("'n' must be an integer between 1 and 10", "n")
    as_url = body.get("response_format") == "url"
    data = [
        {"url": f"https://images.invalid/{created}/{i}.png"} if as_url else {"b64_json": PNG_1X1}
        for i in range(n)
    ]
    return {"created": created, "data": data}


def image_edit(fields: dict[str, str], files: dict[str, tuple[str, str, bytes]], now: int) -> JSON:
    """An edit or a variation: one 1x1 PNG per ``n``, whatever the uploads."""
    if not any(name == "image" or name.startswith("image[") for name in files):
        raise InvalidRequest("'image' is required", "image")
    n = fields.get("n") or "1"
    if not n.isdigit():
        raise InvalidRequest("'n' must be an integer between 1 and 10", "n")
    body: JSON = {"prompt": fields.get("prompt") or "variation", "n": int(n)}
    if fields.get("response_format"):
        body["response_format"] = fields["response_format"]
    return images(body, now)


def speech(body: JSON) -> bytes:
    require_model(body)
    text = body.get("input")
    if not isinstance(text, str) or not text:
        raise InvalidRequest("'input' is required", "input")
    if not body.get("voice"):
        raise InvalidRequest("'voice' is required", "voice")
    unit = text.encode()
    size = len(unit) * 64
    return b"ID3" + (unit * (size // len(unit) + 1))[:size]


def transcription(fields: dict[str, str], upload: tuple[str, str, bytes] | None) -> tuple[str, bytes]:
    """``(content_type, body)`` of a transcription or translation, in the requested ``response_format``."""
    if upload is None:
        raise InvalidRequest("'file' is required", "file")
    if not fields.get("model"):
        raise InvalidRequest("you must provide a model parameter", "model")
    text = upload[2].decode("utf-8", "replace")
    fmt = fields.get("response_format") or "json"
    if fmt == "text":
        return "text/plain; charset=utf-8", text.encode()
    if fmt in ("srt", "vtt"):
        head = "WEBVTT\n\n" if fmt == "vtt" else "1\n"
        return "text/plain; charset=utf-8", f"{head}00:00:00.000 --> 00:00:01.000\n{text}\n".encode()
    payload: JSON = {"text": text}
    if fmt == "verbose_json":
        duration = round(len(text) / 15, 2)
        payload = {
            "task": "transcribe",
            "language": fields.get("language") or "english",
            "duration": duration,
            "text": text,
            "segments": [{"id": 0, "start": 0.0, "end": duration, "text": text}],
        }
    else:
        payload["usage"] = {"type": "duration", "seconds": max(1, len(text) // 15)}
    return "application/json", _dumps(payload).encode()
