"""A request another client built, sent as it is: the pipeline's identity and wire steps for
``as_openai()``.

openai builds its request (URL, headers, JSON body, timeout) before its HTTP client hands it to
holyclient's transport. Building a second request from it, sending that through a second HTTP client
and wrapping the answer in a second response costs about a fifth of what openai itself spends per call.
So when the options carry the request (:class:`~holyclient._core.ForeignRequest`) and still describe it
-- their body and content are the very objects read from it (anything that changes the body makes new
ones; ``RequestOptions.with_body`` drops the request too), it was made for this client's base
URL, the client adds no default query, it is an httpx2 request and the client sends on an HTTP client
holyclient made (a caller's own merges its defaults into what it builds) -- the pipeline:

- **identity** (:func:`edit_in_place`): sets the attempt's key, holyclient's ``User-Agent``, the client's
  identity headers the request does not carry itself (its own ``OpenAI-Organization`` /
  ``OpenAI-Project`` win, as its other headers do on a rebuilt request) and the attempt's own headers
  (``Idempotency-Key``, ``x-stainless-retry-count``), on the request itself;
- **wire** (:func:`send_as_is`, on what :func:`wire_of` finds): hands it to the transport of the HTTP
  client holyclient made (no second client's auth, redirects, cookies or hooks: those belong to the
  client that built the request); then puts the request's own ``Authorization`` back (:func:`restore`),
  so that the request the caller keeps (openai's ``response.request``, its errors' ``request``) never
  holds the client's key.

Otherwise the request is built anew from the options, as any call's is. Every other step (record,
reserve, limiter, parse, settle, the retries and the span around them) is the same for both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._core import USER_AGENT
from .._http import own_transport
from ._attempts import ATTEMPT_HEADER, IDEMPOTENCY_HEADER
from ._steps import Exchange, clean_failure

if TYPE_CHECKING:
    from .._core import ForeignRequest, RequestOptions
    from ._steps import PipelineClient, Prepared, Preparer

__all__ = ["AsIs", "asend_as_is", "edit_in_place", "restore", "send_as_is", "wire_of"]


def edit_in_place(
    request: Any, key: str, identity: Mapping[str, str], attempt: Mapping[str, str] | None
) -> Any:
    """``request`` with the attempt's key, holyclient's identity and the attempt's headers set (see the
    module docstring); returns it."""
    headers = request.headers
    headers["Authorization"] = f"Bearer {key}"
    headers["User-Agent"] = USER_AGENT
    if identity:
        for name, value in identity.items():
            if name not in headers:  # the request's own (a per-request OpenAI-Project) wins
                headers[name] = value
    if attempt:
        for name in (IDEMPOTENCY_HEADER, ATTEMPT_HEADER):
            given = attempt.get(name)
            if given is not None:
                headers[name] = given
    return request


def restore(request: Any, authorization: str | None) -> None:
    """Put the request's own ``Authorization`` back (or remove the key when it had none)."""
    headers = request.headers
    if authorization is None:
        headers.pop("Authorization", None)
    else:
        headers["Authorization"] = authorization


def wire_of(http: Any) -> tuple[type[Any], Callable[[Any], Any]] | None:
    """How a request built elsewhere is sent on ``http``'s own wire: the request class it takes and the
    call that sends one, answering with the response unread -- the ``handle_request`` (or
    ``handle_async_request``) of the transport under an HTTP client holyclient made. None for any other
    HTTP client: a caller's own client merges its base URL, headers, query and cookies into the requests
    it builds, so the request is built anew on it."""
    transport = own_transport(http)
    if transport is None:
        return None
    import httpx2

    send = getattr(transport, "handle_async_request", None) or transport.handle_request
    return httpx2.Request, send


