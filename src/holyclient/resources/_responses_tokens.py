"""``responses.input_tokens.count()``: the server's count, or the offline counter's when it has none.

Relays often do not serve ``POST /responses/input_tokens``. When the server answers that it lacks the
endpoint (404, 405 or 501), the same body is counted locally with :func:`holyclient.count_request`
and the result says so: ``result.source == "local"`` (``"server"`` otherwise), and a log line on the
``holyclient`` logger. Anything else the server answers is raised as usual.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .._core import NOT_GIVEN, RequestOptions
from .._exceptions import APIStatusError
from ..types._input_tokens import InputTokenCountResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

COUNT = Operation("POST", "/responses/input_tokens", InputTokenCountResponse)
_LACKS_ENDPOINT = frozenset({404, 405, 501})
_log = logging.getLogger("holyclient")


def counted_locally(options: RequestOptions, error: APIStatusError) -> InputTokenCountResponse:
    """The body of ``options`` counted offline; ``error`` is re-raised unless it says the endpoint is missing.

    Raises:
        APIStatusError: ``error``, when it is not a missing endpoint or the body cannot be counted
            offline (no ``model``, nothing to count).
    """
    if error.status_code not in _LACKS_ENDPOINT:
        raise error
    from ..tokens import count_request

    body = dict(options.body or {})
    if "input" not in body:  # a stored conversation or previous response: only the server knows it
        raise error
    try:
        counted = count_request(body, endpoint="/responses")
    except (TypeError, ValueError):
        raise error from None
    _log.info(
        "POST /responses/input_tokens answered %s: returning the local count (%d tokens, %s)",
        error.status_code,
        counted.tokens,
        "approximate" if counted.approximate else "exact",
    )
    result = InputTokenCountResponse(input_tokens=counted.tokens)
    result._source = "local"
    return result


class InputTokens(SyncAPIResource):
    def count(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> InputTokenCountResponse:
        """The input tokens of a Responses request, counted by the server or, lacking it, offline.

        Returns:
            ``input_tokens``; ``source`` is ``"server"`` or ``"local"`` (the server lacks the endpoint).

        Raises:
            APIStatusError: any other refusal, or a body the offline counter cannot count.
        """
        options = COUNT.build(locals())
        try:
            return self._client._request(options, COUNT.cast_to)
        except APIStatusError as error:
            return counted_locally(options, error)


class AsyncInputTokens(AsyncAPIResource):
    async def count(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> InputTokenCountResponse:
        """Async twin of :meth:`InputTokens.count`."""
        options = COUNT.build(locals())
        try:
            return await self._client._request(options, COUNT.cast_to)
        except APIStatusError as error:
            return counted_locally(options, error)
