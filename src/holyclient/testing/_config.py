"""Configuration of the local server and the shape of its request log (plain data, no I/O)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _handlers as h
from . import _relay, _variation
from ._faults import Fault, FaultMix
from ._limits import RateLimits
from ._scripted_turns import Turn

#: Request headers never kept in the log: they carry credentials.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"})


@dataclass
class RecordedRequest:
    """One ``/v1`` request as the server saw it (credentials removed)."""

    id: str
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int | None = None
    fault: str | None = None
    query: str = ""
    """The raw query string (without ``?``), as sent."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": self.time,
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "body": self.body,
            "status": self.status,
            "fault": self.fault,
            "query": self.query,
        }


def _check_canned(canned: Mapping[str, Any]) -> None:
    """Each key is ``"METHOD /v1/path"`` and each answer a JSON object.

    Raises:
        ValueError: a key or an answer of another shape.
    """
    for route, answer in canned.items():
        method, _, path = route.partition(" ")
        if not method.isupper() or not path.startswith("/"):
            raise ValueError(f"canned routes are 'METHOD /v1/path', got {route!r}")
        if not isinstance(answer, dict):
            raise ValueError(f"the canned answer of {route!r} must be a JSON object")


@dataclass
class ServerConfig:
    """Behaviour of the local server; see :class:`holyclient.testing.LocalServer` for each field."""

    latency: float = 0.0
    jitter: float = 0.0
    chunk_delay: float = 0.0
    faults: FaultMix | None = None
    hook: Callable[[RecordedRequest], Fault | None] | None = None
    rate_limits: RateLimits | None = None
    require_key: bool = True
    api_key: str | None = field(default=None, repr=False)
    models: tuple[str, ...] = ()
    """Model ids ``/v1/models`` lists; empty: the profile's (OpenAI's usual nine, or the relay catalogue)."""
    seed: int | None = 0
    log_requests: bool = True
    log_limit: int = 10_000
    max_hang: float = 60.0
    disabled_features: frozenset[str] = frozenset()
    persona: str = "default"
    noise: float = 0.0
    billing: str = "chars"
    profile: str = "default"
    report_cost: float | None = None
    script: tuple[Turn, ...] = ()
    """Scripted answers, one per chat or Responses request, in order (see :mod:`._scripted_turns`)."""
    faults_at: Mapping[int, Fault] = field(default_factory=dict)
    """One fault each at the request of that number (1 = the first request that reaches the fault step)."""
    answer_as: Mapping[str, str] = field(default_factory=dict)
    """Model id asked -> the model name answers carry (a relay answering under its upstream's id)."""
    canned: Mapping[str, Any] = field(default_factory=dict)
    """``"METHOD /v1/path"`` -> the JSON answered (200) to a route the fake API does not implement."""

    def answered(self, model: object) -> object:
        """The model name an answer to a request for ``model`` carries (``answer_as``, else the same)."""
        return self.answer_as.get(model, model) if isinstance(model, str) and self.answer_as else model

    def __post_init__(self) -> None:
        if self.profile not in _relay.PROFILES:
            raise ValueError(f"profile must be one of {_relay.PROFILES}, got {self.profile!r}")
        if not self.models:
            self.models = _relay.catalogue() if self.profile == "holysheep" else h.DEFAULT_MODELS
        if self.billing not in ("chars", "foreign"):
            raise ValueError(f"billing must be 'chars' or 'foreign', got {self.billing!r}")
        _variation.check_features(self.disabled_features)
        if self.persona not in _variation.PERSONAS:
            raise ValueError(f"persona must be one of {_variation.PERSONAS}, got {self.persona!r}")
        _check_canned(self.canned)
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError("noise must be between 0 and 1")
        if self.report_cost is not None and (not self.report_cost >= 0 or self.profile != "holysheep"):
            raise ValueError("report_cost must be a non-negative factor, with profile='holysheep'")
        if self.latency < 0 or self.jitter < 0 or self.chunk_delay < 0:
            raise ValueError("latency, jitter and chunk_delay must not be negative")
        if self.log_limit < 0:
            raise ValueError("log_limit must not be negative")
        if any(not isinstance(number, int) or number < 1 for number in self.faults_at):
            raise ValueError("faults_at numbers requests from 1")
