"""A router's target: one OpenAI-compatible endpoint, its own key, model names and weight. No I/O.

A target is named by its host (``api.holysheep.ai``, or ``127.0.0.1:8001`` with a port): reprs,
errors, ``router.stats()`` and the ``_target`` of each response use that name, never the key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .. import _config
from .._exceptions import ConfigurationError

if TYPE_CHECKING:
    from .._core import RequestOptions


class Target:
    """One endpoint a :class:`~holyclient.Router` can send to.

    Args:
        base_url: the endpoint's base URL (``https://api.holysheep.ai/v1``).
        api_key: its key. Give this or ``key_env``: a target never falls back to another target's key
            or to ``HOLYSHEEP_API_KEY``, so a key is only ever sent to the host it was given for.
        key_env: the environment variable holding its key (read when the router is built).
        model_map: model names to rewrite for this target (``{"gpt-4o": "gpt-4o-2024-08-06"}``).
        weight: its share of traffic among the router's targets; 0 drains it (no new traffic, but it
            can still serve as a fallback).
        fallbacks: targets to try, in order, when this one fails in a way that is safe to retry elsewhere.
        name: the name used in stats and errors (default: the host, with the port when one is given).
        budget_usd: this target's own budget (the router's ``budget_usd`` caps all targets together).
        failover_if_sent: also fail over when the connection dropped after the request may have
            reached this target. Off by default: the first target may then still answer and bill it,
            so the request can be paid twice; when it happens, the first attempt is counted as
            uncertain spend (``usage.uncertain_requests``) on this target. (A timeout always fails over:
            the target said nothing in time, and is not waited for again.)
        context_window: the context window, in tokens, of the model this target serves (or a mapping
            of model name to window, names as sent to this target): a request refused elsewhere with
            ``context_length_exceeded`` goes only to a target with a larger window. Default: the
            price table's window for the model.
        prefill: whether this target's model continues an assistant prefill (a last assistant message
            with ``"prefix": true``), so that a stream broken on another target can be continued here
            as one stream. Default: what the capabilities table says of the model's family (unknown:
            no).
        client_options: other :class:`~holyclient.Client` arguments for this target (``timeout``,
            ``first_event_timeout``, ``stream_idle_timeout``, ``max_retries``, ``http_client``,
            ``default_headers`` ...).

    Raises:
        ConfigurationError: a negative weight, or both ``api_key`` and ``key_env``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        key_env: str | None = None,
        model_map: Mapping[str, str] | None = None,
        weight: float = 1.0,
        fallbacks: Sequence[Target] = (),
        name: str | None = None,
        budget_usd: float | None = None,
        failover_if_sent: bool = False,
        context_window: int | Mapping[str, int] | None = None,
        prefill: bool | None = None,
        **client_options: Any,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        self.name = name or parts.netloc.rpartition("@")[2] or self.base_url
        if api_key is not None and key_env is not None:
            raise ConfigurationError(f"Target {self.name}: give api_key or key_env, not both")
        if not weight >= 0:  # also refuses NaN
            raise ConfigurationError(f"Target {self.name}: weight must be 0 or more, got {weight!r}")
        self._api_key = api_key
        self.key_env = key_env
        self.model_map = dict(model_map or {})
        self.weight = float(weight)
        self.fallbacks = tuple(fallbacks)
        self.budget_usd = budget_usd
        self.failover_if_sent = failover_if_sent
        self.context_window = dict(context_window) if isinstance(context_window, Mapping) else context_window
        self.prefill = prefill
        self.client_options = dict(client_options)

    def __repr__(self) -> str:  # never the key
        source = f", key_env={self.key_env!r}" if self.key_env else ""
        return f"Target({self.name!r}, weight={self.weight:g}{source})"

    def resolve_key(self) -> str:
        """This target's key, from ``api_key`` or ``key_env``.

        Raises:
            ConfigurationError: neither was given, or the variable is unset.
        """
        if self._api_key:
            return self._api_key
        if self.key_env:
            return _config.key_from_env(self.key_env, owner=f"Target {self.name}")
        raise ConfigurationError(
            f"Target {self.name} has no key: pass api_key=... or key_env='VARIABLE' "
            "(a target never borrows another target's key)"
        )

    def prepare(self, options: RequestOptions) -> RequestOptions:
        """``options`` with the model renamed for this target (unchanged when the model is not mapped): the
        body sent carries the mapped model, also when the caller's encoding of it came along
        (``as_openai()``), so that what is sent, held and charged agree."""
        body = options.body
        if not self.model_map or body is None:
            return options
        model = body.get("model")
        if not isinstance(model, str) or model not in self.model_map:
            return options
        return options.with_body({**body, "model": self.model_map[model]})

    def model_of(self, options: RequestOptions) -> str | None:
        """The model a request is sent to this target as (after ``model_map``)."""
        model = options.body.get("model") if options.body is not None else None
        if not isinstance(model, str):
            return None
        return self.model_map.get(model, model)

    def window(self, model: str | None, table: Callable[[str], int | None]) -> int | None:
        """The context window of ``model`` on this target: declared (``context_window``), else the
        price table's (``table``), else None (unknown)."""
        declared = self.context_window
        if isinstance(declared, int):
            return declared
        if model is None:
            return None
        if isinstance(declared, dict) and model in declared:
            return int(declared[model])
        return table(model)


def all_targets(weighted: Sequence[Target], shadow: Target | None) -> list[Target]:
    """Every distinct target (the weighted ones, their fallbacks, the shadow), each once, in order.

    Raises:
        ConfigurationError: no target, or two targets with the same name (pass ``name=``).
    """
    if not weighted:
        raise ConfigurationError("Router needs at least one Target")
    seen: dict[int, Target] = {}
    pending = [*weighted, *([shadow] if shadow is not None else [])]
    while pending:
        target = pending.pop(0)
        if not isinstance(target, Target):
            raise ConfigurationError(f"Router targets must be Target objects, got {type(target).__name__}")
        if id(target) not in seen:
            seen[id(target)] = target
            pending.extend(target.fallbacks)
    names: dict[str, Target] = {}
    for target in seen.values():
        if target.name in names:
            raise ConfigurationError(
                f"Two router targets are named {target.name!r}: pass name=... to tell them apart"
            )
        names[target.name] = target
    return list(seen.values())
