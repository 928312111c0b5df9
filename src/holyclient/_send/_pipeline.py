"""The send pipeline: the one way every request of a client goes to the wire and back.

Every caller -- resource calls and streams (``Client._request`` / ``_stream``), raw and streaming
responses, ``client.get/post/...``, the batch runner (its fast path included), Router targets,
``compare`` and ``doctor`` -- sends each *attempt* through :meth:`Pipeline.send` /
:meth:`Pipeline.asend` (the sync and async drivers are thin shells over the same steps; retries stay
with :class:`~holyclient._core._retry.RetryPolicy`, or the batch runner's scheduler). The steps, each written
once, in the order they run:

1. **record** (:meth:`Pipeline.record`, once per call) -- a sample for ``holyclient compare``; a
   recorder that fails warns once and stops, it never fails the call.
2. **reserve** (:meth:`Pipeline.reserve`) -- the attempt's :class:`~holyclient.pricing.Ledger`, from
   its endpoint's declaration (:func:`~holyclient.pricing.charging_for`): with a budget, a billed
   endpoint holds its cost now; the ledger settles it, or keeps it as uncertain spend when the attempt
   fails after it was handed to the wire in a way the endpoint declares "maybe billed".
3. **key** (:meth:`Pipeline.key`) -- the key for this attempt; a provider is called every time.
4. **identity** (:meth:`Pipeline.build`, :meth:`Pipeline.url`, :meth:`Pipeline.wire_headers`) --
   ``OpenAI-Organization`` / ``OpenAI-Project``, default headers and default query; or, on a request
   another client built (``options.foreign``: openai's, in ``as_openai()``), in place (:mod:`._sent_as_is`).
5. **limiter** -- the client's ``limiter`` acquires before and observes after the wire.
6. **wire** -- the caller's :class:`~holyclient._steps.SendStep`\\s, then the HTTP client; anything the
   library raises is translated and redacted (:func:`~holyclient._steps.sent`).
7. **parse** (:meth:`Pipeline.finish`) -- the answer as the model asked for, or its status error; an
   answer that echoes the attempt's key has it cut out first (:meth:`~holyclient._steps.Exchange.unechoed`).
8. **settle** -- the usage the answer reports is charged on the ledger (if its endpoint settles).

A Router plugs in as the client's :class:`~holyclient._steps.Sender` (``_sender_factory``): it picks a
target and hands the attempt to that target's pipeline, so the target's key, budget and usage apply;
and as its :class:`~holyclient._send._calls.Caller` (``_caller_factory``), which runs each whole call
on a target's client and fails over between targets.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._constants import LOGGER_NAME
from .._core import NOT_GIVEN, build_headers
from .._http import default_timeout, timeout_extension
from ..pricing import Ledger, charging_for, holds
from ._direct import DirectWire
from ._first_use import load_first_use
from ._sent_as_is import AsIs
from ._steps import AsyncSend, Exchange, PipelineClient, Prepared, SendStep, asent, sent

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..types._model import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")

__all__ = ["Pipeline", "PipelineClient"]

logger = logging.getLogger(LOGGER_NAME)

#: Send-step chains a pipeline keeps built (see :meth:`Pipeline._chain`).
_CHAINS_KEPT = 8
#: Parsed URLs a pipeline keeps (see :meth:`Pipeline._url_object`).
_URLS_KEPT = 64


class Pipeline:
    """The steps of one client (see the module docstring); it reads the client's settings on each use."""

    __slots__ = (
        "_as_is",
        "_chains",
        "_direct",
        "_headers",
        "_http_defaults",
        "_ready",
        "_timeouts",
        "_url_objects",
        "_urls",
        "client",
    )

    def __init__(self, client: PipelineClient) -> None:
        self.client = client
        self._headers: (
            tuple[tuple[str, str | None, str | None], dict[str, str], list[tuple[str, str]]] | None
        ) = None
        #: per path: the base URL and default query it was built from (compared by value: ``client.base_url``
        #: may be reassigned, ``client.default_query`` edited in place), and the URL
        self._urls: dict[str, tuple[str, dict[str, object], str]] = {}
        self._url_objects: dict[str, tuple[Any, Any]] = {}
        self._timeouts: tuple[Any, dict[str, Any]] | None = None
        self._http_defaults: tuple[Any, dict[tuple[str, ...], list[tuple[bytes, bytes]]]] | None = None
        self._chains: dict[int, tuple[tuple[SendStep, ...], AsyncSend]] = {}
        self._ready: set[tuple[str, object]] = set()  # (path, model) of the calls ready() has prepared
        self._as_is = AsIs()  # how a request built elsewhere is sent as it is, if it can be
        self._direct = DirectWire()  # the async wire on aiohttp, without httpx2

    # --- the steps ---------------------------------------------------------------------------------

    def record(self, options: RequestOptions) -> None:
        """Step 1: append the call to the client's sample (``record_to``); never fails the call."""
        recorder = self.client._recorder
        if recorder is not None:
            recorder.observe(options, self.client._usage)

    def reserve(self, options: RequestOptions) -> Ledger:
        """Step 2: the attempt's ledger; with a budget, a billed endpoint's cost is held now.

        Raises:
            BudgetExceededError: what is left cannot cover what the attempt holds, or the budget
                cannot price it.
        """
        client = self.client
        charging = charging_for(options.method, options.path)
        tracker = client._usage
        ledger = Ledger(tracker, charging, options.body, None, options.path)
        return ledger.reserve() if holds(charging, client._budget_usd is not None) else ledger

    def ready(self, options: RequestOptions) -> None:
        """Load now what a call's attempts load on first use: the HTTP client (its library, its TLS
        context), the price table the answer is charged with and, when the call's tokens are counted
        (held against a budget before sending, or a model counted with a stand-in tokenizer learning
        from its answer), the model's tokenizer. Called before the call's span opens, so that the span
        and its ``time_to_first_chunk`` time the wire, not a process's first imports (0.1 to 0.5 s; a
        CLI only ever makes first calls). Done once per path and model. Never raises: what fails here
        fails again in the attempt, inside the span, which reports it."""
        body = options.body
        model = body.get("model") if body is not None else None
        done = (options.path, model if isinstance(model, str) else None)
        if done in self._ready:
            return
        try:
            load_first_use(self.client, options, done[1])
        except Exception:  # an HTTP client that cannot be made, a price table that cannot be read...
            logger.debug("Loading a call's first-use costs failed; its attempt will say why", exc_info=True)
            return
        self._ready.add(done)

    def key(self) -> str:
        """Step 3: the key for this attempt (a provider is called every time: keys rotate)."""
        client = self.client
        if client._api_key_provider is not None:
            client._accept_api_key(client._api_key_provider())
        return client.api_key

    async def akey(self) -> str:
        """Async twin of :meth:`key` (the provider is awaited)."""
        client = self.client
        if client._api_key_provider is not None:
            client._accept_api_key(await client._api_key_provider())
        return client.api_key

    def identity(self) -> dict[str, str]:
        """Step 4: the headers every request carries besides the key: organization, project, defaults."""
        client = self.client
        headers = {}
        if client.organization is not None:
            headers["OpenAI-Organization"] = client.organization
        if client.project is not None:
            headers["OpenAI-Project"] = client.project
        return {**headers, **client.default_headers} if headers else client.default_headers

    def build(self, prepared: Prepared) -> Any:
        """The httpx(2) request of an attempt: its key, identity headers, default query and timeout (or
        the request another client built for it, with its key and identity set: :mod:`._sent_as_is`)."""
        client, options = self.client, prepared.options
        if options.foreign is not None and (edited := self._as_is.edited(prepared, self)) is not None:
            return edited
        http = client._http
        headers = build_headers(prepared.key, self.identity(), options.extra_headers, stream=options.stream)
        query = {**client.default_query, **options.query} if options.query else client.default_query
        url = self._url_object(http, options.path)
        json = options.body if options.method != "GET" and options.content is None else None
        extensions = {"timeout": self._timeout_extension(options.timeout)}
        if not client._owns_http:  # a caller's client: its base URL, headers, query and cookies apply
            return http.build_request(
                options.method,
                url,
                json=json,
                content=options.content,
                params=query or None,
                headers=headers,
                extensions=extensions,
            )
        # Our own httpx2 client has no base URL, query or headers of its own beyond httpx2's defaults:
        # the request its build_request makes, without merging the headers one by one (a tenth of a
        # loopback request's CPU). Its cookie jar still applies, as there.
        import httpx2

        return httpx2.Request(
            options.method,
            url,
            json=json,
            content=options.content,
            params=query or None,  # type: ignore[arg-type]  # (no typing.cast: a call per request)
            headers=self._with_http_defaults(http, headers),
            cookies=http.cookies,
            extensions=extensions,
        )

    def _with_http_defaults(self, http: Any, headers: dict[str, str]) -> list[tuple[Any, Any]]:
        """``headers`` after the HTTP client's own defaults they do not replace, in the order httpx2's
        ``build_request`` merges them (worked out once per HTTP client and set of header names)."""
        names = tuple(headers)
        known = self._http_defaults
        if known is None or known[0] is not http:
            known = self._http_defaults = (http, {})
        kept = known[1].get(names)
        if kept is None:
            given = {name.lower() for name in names}
            kept = [
                (name, value)
                for name, value in http.headers.raw
                if name.decode("latin-1").lower() not in given
            ]
            if len(known[1]) >= _URLS_KEPT:  # header names that vary per call: keep the memo bounded
                known[1].clear()
            known[1][names] = kept
        return kept + list(headers.items())

    def _url_object(self, http: Any, path: str) -> Any:
        """The URL of ``path`` as ``http``'s library's URL object (parsed once per base URL and path: a
        URL string is parsed again on every request, about a tenth of a loopback request's CPU)."""
        url = self.client._base_url + path
        known = self._url_objects.get(url)
        if known is not None and known[0] is http:
            return known[1]
        if len(self._url_objects) >= _URLS_KEPT:  # paths with ids (files, batches, responses)
            self._url_objects.clear()
        parsed = type(http.base_url)(url)  # httpx2.URL, or httpx.URL for a caller's httpx client
        self._url_objects[url] = (http, parsed)
        return parsed

    def _timeout_extension(self, timeout: Any) -> dict[str, Any]:
        """The ``timeout`` request extension both HTTP libraries read (what ``build_request(timeout=)``
        makes), for the call's own timeout or the client's (made once per client timeout)."""
        if timeout is not NOT_GIVEN:
            return timeout_extension(default_timeout(timeout))
        setting = self.client.timeout  # may be reassigned: kept beside its extension, compared by identity
        known = self._timeouts
        if known is None or known[0] is not setting:
            known = self._timeouts = (setting, timeout_extension(default_timeout(setting)))
        return dict(known[1])

    def url(self, options: RequestOptions) -> str:
        """The full URL of ``options``, default query included (cached per path without a call query,
        rebuilt when the client's base URL or default query changed, in place or not)."""
        client = self.client
        if options.query:
            return str(self._query_url(options.path, {**client.default_query, **options.query}))
        cached = self._urls.get(options.path)
        if cached is not None and cached[0] == client._base_url and cached[1] == client.default_query:
            return cached[2]
        url = str(self._query_url(options.path, client.default_query))
        self._urls[options.path] = (client._base_url, dict(client.default_query), url)
        return url

    def _query_url(self, path: str, query: Mapping[str, object]) -> Any:
        import httpx2

        url = httpx2.URL(self.client._base_url + path)
        return url.copy_merge_params(cast("Any", query)) if query else url

    def wire_headers(self, key: str, extra: Mapping[str, str] | None, *, json: bool = True) -> list[Any]:
        """The headers of a request with a JSON body (or none) as a list, as httpx2 would send them; for a
        JSON POST without extra headers (the batch runner's) rebuilt only when the key, identity or
        default headers change (``client.default_headers`` may be edited in place: compared by value)."""
        client = self.client
        stamp = (key, client.organization, client.project)
        cached = self._headers
        keep = json and not extra
        if keep and cached is not None and cached[0] == stamp and cached[1] == client.default_headers:
            return cached[2]
        headers = build_headers(key, self.identity(), extra)
        headers = {"Accept-Encoding": "gzip, deflate", **headers}
        if json:
            headers["Content-Type"] = "application/json"
        listed = list(headers.items())
        if keep:
            self._headers = (stamp, dict(client.default_headers), listed)
        return listed

    def finish(self, exchange: Exchange, cast_to: type[ModelT]) -> ModelT:
        """Steps 7 and 8: parse a read answer as ``cast_to`` (or raise its status error), charge its usage."""
        client = self.client
        try:
            exchange.unechoed()
            response = exchange.response
            if response is exchange._response:  # the HTTP library's own response
                result = client._parse(response, exchange.request, cast_to)
            else:  # read off the wire directly: httpx2's objects are made only if needed
                result = client._parse_answer(exchange, cast_to)
        except BaseException as exc:
            exchange.failed(exc)
            raise
        ledger = exchange.ledger
        if ledger is not None:
            ledger.answered(client._unwrap(result))
        return result

    # --- the drivers ---------------------------------------------------------------------------------

    def send(self, options: RequestOptions, *, limited: bool = True) -> Exchange:
        """One attempt through the steps: the answer whatever its status, its reservation held.

        Args:
            limited: wait for the client's limiter (the batch runner admits by itself).

        Raises:
            BudgetExceededError: the budget cannot cover the attempt (nothing was sent).
            APIConnectionError: (or ``APITimeoutError``) no answer was obtained.
        """
        ledger = self.reserve(options)
        try:
            prepared = Prepared(self, options, self.key())
            limiter = self.client.limiter if limited else None
            if limiter is None:
                ledger.sending = True
                exchange = self._wire(prepared)
            else:
                from ..ratelimit import admission_cost, response_feedback

                admission = limiter.acquire_sync(*admission_cost(limiter, options.body, ledger.charging))
                ledger.sending = True
                exchange = self._wire(prepared)
                limiter.observe_sync(admission, response_feedback(exchange.response, stream=options.stream))
        except BaseException as exc:
            ledger.failed(exc)
            raise
        exchange.ledger = ledger
        return exchange

    async def asend(
        self, options: RequestOptions, *, steps: tuple[SendStep, ...] = (), limited: bool = True
    ) -> Exchange:
        """Async twin of :meth:`send`; ``steps`` run around the wire, first outermost."""
        ledger = self.reserve(options)
        try:
            client = self.client
            key = client.api_key if client._api_key_provider is None else await self.akey()
            prepared = Prepared(self, options, key)
            limiter = client.limiter if limited else None
            if limiter is not None:
                from ..ratelimit import admission_cost

                admission = await limiter.acquire(*admission_cost(limiter, options.body, ledger.charging))
            ledger.sending = True  # from here a cancellation may come after the request left
            transport = None if steps or options.foreign is not None else self._direct.takes(prepared)
            if transport is not None:
                exchange = await self._direct.send(prepared, transport)
            else:
                exchange = await (self._chain(steps) if steps else self._awire)(prepared)
            if limiter is not None:
                from ..ratelimit import response_feedback

                await limiter.observe(admission, response_feedback(exchange.response, stream=options.stream))
        except BaseException as exc:
            ledger.failed(exc)
            raise
        exchange.ledger = ledger
        return exchange

    def _chain(self, steps: tuple[SendStep, ...]) -> AsyncSend:
        """``steps`` bound around the wire (built once per tuple of steps: a batch sends thousands).

        At most :data:`_CHAINS_KEPT` chains are kept: a caller that makes a new tuple per call (a
        stopwatch per request) would otherwise grow the cache, and every entry keeps its steps alive.
        """
        known = self._chains.get(id(steps))
        if known is not None and known[0] is steps:
            return known[1]
        send: AsyncSend = self._awire
        for step in reversed(steps):
            send = functools.partial(step, send=send)
        if len(self._chains) >= _CHAINS_KEPT:
            self._chains.clear()
        self._chains[id(steps)] = (steps, send)
        return send

    def _wire(self, prepared: Prepared) -> Exchange:
        request = prepared.request()
        if prepared.options.foreign is not None and request is prepared.options.foreign.request:
            return self._as_is.send(prepared, self.client)
        http = self.client._http
        response = sent(lambda: http.send(request, stream=prepared.options.stream), lambda: request)
        return Exchange(prepared, response, response)

    async def _awire(self, prepared: Prepared) -> Exchange:  # the end of a chain of steps
        transport = None if prepared.options.foreign is not None else self._direct.takes(prepared)
        if transport is not None:
            return await self._direct.send(prepared, transport)
        request = prepared.request()
        if prepared.options.foreign is not None and request is prepared.options.foreign.request:
            return await self._as_is.asend(prepared, self.client)
        http = self.client._http
        response = await asent(lambda: http.send(request, stream=prepared.options.stream), lambda: request)
        return Exchange(prepared, response, response)
