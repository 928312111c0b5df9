"""Rate limiters for the batch runner and the clients: in this process, or shared by every worker.

* :class:`LocalLimiter` -- RPM/TPM counted in this process (what ``--rpm``/``--tpm`` use alone).
* :class:`RedisLimiter` -- one budget per API key and model in Redis, for many processes and hosts
  (``pip install 'holyclient[redis]'``; ``redis`` is imported only when one is created).

Both implement :class:`Limiter`: ``acquire(model, tokens)`` before sending, ``observe(admission,
feedback)`` with what the response said (:func:`read_feedback`).
"""

from ._local import LocalLimiter
from ._protocol import Admission, Feedback, Limiter, read_feedback
from ._redis import RedisLimiter

__all__ = ["Admission", "Feedback", "Limiter", "LocalLimiter", "RedisLimiter", "read_feedback"]
