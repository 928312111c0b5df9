"""``holyclient doctor --save-capabilities FILE``: what the probed model can do, for ``parse()`` to read.

The file maps each probed model to what the endpoint answered (``true``: supported, ``false``: refused or
answered differently; a probe that got no answer is left out), with the endpoint and the time. Running
doctor again for another model adds it; the same model is replaced. ``parse()`` reads the file named
by ``HOLYSHEEP_CAPABILITIES`` (a Router's targets too) to ask a model that cannot take a JSON schema the
right way from the first request (see :mod:`holyclient._parsing._capabilities`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._doctor_judges import SUPPORTED, Observation, Row

#: Doctor's rows -> the keys of the capabilities file.
KEYS = {
    "json_schema": "json_schema",
    "json_object": "json_object",
    "tools / tool_choice": "tools",
    "n > 1": "n",
    "logprobs": "logprobs",
    "stream usage chunk": "stream_usage",
    "/responses": "responses",
}


def _existing(path: Path) -> dict[str, Any]:
    """The file's content, or ``{}`` when it does not exist yet.

    Raises:
        ValueError: the file cannot be read, or is not a capabilities file (nothing is overwritten).
    """
    if not path.exists():
        if not path.parent.is_dir():
            raise ValueError(f"{path}: its directory does not exist")
        return {}
    try:
        data = json.loads(path.read_text("utf-8-sig"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{path}:{getattr(exc, 'lineno', 1)}: not JSON; not a capabilities file") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ValueError(f"{path}:1: models: missing; not a capabilities file (written by doctor)")
    return data


def check(path: str) -> str | None:
    """Why ``path`` cannot take the results (before anything is sent), or ``None``."""
    try:
        _existing(Path(path))
    except ValueError as exc:
        return str(exc)
    return None


def entry(rows: list[Row], seen: Mapping[str, Observation], base_url: str) -> dict[str, Any]:
    """What the probes say of the model: each feature ``true``/``false``, the endpoint and the time."""
    found: dict[str, Any] = {}
    for row in rows:
        key = KEYS.get(row.feature)
        observation = seen.get(row.feature)
        if key is None or observation is None or observation.status is None:
            continue  # no answer: nothing is known
        found[key] = row.verdict == SUPPORTED
    found["base_url"] = base_url
    found["probed_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return found


def save(path: str, model: str, found: dict[str, Any]) -> None:
    """Add ``model``'s entry to the file (written whole and atomically).

    Raises:
        ValueError: the file changed into something that is not a capabilities file meanwhile.
        OSError: it cannot be written.
    """
    from .._core import write_atomically

    target = Path(path)
    data = _existing(target)
    data.setdefault("schema", 1)
    data["written_by"] = "holyclient doctor --save-capabilities"
    data["models"] = {**data["models"], model: found} if data.get("models") else {model: found}
    write_atomically(target, [json.dumps(data, indent=2, sort_keys=True), "\n"])
