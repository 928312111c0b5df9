"""``client.as_openai()`` and ``client.as_http_client()``: a genuine openai client, or an HTTP client of
the library a framework takes, whose every request runs through a holyclient client's call path.

Light on purpose: the client's classes import it, and ``import holyclient`` loads neither openai nor an
HTTP library; the transports are imported on first use.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from .._http import default_timeout

if TYPE_CHECKING:
    from ._adapter import Retries

__all__ = ["PLACEHOLDER_KEY", "http_client", "openai_client", "openai_module", "shared_http_client"]

#: The ``api_key`` of the openai client ``as_openai()`` makes. The holyclient client adds its own key to
#: each request it sends, so the openai client never holds it: a framework that reads the openai client's
#: key and sends it elsewhere (the Agents SDK exports traces to api.openai.com with it) sends this.
PLACEHOLDER_KEY = "holyclient-adds-the-key"

_INSTALL = "pip install 'holyclient[openai]'"


def openai_module() -> Any:
    """The ``openai`` package.

    Raises:
        ImportError: openai is not installed (the message says how to install it).
    """
    try:
        import openai
    except ImportError:
        raise ImportError(f"as_openai() needs the openai package: {_INSTALL}") from None
    return openai


def _legacy(openai: Any) -> bool:
    """Whether ``openai`` is 2.x or older, on the legacy httpx (3.x is on httpx2)."""
    return int(str(openai.__version__).split(".", 1)[0]) < 3


def _installed_openai_is_legacy() -> bool:
    try:
        import openai
    except ImportError:
        return False
    return _legacy(openai)


def _flavor_and_transport(client: Any, legacy: bool | None, retries: Retries) -> tuple[Any, Any]:
    """The HTTP library (the installed openai's by default) and holyclient's transport on it."""
    is_async = inspect.iscoroutinefunction(client.request)
    if legacy is None:
        legacy = _installed_openai_is_legacy()
    if legacy:
        try:
            import httpx
        except ImportError:
            raise ImportError("as_http_client(legacy=True) needs httpx: pip install httpx") from None
        from ._legacy import AsyncLegacyHolyTransport, LegacyHolyTransport

        kind: Any = AsyncLegacyHolyTransport if is_async else LegacyHolyTransport
        return httpx, kind(client, retries=retries)
    import httpx2

    from ._transports import AsyncHolyTransport, HolyTransport

    return httpx2, (AsyncHolyTransport if is_async else HolyTransport)(client, retries=retries)


def _timeout(client: Any, flavor: Any) -> Any:
    timeout = default_timeout(client.timeout)  # as given (a number, a Timeout) or the default
    return flavor.Timeout(connect=timeout.connect, read=timeout.read, write=timeout.write, pool=timeout.pool)


def http_client(client: Any, *, legacy: bool | None = None, retries: Retries = "auto") -> Any:
    """An HTTP client whose requests to ``client``'s base URL run through ``client``'s call path.

    Args:
        client: a holyclient ``Client`` / ``Router`` (an ``httpx2.Client`` is made) or ``AsyncClient`` /
            ``AsyncRouter`` (an ``httpx2.AsyncClient``).
        legacy: make an ``httpx`` client instead of an ``httpx2`` one; by default, the library of the
            installed openai (2.x: httpx, 3.x: httpx2), httpx2 without openai.
        retries: see :class:`~holyclient.openai_compat.HolyTransport`.
    """
    flavor, transport = _flavor_and_transport(client, legacy, retries)
    kind = flavor.AsyncClient if inspect.iscoroutinefunction(client.request) else flavor.Client
    return kind(transport=transport, timeout=_timeout(client, flavor))


def shared_http_client(client: Any, aclient: Any, *, legacy: bool | None = None) -> Any:
    """One HTTP client that openai's sync and async clients both accept, for a framework that gives the
    same ``http_client`` to both (CrewAI's ``client_params``): a request from an ``openai.OpenAI`` is sent
    through ``client``, one from an ``openai.AsyncOpenAI`` through ``aclient`` (openai says which it is in
    ``X-Stainless-Async``). openai's retries are the one layer, as with :func:`http_client`.

    Args:
        client: a holyclient ``Client`` (or ``Router``).
        aclient: a holyclient ``AsyncClient`` (or ``AsyncRouter``).
        legacy: as for :func:`http_client`.

    Raises:
        TypeError: ``client`` is async or ``aclient`` is not.
    """
    if inspect.iscoroutinefunction(client.request) or not inspect.iscoroutinefunction(aclient.request):
        raise TypeError("shared_http_client(client, aclient) takes a Client, then an AsyncClient")
    flavor, sync_transport = _flavor_and_transport(client, legacy, "auto")
    _, async_transport = _flavor_and_transport(aclient, flavor.__name__ == "httpx", "auto")
    from ._shared_client import shared_class

    return shared_class(flavor)(sync_transport, async_transport, _timeout(client, flavor))


def openai_client(client: Any) -> Any:
    """A genuine ``openai.OpenAI`` (``AsyncOpenAI`` for an async client) sending through ``client``: its
    retries are off (the client's policy applies, once), its key is :data:`PLACEHOLDER_KEY`.

    Raises:
        ImportError: openai is not installed.
    """
    openai = openai_module()
    http = http_client(client, legacy=_legacy(openai), retries="holyclient")
    kind = openai.AsyncOpenAI if inspect.iscoroutinefunction(client.request) else openai.OpenAI
    return kind(
        api_key=PLACEHOLDER_KEY,
        organization=client.organization,
        project=client.project,
        base_url=client.base_url,
        timeout=http.timeout,
        max_retries=0,
        http_client=http,
    )
