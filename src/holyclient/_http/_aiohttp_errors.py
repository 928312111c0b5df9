"""aiohttp's errors as httpx2's: the one mapping of the aiohttp wire (the transport, and the async client's
direct wire, which reads answers itself), so that both fail the same way."""

from __future__ import annotations

import httpx2

__all__ = ["translated"]


def translated(exc: BaseException) -> BaseException:
    """The httpx2 exception for an aiohttp/OS error (the clients already classify httpx2's), or ``exc``.

    A dropped connection must read as a connection error, not as a timeout, and a timeout while
    connecting differs from one while waiting for the answer: the names follow httpcore's choices.
    """
    import aiohttp

    message = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx2.ConnectTimeout(message)
    if isinstance(exc, (aiohttp.ServerTimeoutError, TimeoutError)):
        return httpx2.ReadTimeout(message)
    if isinstance(exc, (aiohttp.ClientProxyConnectionError, aiohttp.ClientHttpProxyError)):
        return httpx2.ProxyError(message)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx2.ConnectError(message)
    # closed without an answer, a body cut short, or an answer that is not valid HTTP
    if isinstance(
        exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientResponseError)
    ):
        return httpx2.RemoteProtocolError(message)
    if isinstance(exc, (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError)):
        return httpx2.UnsupportedProtocol(message)
    if isinstance(exc, (aiohttp.ClientError, OSError)):
        return httpx2.ReadError(message)
    return exc
