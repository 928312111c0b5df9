"""Reading ``compare``'s sample: Batch API input lines, with ``"stream": true`` allowed. No network.

The batch reader refuses streams (a batch has nobody to stream to); ``compare`` replays them as
streams to measure time to first token, so the flag is taken off, remembered, and the rest of the
line is checked by the batch reader -- one set of rules for both commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL
from ..batch import BatchRequest, InputLineError, parse_line


class SampleError(ValueError):
    """The sample cannot be used; the message names ``FILE[:LINE]: field ...``."""


def _without_stream(data: Any) -> tuple[Any, bool]:
    if not isinstance(data, dict):
        return data, False
    body = data.get("body") if "body" in data else data
    if not isinstance(body, dict) or "stream" not in body:
        return data, False
    stream = body.get("stream") is True
    body = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    return ({**data, "body": body} if "body" in data else body), stream


def read_sample(path: Path) -> tuple[list[BatchRequest], set[str]]:
    """The sample's requests, and the ``custom_id``\\s to replay as streams.

    Raises:
        SampleError: no such file, a bad line, a repeated ``custom_id``, or no request at all.
    """
    if not path.is_file():
        raise SampleError(f"{path}: no such file")
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise SampleError(f"{path}: cannot read ({exc.strerror})") from None
    requests: list[BatchRequest] = []
    streams: set[str] = set()
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            data, stream = _without_stream(json.loads(raw))
            url = data.get("url") if isinstance(data, dict) else None
            if url is not None and url != CHAT_COMPLETIONS_URL:  # batch takes every endpoint; compare chats
                raise SampleError(
                    f"{path}:{number}: field 'url': compare replays {CHAT_COMPLETIONS_URL} only, not {url!r}"
                )
            request = parse_line(json.dumps(data), number)
        except SampleError:
            raise
        except RecursionError:
            raise SampleError(f"{path}:{number}: not valid JSON (nested too deeply)") from None
        except InputLineError as exc:
            raise SampleError(f"{path}:{number}: {exc}") from None
        except ValueError as exc:  # json.loads, UnicodeDecodeError included
            raise SampleError(f"{path}:{number}: not valid JSON ({exc})") from None
        if request.custom_id in seen:
            first = seen[request.custom_id]
            raise SampleError(
                f"{path}:{number}: field 'custom_id' {request.custom_id!r} repeats line {first}"
            )
        seen[request.custom_id] = number
        requests.append(request)
        if stream:
            streams.add(request.custom_id)
    if not requests:
        raise SampleError(f"{path}: the sample has no requests")
    return requests, streams
