"""Helpers shared by the batch tests: writing input files, reading output files, a recording limiter.

Each batch test module used to carry its own copy of these; the bodies a module sends stay its own
(``body=``), the file handling is here once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from holyclient.ratelimit import Admission, Feedback

CHAT_URL = "/v1/chat/completions"


def prompt_body(i: int) -> dict[str, Any]:
    """A small chat body whose prompt names its line (``prompt r3``)."""
    return {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"prompt r{i}"}],
        "max_tokens": 5,
    }


def write_jsonl(path: Path, lines: Iterable[dict[str, Any] | str]) -> Path:
    """``path`` with one line per item: dicts as JSON, strings as they are."""
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def write_chat_input(path: Path, n: int, body: Callable[[int], dict[str, Any]] = prompt_body) -> Path:
    """A Batch API input of ``n`` chat requests ``r0`` .. ``r{n-1}`` with ``body(i)`` each."""
    return write_jsonl(
        path, ({"custom_id": f"r{i}", "method": "POST", "url": CHAT_URL, "body": body(i)} for i in range(n))
    )


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every output line, in file order."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Output lines by ``custom_id``."""
    return {line["custom_id"]: line for line in read_lines(path)}


class RecordingLimiter:
    """A limiter (the ``Limiter`` protocol) that admits everything and keeps what it was told."""

    rpm: float | None = 100.0

    def __init__(self, *, tpm: float | None = 100_000.0) -> None:
        self.tpm = tpm  # None: a limiter of requests only, which needs no token counts
        self.admitted: list[tuple[str, int]] = []
        self.admissions: list[Admission] = []
        self.observed: list[tuple[Admission, Feedback]] = []

    async def acquire(self, model: str, tokens: int) -> Admission:
        self.admitted.append((model, tokens))
        self.admissions.append(Admission(model, tokens, shared=True, id=f"a{len(self.admitted)}"))
        return self.admissions[-1]

    async def observe(self, admission: Admission, feedback: Feedback) -> None:
        self.observed.append((admission, feedback))

    def acquire_sync(self, model: str, tokens: int) -> Admission:
        raise AssertionError("the batch runner is async")

    def observe_sync(self, admission: Admission, feedback: Feedback) -> None:
        raise AssertionError("the batch runner is async")
