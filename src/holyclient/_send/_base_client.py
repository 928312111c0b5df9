"""``BaseClient``: configuration, request building and response parsing shared by both clients.

No I/O happens here: :class:`~holyclient._client._client.Client` and :class:`~holyclient._client._client.AsyncClient`
subclass it and only send, await and sleep.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from .. import _config, _otel
from .._core import NOT_GIVEN, EventClock, RequestOptions, RetryPolicy, omitted, parse_response, stream_limits
from .._exceptions import APIError, ConfigurationError
from .._http import default_timeout
from ..pricing import StreamMeter, ask_for_usage, charging_for
from ._attempts import Attempts
from ._pipeline import Pipeline
from ._recorder import make_recorder
from ._response import ResponseModes
from ._settings import NO_KEY, ClientSettings
from ._usage_setting import tracker_of

if TYPE_CHECKING:
    from .._otel._telemetry import Call, Telemetry
    from ..pricing import UsageTracker
    from ..types._model import BaseModel
    from ._calls import AsyncCaller, Caller
    from ._steps import Exchange, Sender

ModelT = TypeVar("ModelT", bound="BaseModel")

#: The resources a client binds on first access (``client.chat`` ...): the keys of
#: ``resources.SYNC_RESOURCES`` / ``ASYNC_RESOURCES`` (a test keeps them equal).
RESOURCE_NAMES = frozenset(
    {
        "audio",
        "batches",
        "beta",
        "chat",
        "completions",
        "embeddings",
        "files",
        "images",
        "models",
        "moderations",
        "responses",
    }
)

#: Held while a client makes its HTTP client: two threads' first calls must not make two pools.
_MAKING = threading.RLock()
#: What a client holds before its telemetry is made (``None`` is "made: off").
_UNMADE: Any = object()


class BaseClient(ResponseModes):
    """Configuration and request building shared by both clients (no I/O)."""

    _owns_http: bool
    #: The base URL as a string without its trailing slash, what request URLs are built from.
    _base_url: str
    #: Makes the :class:`~holyclient._steps.Sender` of a client whose attempts do not go straight to its
    #: own pipeline (a Router's picks a target); ``None``: the client's :class:`~holyclient._pipeline.Pipeline`.
    _sender_factory: Callable[[Any], Sender] | None = None
    #: Makes the :class:`~holyclient._send._calls.Caller` (or ``AsyncCaller``) that runs each whole call:
    #: the client's own retry loop (``Client`` / ``AsyncClient`` set theirs); a Router's fails over.
    _caller_factory: Callable[[Any], Any]
    #: ``(instrument, tracer_provider, meter_provider)``: the client's OpenTelemetry instruments are made
    #: from them on its first call (see :attr:`_telemetry`).
    _otel_options: tuple[bool, Any, Any] = (False, None, None)

    def __init__(self, settings: ClientSettings) -> None:
        """Every setting of :class:`ClientSettings` (the subclasses' constructors name each one)."""
        api_key, http_client = settings["api_key"], settings["http_client"]
        self.limiter = settings["limiter"]
        self._set_api_key(api_key)
        self.organization = settings["organization"]
        self.project = settings["project"]
        self._base_url = _config.resolve_base_url(settings["base_url"])
        self._allow_insecure_http = settings["allow_insecure_http"]
        if api_key is not NO_KEY:
            _config.check_transport_security(self._base_url, allow_insecure_http=self._allow_insecure_http)
        # the caller's HTTP client is never closed by us; a client without a key has no pool at all
        self._owns_http = http_client is None and api_key is not NO_KEY
        if http_client is not None or api_key is NO_KEY:
            self._http = http_client
        self._sleep = settings["sleep"]  # how to wait between retries (tests pass a recorder)
        self._given_timeout(settings["timeout"])
        self._set_stream_limits(settings["first_event_timeout"], settings["stream_idle_timeout"])
        self.max_retries = settings["max_retries"]
        self.default_headers = dict(settings["default_headers"] or {})
        self.default_query = dict(settings["default_query"] or {})
        self._policy = RetryPolicy(max_retry_after=settings["max_retry_after"])
        self._usage: UsageTracker = tracker_of(settings)
        self._budget_usd = self._usage.budget_usd
        # a sample for ``holyclient compare``
        self._recorder = make_recorder(settings["record_to"], settings["record_rate"])
        # OpenTelemetry spans and metrics per call (None: off, or opentelemetry-api not installed)
        self._otel_options = (settings["instrument"], settings["tracer_provider"], settings["meter_provider"])

    # The key lives in ``api_key`` but never in a repr: reprs end up in logs and tracebacks.
    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._base_url!r}, max_retries={self.max_retries})"

    def _set_api_key(self, api_key: Any) -> None:
        """A string key (or ``HOLYSHEEP_API_KEY``), or a provider called before every request (key rotation)."""
        self._api_key_provider: Any
        if api_key is NO_KEY:
            self._api_key_provider = None
            self.api_key = ""
        elif callable(api_key):
            self._api_key_provider = api_key
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
        first_event_timeout: float | None = NOT_GIVEN,
        stream_idle_timeout: float | None = NOT_GIVEN,
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
        changes = {name: value for name, value in locals().items() if name in _COPY_CHANGES}
        self._http  # noqa: B018  # made now: the copy shares this client's pool, which the original closes
        new = copy.copy(self)
        new.default_headers = dict(self.default_headers)
        new.default_query = dict(self.default_query)
        new._owns_http = False  # the copy shares the connection pool; the original closes it
        new._usage = self._usage  # copies share one tracker (and one budget)
        for name, change in _COPY_CHANGES.items():
            value = changes[name]
            # openai's sentinels (a framework's ``with_options(timeout=openai.NOT_GIVEN)``) leave it as is
            if not omitted(value):
                change(new, value)
        if new.api_key or new._api_key_provider is not None:  # NO_KEY: no key to protect
            _config.check_transport_security(new._base_url, allow_insecure_http=new._allow_insecure_http)
        new._bind_resources()
        return new

    copy = with_options

    # --- bound on first use: ``Client()`` costs no connection pool (an SSL context alone is ~30 ms)
    # and imports no resource module until a call needs it, as openai's cached properties do ---

    @property
    def _http(self) -> Any:
        """The HTTP client: the caller's, or our own, made on first use."""
        try:
            return self.__dict__["_http_"]
        except KeyError:
            with _MAKING:
                if "_http_" not in self.__dict__:
                    self.__dict__["_http_"] = self._new_http()
            return self.__dict__["_http_"]

    @_http.setter
    def _http(self, value: Any) -> None:
        self.__dict__["_http_"] = value

    def _made_http(self) -> Any:
        """The HTTP client if it was made or given (``close()`` makes none to close it)."""
        return self.__dict__.get("_http_")

    def _new_http(self) -> Any:
        raise NotImplementedError

    def _bind_resources(self) -> None:
        """Forget the resources bound to the client this one was copied from (they rebind on first use)."""
        for name in RESOURCE_NAMES:
            self.__dict__.pop(name, None)

    def _retries(self, options: RequestOptions) -> int:
        return self.max_retries if options.max_retries is None else options.max_retries

    def _policy_for(self, options: RequestOptions) -> RetryPolicy:
        """The client's retry policy, without retrying a silent server a Router can fail over from."""
        return self._policy.failing_over if options.failover else self._policy

    @property
    def base_url(self) -> Any:
        """Where requests go: an ``httpx2.URL`` ending in ``/`` (``https://api.holysheep.ai/v1/``), as
        openai's is. Assigning a string or a URL sets it; an ``http://`` URL to another machine is refused
        as in the constructor (the key would travel in clear text)."""
        base = self._base_url
        known = self.__dict__.get("_base_url_object")
        if known is None or known[0] != base:
            import httpx2

            known = self.__dict__["_base_url_object"] = (base, httpx2.URL(base + "/"))
        return known[1]

    @base_url.setter
    def base_url(self, value: Any) -> None:
        base = _config.resolve_base_url(value)
        if self.api_key or self._api_key_provider is not None:
            _config.check_transport_security(base, allow_insecure_http=self._allow_insecure_http)
        self._base_url = base

    @property
    def timeout(self) -> Any:
        """The default timeout of every request, as given (``5``, a ``Timeout``), as openai keeps it; not
        given, ``DEFAULT_TIMEOUT``: an ``httpx2.Timeout`` of 10 minutes, 5 s to connect. Made on first read,
        so that ``Client()`` imports no HTTP library. A number ``t`` waits at most ``min(t, 5)`` s to
        connect (:func:`~holyclient._http.default_timeout`)."""
        try:
            return self.__dict__["_timeout_"]
        except KeyError:
            given = self.__dict__.get("_timeout_given")
            value = self.__dict__["_timeout_"] = default_timeout(None) if given is None else given
            return value

    @timeout.setter
    def timeout(self, value: Any) -> None:
        self.__dict__["_timeout_"] = value

    def _set_stream_limits(self, first_event: Any = NOT_GIVEN, idle: Any = NOT_GIVEN) -> None:
        """A stream's two deadlines as given, checked now (a bad value fails here, not on a call)."""
        stream_limits(first_event, idle, None)
        if not omitted(first_event) or "first_event_timeout" not in self.__dict__:
            self.first_event_timeout: float | None = first_event
        if not omitted(idle) or "stream_idle_timeout" not in self.__dict__:
            self.stream_idle_timeout: float | None = idle

    def _event_clock(self, options: RequestOptions, started: float, request: Any) -> EventClock:
        """The deadlines of one stream attempt sent at ``started`` (see :mod:`._stream_deadlines`)."""
        first, idle = stream_limits(self.first_event_timeout, self.stream_idle_timeout, options.body)
        return EventClock(first, idle, started, request)

    def _given_timeout(self, timeout: Any) -> None:
        """A timeout given to the constructor or ``with_options`` (a number, a ``Timeout``, None: the default)."""
        self.__dict__.pop("_timeout_", None)
        self.__dict__["_timeout_given"] = timeout

    @property
    def _telemetry(self) -> Telemetry | None:
        """The client's OpenTelemetry instruments (None: off, or no API installed), made on first use:
        importing ``opentelemetry`` and making the instruments cost more than the rest of ``Client()``
        (about 50 ms), and a client that never calls needs neither. Not made while the API is not in
        use (see :func:`holyclient._otel.wanted`): each call asks again. Copies share them."""
        made = self.__dict__.get("_telemetry_", _UNMADE)
        if made is not _UNMADE:
            return made  # type: ignore[no-any-return]
        if not _otel.wanted(*self._otel_options):
            return None
        with _MAKING:
            if "_telemetry_" not in self.__dict__:
                self.__dict__["_telemetry_"] = _otel.telemetry(*self._otel_options)
        return self.__dict__["_telemetry_"]  # type: ignore[no-any-return]

    @property
    def _pipeline(self) -> Pipeline:
        """This client's send pipeline (one per client object: a copy gets its own, reading its settings)."""
        pipeline = self.__dict__.get("_pipeline_")
        if pipeline is None or pipeline.client is not self:
            pipeline = self.__dict__["_pipeline_"] = Pipeline(self)
        return pipeline

    @property
    def _sender(self) -> Sender:
        """What sends this client's attempts: its pipeline, or what ``_sender_factory`` makes (a Router's)."""
        sender = self.__dict__.get("_sender_")
        if sender is None or sender.client is not self:
            factory = self._sender_factory
            sender = self.__dict__["_sender_"] = Pipeline(self) if factory is None else factory(self)
        return sender

    @property
    def _caller(self) -> Any:
        """What runs this client's calls: what ``_caller_factory`` makes, one per client object."""
        caller: Caller | AsyncCaller | None = self.__dict__.get("_caller_")
        if caller is None or caller.client is not self:
            caller = self.__dict__["_caller_"] = self._caller_factory(self)
        return caller

    def _start(self, options: RequestOptions) -> Attempts:
        """A call begins: it is recorded (``record_to``) and its attempts numbered."""
        if self._recorder is not None:
            self._pipeline.record(options)
        attempts = Attempts(options)
        telemetry = self._telemetry
        if telemetry is not None:  # the call's span opens before its first attempt (retries inside),
            # once what the attempts load on first use is loaded (the span times the wire)
            call = attempts.call = telemetry.start(self._base_url, options, self._pipeline.ready)
            if call is not None:
                call.counting(attempts.count)
        return attempts

    def _start_stream(self, options: RequestOptions) -> tuple[Attempts, bool]:
        """A streaming call begins, asking for usage in the stream: its attempts, and whether to hide
        the usage-only chunk the caller did not ask for."""
        charging = charging_for(options.method, options.path)
        body, hide = ask_for_usage(charging, options.body, raw_bytes=self._reads_raw_bytes)
        if body is not options.body and body is not None:
            options = options.with_body(body)
        return self._start(options), hide

    def _meter(self, exchange: Exchange, hide: bool, call: Call | None = None) -> StreamMeter | None:
        """The meter that charges a stream: it takes over the attempt's ledger (and ends the call's span
        when the stream ends). A stream whose endpoint is not charged by its events (a transcription's,
        an undeclared route's) is settled as it opens, as an answer without usage (an unpriced endpoint
        counts an unpriced request, a free one nothing): it then gets a meter only when traced, which
        charges nothing and only ends the span."""
        ledger = exchange.ledger
        if ledger is None:
            return None
        if ledger.charging.stream is None:
            ledger.settle(None, None)
            if call is None:
                return None
        if call is not None:
            call.first_chunk()
        return StreamMeter(ledger, hide_usage_chunk=hide, watch=call)

    def _parse(self, response: Any, request: Any, cast_to: type[ModelT]) -> ModelT:
        """A read response as ``cast_to``, or the status error it carries."""
        if response.status_code >= 400:
            raise self._status_error(response, response.content, request)
        result = parse_response(cast_to, response, request=request)
        if hasattr(result, "__pydantic_fields__"):  # text, bytes, raw JSON and binary bodies carry no id
            # where ``BaseModel._request_id``'s setter keeps it, without pydantic's ``__setattr__``
            result.__dict__["_request_id"] = response.headers.get("x-request-id")
        if self._response_cls is not None:  # with_raw_response / with_streaming_response
            return cast("ModelT", self._response_cls(response, result))
        return cast("ModelT", result)

    def _parse_answer(self, exchange: Exchange, cast_to: type[ModelT]) -> ModelT:
        """An answer read off the wire by the pipeline itself (:mod:`._direct`) as ``cast_to``: a 2xx model
        straight from its bytes; anything else -- a status error, another type, a raw response, a body
        that does not validate -- as :meth:`_parse` makes it, from httpx2's objects built now."""
        answer = exchange.response
        validate = getattr(cast_to, "model_validate_json", None)
        if validate is not None and answer.status_code < 400 and self._response_cls is None:
            try:
                result: ModelT = validate(answer.content)
            except Exception:  # parsed again below, which raises the error as it should read
                pass
            else:
                result.__dict__["_request_id"] = answer.headers.get("x-request-id")
                return result
        request, response = exchange.httpx()
        return self._parse(response, request, cast_to)

    def _status_error(self, response: Any, content: bytes, request: Any) -> APIError:
        """The status error an answer carries (its class by status, ``Retry-After`` read, redacted)."""
        from .._core import make_status_error, retry_after_seconds

        retry_after = retry_after_seconds(response.headers)
        return make_status_error(response, content, request=request, retry_after=retry_after)


def _set(name: str) -> Callable[[BaseClient, Any], None]:
    return lambda client, value: setattr(client, name, value)


#: What ``with_options`` does with each setting it is given, on the copy (the others are shared as they are).
_COPY_CHANGES: dict[str, Callable[[BaseClient, Any], None]] = {
    "api_key": BaseClient._set_api_key,
    "organization": _set("organization"),
    "project": _set("project"),
    "base_url": lambda client, value: setattr(client, "_base_url", _config.resolve_base_url(value)),
    "timeout": BaseClient._given_timeout,
    "first_event_timeout": lambda client, value: client._set_stream_limits(first_event=value),
    "stream_idle_timeout": lambda client, value: client._set_stream_limits(idle=value),
    "max_retries": _set("max_retries"),
    "default_headers": lambda client, value: client.default_headers.update(value or {}),  # merged
    "default_query": lambda client, value: client.default_query.update(value or {}),  # merged
    "allow_insecure_http": _set("_allow_insecure_http"),
    "max_retry_after": lambda client, value: setattr(client, "_policy", RetryPolicy(max_retry_after=value)),
}
