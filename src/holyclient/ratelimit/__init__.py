"""Rate limiters for the batch runner and the clients: in this process, or shared by every worker.

* :class:`LocalLimiter` -- RPM/TPM counted in this process (what ``--rpm``/``--tpm`` use alone).
* :class:`RedisLimiter` -- one budget per API key and model in Redis, for many processes and hosts
  (``pip install 'holyclient[redis]'``; ``redis`` is imported only when one is created).

Both implement :class:`Limiter`: ``acquire(model, tokens)`` before sending, ``observe(admission,
feedback)`` with what the response said (:func:`read_feedback`).
"""

from __future__ import annotations

from ._estimate import TokenEstimator, count_prompt_tokens
from ._lease import LeaseHeldError, LeaseLostError
from ._local import LocalLimiter
from ._protocol import Admission, Feedback, Limiter, admission_cost, read_feedback, response_feedback
from ._redis import RedisLimiter, redis_errors
from ._url import check_url, safe_url
from ._window import Clock, RateLimiter, Sleep

__all__ = [
    "Admission",
    "Clock",
    "Feedback",
    "LeaseHeldError",
    "LeaseLostError",
    "Limiter",
    "LocalLimiter",
    "RateLimiter",
    "RedisLimiter",
    "Sleep",
    "TokenEstimator",
    "admission_cost",
    "check_url",
    "count_prompt_tokens",
    "read_feedback",
    "redis_errors",
    "response_feedback",
    "safe_url",
]
