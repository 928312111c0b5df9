"""``_BaseClient``: configuration, request building and response parsing shared by both clients.

No I/O happens here: :class:`~holyclient._client._client.Client` and :class:`~holyclient._client._client.AsyncClient`
subclass it and only send, await and sleep.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from .. import _config
from .._constants import DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER
from .._core._binary import parse_response
from .._core._parse import make_status_error
from .._core._request import NOT_GIVEN, RequestOptions, build_headers
from .._core._retry import RetryPolicy, retry_after_seconds
from .._exceptions import APIError, ConfigurationError
from .._http._transport import default_timeout, request_timeout
from ..pricing._stream_usage import CHARGED_PATHS, StreamMeter, ask_for_usage
from ._attempts import Attempts
from ._recorder import make_recorder
from ._response import ResponseModes

if TYPE_CHECKING:
    from ..pricing._tracker import UsageTracker
    from ..ratelimit import Limiter
    from ..types._model import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


class _BaseClient(ResponseModes):
    """Configuration and request building shared by both clients (no I/O)."""

    _http: Any
    _owns_http: bool

    def __init__(
        self,
        *,
        api_key: Any = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        limiter: Limiter | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        calibration: Any = None,
    ) -> None:
        self.limiter = limiter
        self._set_api_key(api_key)
        self.organization = organization
        self.project = project
        self.base_url = _config.resolve_base_url(base_url)
        _config.check_transport_security(self.base_url, allow_insecure_http=allow_insecure_http)
        self.timeout = default_timeout(timeout)
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self.default_query = dict(default_query or {})
        self._allow_insecure_http = allow_insecure_http
        self._policy = RetryPolicy(max_retry_after=max_retry_after)
        self._budget_usd = budget_usd
        from ..pricing._tracker import UsageTracker

        # Created now, not on first use: threads making their first calls at once would each create
        # a tracker, losing requests and each enforcing the whole budget.
        self._usage: UsageTracker = UsageTracker(budget_usd=budget_usd, calibration=calibration)
        self._recorder = make_recorder(record_to, record_rate)  # a sample for ``holyclient compare``

    # The key lives in ``api_key`` but never in a repr: reprs end up in logs and tracebacks.
    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, max_retries={self.max_retries})"

    def _set_api_key(self, api_key: Any) -> None:
        """A string key (or ``HOLYSHEEP_API_KEY``), or a provider called before every request (key rotation)."""
        if callable(api_key):
            self._api_key_provider: Any = api_key
            self.api_key = ""
        else:
            self._api_key_provider = None
            self.api_key = _config.resolve_api_key(api_key)

    def _accept_api_key(self, key: object) -> None:
        if not isinstance(key, str) or not key:
            raise ConfigurationError(
                f"The api_key provider must return a non-empty string, not {type(key).__name__}"
            )
        self.api_key = key

    def _identity_headers(self) -> dict[str, str]:
        headers = {}
        if self.organization is not None:
            headers["OpenAI-Organization"] = self.organization
        if self.project is not None:
            headers["OpenAI-Project"] = self.project
        return headers

    @property
    def usage(self) -> UsageTracker:
        """Tokens and cost per model of every call made through this client and its copies."""
        return self._usage

    def with_options(
        self,
        *,
        api_key: Any = NOT_GIVEN,
        organization: str | None = NOT_GIVEN,
        project: str | None = NOT_GIVEN,
        base_url: str | None = NOT_GIVEN,
        timeout: Any = NOT_GIVEN,
        max_retries: int = NOT_GIVEN,
        default_headers: Mapping[str, str] | None = NOT_GIVEN,
        default_query: Mapping[str, object] | None = NOT_GIVEN,
        allow_insecure_http: bool = NOT_GIVEN,
        max_retry_after: float = NOT_GIVEN,
    ) -> Self:
        """A copy with some options changed, sharing this client's connection pool and usage tracker.

        ``default_headers`` and ``default_query`` are merged into the current ones. ``copy()`` is the
        same method under openai's other name.
        """
        new = copy.copy(self)
        new.default_headers = dict(self.default_headers)
        new.default_query = dict(self.default_query)
        new._owns_http = False  # the copy shares the connection pool; the original closes it
        new._usage = self._usage  # copies share one tracker (and one budget)
        if api_key is not NOT_GIVEN:
            new._set_api_key(api_key)
        if organization is not NOT_GIVEN:
            new.organization = organization
        if project is not NOT_GIVEN:
            new.project = project
        if default_query is not NOT_GIVEN:
            new.default_query.update(default_query or {})
        if base_url is not NOT_GIVEN:
            new.base_url = _config.resolve_base_url(base_url)
        if timeout is not NOT_GIVEN:
            new.timeout = default_timeout(timeout)
        if max_retries is not NOT_GIVEN:
            new.max_retries = max_retries
        if default_headers is not NOT_GIVEN:
            new.default_headers.update(default_headers or {})
        if max_retry_after is not NOT_GIVEN:
            new._policy = RetryPolicy(max_retry_after=max_retry_after)
        if allow_insecure_http is not NOT_GIVEN:
            new._allow_insecure_http = allow_insecure_http
        _config.check_transport_security(new.base_url, allow_insecure_http=new._allow_insecure_http)
        new._bind_resources()
        return new

    copy = with_options

    def _bind_resources(self) -> None:
        raise NotImplementedError

    def _build_request(self, options: RequestOptions) -> Any:
        defaults = self.default_headers
        if self.organization is not None or self.project is not None:
            defaults = {**self._identity_headers(), **defaults}
        headers = build_headers(self.api_key, defaults, options.extra_headers, stream=options.stream)
        timeout = self.timeout if options.timeout is NOT_GIVEN else default_timeout(options.timeout)
        query = {**self.default_query, **options.query} if options.query else self.default_query
        return self._http.build_request(
            options.method,
            self.base_url + options.path,
            json=options.body if options.method != "GET" and options.content is None else None,
            content=options.content,
            params=query or None,
            headers=headers,
            timeout=request_timeout(timeout),
        )

    def _retries(self, options: RequestOptions) -> int:
        return self.max_retries if options.max_retries is None else options.max_retries

    def _reserve(self, options: RequestOptions) -> Any:
        """Check the budget before sending (only when one is set: counting tokens is not free), or
        count a request whose billed usage teaches the tracker its model's correction."""
        if options.body is None:
            return None
        if options.path not in CHARGED_PATHS and "messages" not in options.body:
            return None
        if self._budget_usd is None and not self._usage.learns(options.body):
            return None
        return self._usage.reserve(options.body)

    def _settle(self, reservation: Any, model: str | None, usage: Any) -> None:
        usage_dict = usage.model_dump() if usage is not None else None
        if reservation is not None:
            self._usage.settle(reservation, usage_dict)
        elif usage_dict is not None and model:
            self._usage.record(model, usage_dict)

    def _attempts(self, options: RequestOptions) -> Attempts:
        """One call's attempts, its worst case reserved (see :class:`~holyclient._send._attempts.Attempts`)."""
        if self._recorder is not None:
            self._recorder.observe(options)
        return Attempts(options, self._usage, self._reserve)

    def _metered(self, options: RequestOptions) -> tuple[Attempts, Callable[[Attempts], StreamMeter]]:
        """A streaming call's attempts (asking for usage in the stream) and how to make the meter that
        will charge the stream, once an attempt has returned it."""
        body, hide = ask_for_usage(options.path, options.body)
        if body is not options.body:
            options = dataclasses.replace(options, body=body)

        def meter(attempts: Attempts) -> StreamMeter:
            return StreamMeter(self._usage, attempts.reservation, body, hide_usage_chunk=hide)

        return self._attempts(options), meter

    def _parse(self, response: Any, request: Any, cast_to: type[ModelT]) -> ModelT:
        """A read response as ``cast_to``, or the status error it carries."""
        if response.status_code >= 400:
            raise self._status_error(response, response.content, request)
        result = parse_response(cast_to, response, request=request)
        if hasattr(result, "__pydantic_fields__"):  # text, bytes, raw JSON and binary bodies carry no id
            result._request_id = response.headers.get("x-request-id")
        if self._response_cls is not None:  # with_raw_response / with_streaming_response
            return cast("ModelT", self._response_cls(response, result))
        return cast("ModelT", result)

    def _status_error(self, response: Any, content: bytes, request: Any) -> APIError:
        return make_status_error(
            response, content, request=request, retry_after=retry_after_seconds(response.headers)
        )