class AsIs:
    """One pipeline's answer to "can this request be sent as it is, and on what?" (the HTTP client it
    was worked out for, and :func:`wire_of` it, kept: a client's HTTP client rarely changes)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: tuple[Any, tuple[type[Any], Callable[[Any], Any]] | None] | None = None

    def wire(self, client: PipelineClient, options: RequestOptions) -> Callable[[Any], Any] | None:
        """What sends the request of ``options.foreign`` as it is on ``client``'s wire, or None when it
        must be built anew: the options no longer describe it (their body or content is another object),
        it was made for another base URL (a Router's other target), the client adds a default query, or
        the client's HTTP client is not one holyclient made (see the module docstring)."""
        foreign = options.foreign
        if (
            foreign is None
            or options.body is not foreign.body
            or options.content is not foreign.content
            or foreign.base_url != client._base_url
            or client.default_query
        ):
            return None
        http = client._http
        known = self._known
        if known is None or known[0] is not http:
            known = self._known = (http, wire_of(http))
        wire = known[1]
        if wire is None or type(foreign.request) is not wire[0]:
            return None
        return wire[1]

    def edited(self, prepared: Prepared, pipeline: Preparer) -> Any:
        """The identity step on ``prepared``'s foreign request when it can be sent as it is (see
        :func:`edit_in_place`), or None: it is then built anew, as any request is."""
        options = prepared.options
        foreign = options.foreign
        if foreign is None or self.wire(pipeline.client, options) is None:
            return None
        return edit_in_place(foreign.request, prepared.key, pipeline.identity(), options.extra_headers)

    def send(self, prepared: Prepared, client: PipelineClient) -> Exchange:
        """The wire step for ``prepared``, whose request was built as it is (:func:`send_as_is`)."""
        foreign = prepared.options.foreign
        assert foreign is not None
        return send_as_is(prepared, foreign, self.wire(client, prepared.options), client._http)

    async def asend(self, prepared: Prepared, client: PipelineClient) -> Exchange:
        """Async twin of :meth:`send`."""
        foreign = prepared.options.foreign
        assert foreign is not None
        return await asend_as_is(prepared, foreign, self.wire(client, prepared.options), client._http)


def send_as_is(
    prepared: Prepared, foreign: ForeignRequest, send: Callable[[Any], Any] | None, http: Any
) -> Exchange:
    """The wire step for a request built elsewhere: ``send`` it (:func:`wire_of`), read the body unless
    the call streams, and put the request's own ``Authorization`` back whatever happens.

    A redirect is followed by ``http`` (the HTTP client holyclient made, whose redirect rules strip the
    key from a request sent to another origin), as for a request it built. What the HTTP library raises
    is translated and redacted (:func:`~._steps.clean_failure`) while the request still holds the key,
    so the redacted copy says what was sent."""
    request = foreign.request
    assert send is not None  # the request was built as it is: nothing changed since
    response = None
    try:
        response = send(request)
        if 300 <= response.status_code < 400 and "location" in response.headers:
            response.close()
            response = None
            response = http.send(request, stream=True)
        response.request = request  # as the HTTP client would: the response says what it answers
        if not prepared.options.stream:
            response.read()
    except Exception as exc:
        if response is not None:
            response.close()
        error = clean_failure(exc, lambda: request)
    else:
        return Exchange(prepared, response, response)
    finally:
        restore(request, foreign.authorization)
    raise error


async def asend_as_is(
    prepared: Prepared, foreign: ForeignRequest, send: Callable[[Any], Awaitable[Any]] | None, http: Any
) -> Exchange:
    """Async twin of :func:`send_as_is`."""
    request = foreign.request
    assert send is not None
    response = None
    try:
        response = await send(request)
        if 300 <= response.status_code < 400 and "location" in response.headers:
            await response.aclose()
            response = None
            response = await http.send(request, stream=True)
        response.request = request
        if not prepared.options.stream:
            await response.aread()
    except Exception as exc:
        if response is not None:
            await response.aclose()
        error = clean_failure(exc, lambda: request)
    else:
        return Exchange(prepared, response, response)
    finally:
        restore(request, foreign.authorization)
    raise error
