"""``--state FILE``: what a comparison has already received, so a rerun after a crash sends only the rest.

One JSON line per successful answer, appended and flushed as it arrives (a killed run loses only the
requests in flight): the pass (``old``, ``new``, ``old#2`` ...), the endpoint that answered, the
request's ``custom_id`` and body fingerprint, the runner's result and the timing. A line whose
fingerprint no longer matches the sample (the request changed, or its model did) is ignored, so that
request is sent again. A line recorded from another endpoint than the pass now targets refuses the
whole file: reusing it would report one server's answers under another's URL, and starting over
silently would hide that the file belongs to another comparison. Failed answers are not kept: a rerun
retries them. Keys are never written: the lines hold answers, never requests' headers.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from ..batch import BatchResult
from ._run import SideRun, Timing


class StateError(ValueError):
    """A state file line that cannot be read (``path:line: field ...``)."""


def endpoint_of(name: str, old: str, new: str) -> str:
    """The base URL pass ``name`` sends to: ``new`` for the new pass, ``old`` for the others."""
    return new if name == "new" else old


def same_endpoint(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


def load_state(
    path: Path, fingerprints: Mapping[str, Mapping[str, str]], endpoints: Mapping[str, str]
) -> dict[str, SideRun]:
    """The passes' finished results, keyed by pass name.

    Args:
        fingerprints: ``fingerprints[pass][custom_id]`` of the sample's requests.
        endpoints: ``endpoints[pass]``, the base URL each pass sends to now, with the option that sets it.

    Raises:
        StateError: a line is not a state record, or was recorded from another endpoint.
    """
    runs: dict[str, SideRun] = {}
    if not path.exists():
        return runs
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
                name, custom_id, key = line["pass"], line["custom_id"], line["fingerprint"]
                recorded = str(line["endpoint"])
                result = BatchResult(**line["result"])
                timing = Timing(**line["timing"]) if line.get("timing") else None
            except ValueError as exc:
                if not raw.endswith(b"\n"):
                    continue  # the last line of a run killed while writing it: that request is sent again
                raise StateError(f"{path}:{number}: not valid JSON ({exc})") from None
            except (KeyError, TypeError) as exc:
                raise StateError(f"{path}:{number}: field {exc} is missing or wrong") from None
            target = endpoints.get(name)
            if target is not None and not same_endpoint(recorded, target):
                option = "--new" if name == "new" else "--old"
                raise StateError(
                    f"{path}:{number}: endpoint: the answers of pass {name!r} were recorded from {recorded}, "
                    f"not {option} {target}: give this comparison another --state file (or delete this one)"
                )
            if fingerprints.get(name, {}).get(custom_id) != key:
                continue  # the request changed (or left the sample) since: send it again
            run = runs.setdefault(name, SideRun())
            run.results[custom_id] = result
            if timing is not None:
                run.timings[custom_id] = timing
    return runs


def _drop_partial_line(path: Path) -> None:
    """Cut a last line left without its newline by a killed run (its request is sent again)."""
    if not path.exists():
        return
    with path.open("rb+") as file:
        data = file.read()
        if data and not data.endswith(b"\n"):
            file.truncate(data.rfind(b"\n") + 1)


def _fields(result: BatchResult) -> dict[str, Any]:
    """The result's own fields, as :class:`BatchResult` takes them back (not the answer's bytes it keeps
    for writing batch output lines)."""
    return {f.name: copy.deepcopy(getattr(result, f.name)) for f in dataclasses.fields(result) if f.init}


class StateWriter:
    """Appends one line per successful result and flushes it at once."""

    def __init__(self, path: Path) -> None:
        _drop_partial_line(path)
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def recorder(self, name: str, endpoint: str) -> Any:
        """Record the answers of pass ``name``, sent to the base URL ``endpoint``."""

        def record(result: BatchResult, timing: Timing | None, fingerprint: str) -> None:
            if not result.ok:
                return
            line = {
                "pass": name,
                "endpoint": endpoint,
                "custom_id": result.custom_id,
                "fingerprint": fingerprint,
                "result": _fields(result),
                "timing": dataclasses.asdict(timing) if timing is not None else None,
            }
            self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._file.flush()

        return record

    def close(self) -> None:
        self._file.close()
