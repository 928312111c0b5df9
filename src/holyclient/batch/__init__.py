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

from ..ratelimit._estimate import TokenEstimator
from ..ratelimit._window import RateLimiter
from ._concurrency import AdaptiveConcurrency
from ._guard import BatchStoppedError
from ._input import InputLineError, InputReport, iter_requests, parse_line, validate_input
from ._output import OutputError, OutputState, OutputWriter, prepare_output
from ._runner import DEFAULT_BATCH_MAX_RETRIES, DEFAULT_CONCURRENCY, BatchRunner
from ._sync import run_batch
from ._types import BatchRequest, BatchResult, BatchStats, ModelTally

__all__ = [
    "DEFAULT_BATCH_MAX_RETRIES",
    "DEFAULT_CONCURRENCY",
    "AdaptiveConcurrency",
    "BatchRequest",
    "BatchResult",
    "BatchRunner",
    "BatchStats",
    "BatchStoppedError",
    "InputLineError",
    "InputReport",
    "ModelTally",
    "OutputError",
    "OutputState",
    "OutputWriter",
    "RateLimiter",
    "TokenEstimator",
    "iter_requests",
    "parse_line",
    "prepare_output",
    "run_batch",
    "validate_input",
]
