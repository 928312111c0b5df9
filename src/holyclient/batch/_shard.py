"""Sharded batches: which lines a shard takes, what its output file is called, and merging the shards.

A line belongs to shard ``K`` of ``N`` when the SHA-256 of its ``custom_id`` (first 8 bytes, big
endian) modulo ``N`` is ``K``: it depends on nothing but the id, so every worker -- on any host,
any Python -- agrees on the split without talking to the others, and shard ``K`` is the same lines
when it is run again (its resume works as for an unsharded run). ``K`` counts from 0, like
Kubernetes' ``JOB_COMPLETION_INDEX``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._core import write_atomically
from ._types import line_fingerprint, line_succeeded

#: Where ``--shard auto/N`` reads ``K``: Kubernetes Indexed Jobs, then Slurm job arrays.
SHARD_INDEX_VARIABLES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")


class ShardError(ValueError):
    """A ``--shard`` value that cannot be used."""


def shard_of(custom_id: str, count: int) -> int:
    return int.from_bytes(hashlib.sha256(custom_id.encode()).digest()[:8], "big") % count


def _whole(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts '²' and '١', which ``int`` then refuses or reads."""
    text = text.strip()
    return text.isascii() and text.isdigit()


def parse_shard(text: str, environ: Mapping[str, str] | None = None) -> tuple[int, int]:
    """``(K, N)`` from ``K/N`` or ``auto/N`` (``K`` from ``JOB_COMPLETION_INDEX`` or ``SLURM_ARRAY_TASK_ID``).

    Raises:
        ShardError: not ``K/N`` with ``0 <= K < N``, or ``auto`` with no index in the environment.
    """
    environ = os.environ if environ is None else environ
    index, slash, count = text.partition("/")
    if not slash or not _whole(count) or int(count) < 1:
        raise ShardError(f"--shard must be K/N (0 <= K < N, e.g. 0/4) or auto/N, got {text!r}")
    total = int(count)
    if index.strip() == "auto":
        source = next((name for name in SHARD_INDEX_VARIABLES if environ.get(name, "").strip()), None)
        if source is None:
            raise ShardError(
                f"--shard auto/N reads K from {' or '.join(SHARD_INDEX_VARIABLES)}: neither is set"
            )
        index = environ[source].strip()
        if not _whole(index):
            raise ShardError(f"--shard auto: {source}={index!r} is not a shard number")
    elif not _whole(index):
        raise ShardError(f"--shard must be K/N (0 <= K < N, e.g. 0/4) or auto/N, got {text!r}")
    shard = int(index)
    if shard >= total:
        raise ShardError(f"--shard {shard}/{total}: K must be below N (shards count from 0)")
    return shard, total


def shard_path(output: Path, shard: int, count: int) -> Path:
    """``OUTPUT.shard-K-of-N``: the file shard ``K`` writes (and resumes from)."""
    return output.with_name(f"{output.name}.shard-{shard}-of-{count}")


@dataclass
class MergeReport:
    """What merging found. The merge is written only when :attr:`ok`.

    Attributes:
        missing: input ``custom_id`` values found in no shard.
        duplicates: ``custom_id`` -> the ``FILE:LINE`` places it appears (more than one).
        foreign: ``(FILE:LINE, custom_id)`` of results whose id is not in the input.
        changed: ``(FILE:LINE, custom_id)`` of results made from an earlier version of their request:
            the fingerprint in the line's ``id`` is not the input body's (INPUT edited since that shard
            ran), as a resume finds them.
        lines: results written (or that would be).
        failed: of them, results that are failures (kept: they are the request's answer).
    """

    missing: list[str] = field(default_factory=list)
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    foreign: list[tuple[str, str]] = field(default_factory=list)
    changed: list[tuple[str, str]] = field(default_factory=list)
    lines: int = 0
    failed: int = 0

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicates or self.foreign or self.changed)


class MergeInputError(ValueError):
    """A shard line that is not a result line (``FILE:LINE: ...``)."""


@dataclass(frozen=True)
class _ResultLine:
    number: int
    custom_id: str
    text: str
    failed: bool
    fingerprint: str | None  # of the request it was made from (None: not recorded)


def _result_lines(path: Path) -> Iterator[_ResultLine]:
    """Every result in a shard file, checked to be one (the merged file must be a valid Batch API output).

    Raises:
        MergeInputError: a line that is not a result line.
    """
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            text = raw.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                line = json.loads(text)
                custom_id = line["custom_id"]
            except (ValueError, KeyError, TypeError):
                raise MergeInputError(f"{path}:{number}: custom_id: not a batch result line") from None
            if not isinstance(custom_id, str):
                raise MergeInputError(f"{path}:{number}: custom_id: must be a string")
            response = line.get("response")
            if response is not None and not isinstance(response, dict):
                raise MergeInputError(f"{path}:{number}: response: must be an object or null")
            status = (response or {}).get("status_code")
            if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
                raise MergeInputError(f"{path}:{number}: response.status_code: must be an integer")
            yield _ResultLine(number, custom_id, text, not line_succeeded(line), line_fingerprint(line))


def merge_shards(
    input_ids: Iterable[str],
    shards: Iterable[Path],
    output: Path | None,
    *,
    fingerprints: Mapping[str, str | None] | None = None,
) -> MergeReport:
    """Check that every input id is in exactly one shard; when so, write them to ``output`` in input order.

    The merged file is written to a temporary name and renamed, so ``output`` is never half-written.

    Args:
        fingerprints: ``custom_id`` -> :func:`~holyclient.batch._types.request_fingerprint` of its body
            in INPUT; a result recording another fingerprint was made from an earlier INPUT and is
            reported in :attr:`MergeReport.changed` (results recording none are not checked).

    Raises:
        MergeInputError: a shard line that is not a batch result.
        OSError: a shard unreadable, ``output`` unwritable.
    """
    order = list(dict.fromkeys(input_ids))
    wanted = set(order)
    found: dict[str, str] = {}
    where: dict[str, str] = {}
    report = MergeReport()
    for path in shards:
        for result in _result_lines(path):
            custom_id, place = result.custom_id, f"{path}:{result.number}"
            if custom_id not in wanted:
                report.foreign.append((place, custom_id))
            elif custom_id in found:
                report.duplicates.setdefault(custom_id, [where[custom_id]]).append(place)
            else:
                found[custom_id], where[custom_id] = result.text, place
                report.failed += result.failed
                recorded = result.fingerprint
                if fingerprints is not None and recorded and recorded != fingerprints.get(custom_id):
                    report.changed.append((place, custom_id))
    report.missing = [custom_id for custom_id in order if custom_id not in found]
    report.lines = len(found)
    if report.ok and output is not None:
        write_atomically(output, (found[custom_id] + "\n" for custom_id in order))
    return report
