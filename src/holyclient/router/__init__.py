"""``holyclient.Router``: canary splits, failover and shadow traffic across OpenAI-compatible endpoints.

Modules: ``_target`` (a target's configuration), ``_select`` (weighted split, sticky keys, failover
order, when failing over is safe), ``_breaker`` (the per-target circuit breaker), ``_stats``
(per-target counters), ``_usage`` (usage per target and in total), ``_mirror`` (shadow traffic and its
pairs file), ``_core`` (one request's way through its targets), ``_shell`` (construction, copies and
stats of a router) -- all sans-IO -- then ``_caller`` (a whole call, run on a target's client: the
router's ``Caller``), ``_sender`` (one attempt, on a target's pipeline: its ``Sender``) and ``_router``,
the sync and async routers that plug both in. See docs/guides/rolling-out.md.
"""

from ._breaker import CircuitBreaker
from ._router import AsyncRouter, Router
from ._stats import TargetStats
from ._target import Target

__all__ = ["AsyncRouter", "CircuitBreaker", "Router", "Target", "TargetStats"]
