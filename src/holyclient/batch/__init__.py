"""Run many API requests fast, within rate limits, resumably: the library behind ``holyclient batch``.

Any Batch API endpoint (chat completions, embeddings, completions, responses, moderations), mixed
freely; embedding requests can be packed into fewer requests (``pack_inputs``) and still get one
result each.

* :class:`BatchRunner` -- bounded, adaptive concurrency over an :class:`~holyclient.AsyncClient`,
  optional requests/tokens-per-minute limits, retries that do not hold a concurrency slot, results
  delivered as they complete (``run(requests, on_result)`` or ``async with runner.results(...)``).
* :func:`run_batch` -- the same from synchronous code, for batches that fit in memory.
* :class:`BatchRequest` / :class:`BatchResult` -- one request and its outcome; ``result.output_line()``
  is the OpenAI Batch API output format.

Example::

    async with holyclient.AsyncClient() as client:
        runner = BatchRunner(client, concurrency=32, rpm=500)
        async with runner.results(BatchRequest(str(i), body) for i, body in enumerate(bodies)) as results:
            async for result in results:
                print(result.custom_id, result.ok)
"""

from __future__ import annotations

from ..ratelimit import RateLimiter, TokenEstimator
from ._checks import ModelCheck
from ._concurrency import AdaptiveConcurrency
from ._guard import DEFAULT_STOP_AFTER, BatchStoppedError, unwrapped
from ._input import (
    IdSet,
    InputLineError,
    InputReport,
    digest,
    input_versions,
    iter_requests,
    parse_line,
    validate_input,
    version_key,
)
from ._output import OutputError, OutputLock, OutputState, OutputWriter, prepare_output, scan_output
from ._pack import Packer
from ._report import CostTally, DryRunEstimate, progress_line, summary, summary_json
from ._runner import DEFAULT_BATCH_MAX_RETRIES, DEFAULT_CONCURRENCY, BatchRunner
from ._shard import MergeInputError, ShardError, merge_shards, parse_shard, shard_of, shard_path
from ._sync import run_batch
from ._types import BatchRequest, BatchResult, BatchStats, ModelTally, request_fingerprint

__all__ = [
    "DEFAULT_BATCH_MAX_RETRIES",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_STOP_AFTER",
    "AdaptiveConcurrency",
    "BatchRequest",
    "BatchResult",
    "BatchRunner",
    "BatchStats",
    "BatchStoppedError",
    "CostTally",
    "DryRunEstimate",
    "IdSet",
    "InputLineError",
    "InputReport",
    "MergeInputError",
    "ModelCheck",
    "ModelTally",
    "OutputError",
    "OutputLock",
    "OutputState",
    "OutputWriter",
    "Packer",
    "RateLimiter",
    "ShardError",
    "TokenEstimator",
    "digest",
    "input_versions",
    "iter_requests",
    "merge_shards",
    "parse_line",
    "parse_shard",
    "prepare_output",
    "progress_line",
    "request_fingerprint",
    "run_batch",
    "scan_output",
    "shard_of",
    "shard_path",
    "summary",
    "summary_json",
    "unwrapped",
    "validate_input",
    "version_key",
]
