"""``responses.parse()`` and ``responses.stream()``: structured outputs and the stream helper.

Mixed into the Responses resources. The request is the create operation's, with a ``text_format``
class turned into its strict JSON schema in ``text.format`` and ``pydantic_function_tool`` tools made
flat (:mod:`holyclient._parsing._responses`); the answer is decoded by the same function the stream
helper (:mod:`holyclient._responses_stream`) uses, so ``parse()`` and ``stream()`` agree. ``stream()``
goes through ``create(stream=True)`` so that everything ``create`` does to a stream (usage accounting)
applies to it too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .._core import NOT_GIVEN, RequestOptions, given_args
from .._exceptions import APIStatusError
from .._send import ResponseModes
from ._responses_operations import CREATE

# The helper's modules (the stream state, the parsed models) load on the first parse()/stream() call:
# a client that never uses them does not pay their import time and memory (``benchmarks/bench_client.py``).
if TYPE_CHECKING:
    from .._parsing import StructuredResponse
    from .._responses_stream import AsyncResponseStreamManager, ResponseStreamManager, ResponseStreamState
    from .._send import AsyncCallSite, AsyncStream, Stream, SyncCallSite
    from ..types._parsed_response import ParsedResponse
    from ..types.responses import ResponseStreamEvent

TextFormatT = TypeVar("TextFormatT")


def _given(value: Any) -> Any:
    return None if value is NOT_GIVEN else value


def _prepare(method: str, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    """The arguments with the tools made flat, the format and the tools; ``text_format`` is folded into
    ``text`` here unless it is a class the call's :class:`~holyclient._parsing.StructuredResponse` asks for.

    Raises:
        TypeError: as openai, ``text`` already has a ``format`` besides a ``text_format``.
    """
    from .._parsing import responses_tools, text_param

    args = given_args(arguments)  # openai's sentinels count as not given
    args.pop("self", None)
    params = args.get("params") or {}
    if "stream" in params:
        raise TypeError(
            f"{method}() got an unexpected keyword argument 'stream'; use create(stream=True) or stream()"
        )
    if params and CREATE.accepted is not None and not params.keys() <= CREATE.accepted:
        raise TypeError(CREATE._unexpected(params.keys() - CREATE.accepted))
    text_format = _given(args.pop("text_format"))
    tools = responses_tools(_given(args.get("tools")))
    if tools is not None:
        args["tools"] = tools
    text = text_param(_given(args.get("text")), text_format)  # the checks, and the format for a dict
    if text is not None and not _rich(text_format):
        args["text"] = text
    return args, text_format, tools


def _rich(text_format: Any) -> bool:
    from .._parsing import is_rich_response_format

    return is_rich_response_format(text_format)


def _structured(client: object, args: Mapping[str, Any], text_format: Any) -> StructuredResponse | None:
    """The attempts of a call with a class to validate into (``None``: no class; see ``_chat_parse``)."""
    if not _rich(text_format):
        return None
    from .._parsing import StructuredResponse, learn, methods_for

    endpoint, model = str(getattr(client, "base_url", "")), str(args.get("model"))
    methods = methods_for(endpoint, model)
    return StructuredResponse(args, text_format, methods, lambda method: learn(endpoint, model, method))


def _parse_request(
    client: object, arguments: Mapping[str, Any]
) -> tuple[RequestOptions, type[ParsedResponse[Any]], Any, Any, StructuredResponse | None]:
    """The request options of a ``parse()`` call (with no class), the class to validate into, the format,
    the tools, and the attempts of a call with a class (which say the options of each attempt)."""
    from ..types._parsed_response import ParsedResponse

    args, text_format, tools = _prepare("parse", arguments)
    plan = _structured(client, args, text_format)
    return CREATE.build(args), ParsedResponse, text_format, tools, plan


def _decoded(response: ParsedResponse[Any], text_format: Any, tools: Any) -> ParsedResponse[Any]:
    """Decode the response in place; under ``with_raw_response`` the one the raw response wraps."""
    from .._parsing import parse_response

    parse_response(ResponseModes._unwrap(response), text_format, tools)
    return response


_CALL = ("extra_headers", "extra_query", "extra_body", "timeout", "max_retries")


def _stream_request(
    client: object, arguments: Mapping[str, Any]
) -> tuple[str | None, dict[str, Any], ResponseStreamState[Any], StructuredResponse | None]:
    """What ``stream()`` sends: ``(None, create kwargs)`` for a new response, ``(id, retrieve kwargs)`` to
    resume a stored one; the state that will decode the events; and, for a new response with a
    ``text_format`` class, the attempts that say the create kwargs of each opening.

    Raises:
        ValueError: as openai, a response id with new-response arguments, or neither.
    """
    from .._responses_stream import ResponseStreamState

    args = given_args(arguments)  # openai's sentinels count as not given
    response_id, starting_after = _given(args.pop("response_id")), _given(args.pop("starting_after"))
    given = [name for name in ("input", "model") if args.get(name) is not NOT_GIVEN]
    new = [*given, *(args.get("params") or {}), *(["text"] if args.get("text") is not NOT_GIVEN else [])]
    args, text_format, tools = _prepare("stream", args)
    kwargs = _create_kwargs(args)
    state: ResponseStreamState[Any] = ResponseStreamState(
        text_format=text_format, input_tools=tools, starting_after=starting_after
    )
    if response_id is not None or starting_after is not None:
        if new:
            raise ValueError(
                "Cannot provide both response_id/starting_after can't be provided together with "
                + ", ".join(new)
            )
        if response_id is None:
            raise ValueError("id must be provided when streaming an existing response")
        return response_id, {k: v for k, v in kwargs.items() if k in _CALL} | {"stream": True}, state, None
    for name in ("input", "model"):
        if name not in kwargs:
            raise ValueError(f"{name} must be provided when creating a new response")
    plan = _structured(client, args, text_format)
    if plan is not None:
        from ._portable_streams import PortableResponseState

        state = PortableResponseState(plan, input_tools=tools)
    return None, kwargs, state, plan


def _create_kwargs(args: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``create(stream=True)``: only what was given, so ``create``'s / ``retrieve``'s
    own defaults apply, and ``params`` spread."""
    kwargs = {k: v for k, v in args.items() if v is not NOT_GIVEN and not (k in _CALL and v is None)}
    params = kwargs.pop("params", None) or {}
    return {**kwargs, **params, "stream": True}


class ResponsesParseMethods:
    """``parse`` and ``stream`` of the sync Responses resource."""

    _client: SyncCallSite

    def parse(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        text_format: type[TextFormatT] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        text: Mapping[str, Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ParsedResponse[TextFormatT]:
        """Create a response and decode it: ``output_parsed`` and function calls' ``parsed_arguments``.

        Args:
            text_format: a pydantic model, sent as its strict JSON schema in ``text.format``; each
                ``output_text`` is validated into it as ``parsed`` (``response.output_parsed``).
            tools: as for ``create``; strict function tools and ``pydantic_function_tool(...)`` tools get
                their calls' arguments decoded as ``parsed_arguments``.

        Raises:
            TypeError: ``text`` already has a ``format``, or a chat-shaped tool not made by
                ``pydantic_function_tool``.
            pydantic.ValidationError: an answer that does not fit ``text_format``.
            APIStatusError, APIConnectionError, BudgetExceededError: as ``create``.
        """
        options, cast_to, fmt, input_tools, plan = _parse_request(self._client, locals())
        if plan is None:
            return _decoded(self._client._request(options, cast_to), fmt, input_tools)
        while True:  # each attempt through the client's own call path (budget, retries, usage)
            try:
                with plan.marked():
                    response = self._client._request(CREATE.build(plan.request()), cast_to)
            except APIStatusError as error:
                if plan.rejected(error):
                    continue
                raise
            if plan.answered(ResponseModes._unwrap(response)):
                return response

    def stream(
        self,
        *,
        response_id: str = NOT_GIVEN,
        starting_after: int = NOT_GIVEN,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        text_format: type[TextFormatT] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        text: Mapping[str, Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ResponseStreamManager[TextFormatT]:
        """Stream a response as typed events; use it in a ``with`` block.

        ``with client.responses.stream(...) as stream:`` sends the request; iterating ``stream`` yields
        the raw events, with ``response.output_text.delta`` and ``response.function_call_arguments.delta``
        carrying the ``snapshot`` so far, ``response.output_text.done`` the ``parsed`` text and
        ``response.completed`` the parsed response; ``stream.get_final_response()`` returns it.

        With ``response_id=`` (and ``starting_after=`` a sequence number), resumes a stored response
        instead: its events are replayed and those up to ``starting_after`` skipped.

        Raises:
            ValueError: ``input`` or ``model`` missing for a new response; a ``response_id`` together with
                new-response arguments.
        """
        resume_id, kwargs, state, plan = _stream_request(self._client, locals())  # before any local is bound
        from .._responses_stream import ResponseStreamManager

        if resume_id is not None:
            retrieve: Callable[..., Stream[ResponseStreamEvent]] = self.retrieve  # type: ignore[attr-defined]
            return ResponseStreamManager(lambda: retrieve(resume_id, **kwargs), state)
        create: Callable[..., Stream[ResponseStreamEvent]] = self.create  # type: ignore[attr-defined]
        if plan is None:
            return ResponseStreamManager(lambda: create(**kwargs), state)
        from ._portable_streams import open_with_fallback

        return ResponseStreamManager(
            lambda: open_with_fallback(plan, lambda a: create(**_create_kwargs(a))), state
        )


class AsyncResponsesParseMethods:
    """``parse`` and ``stream`` of the async Responses resource."""

    _client: AsyncCallSite

    async def parse(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        text_format: type[TextFormatT] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        text: Mapping[str, Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ParsedResponse[TextFormatT]:
        """Async twin of :meth:`ResponsesParseMethods.parse`."""
        options, cast_to, fmt, input_tools, plan = _parse_request(self._client, locals())
        if plan is None:
            return _decoded(await self._client._request(options, cast_to), fmt, input_tools)
        while True:
            try:
                with plan.marked():
                    response = await self._client._request(CREATE.build(plan.request()), cast_to)
            except APIStatusError as error:
                if plan.rejected(error):
                    continue
                raise
            if plan.answered(ResponseModes._unwrap(response)):
                return response

    def stream(
        self,
        *,
        response_id: str = NOT_GIVEN,
        starting_after: int = NOT_GIVEN,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        text_format: type[TextFormatT] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        text: Mapping[str, Any] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncResponseStreamManager[TextFormatT]:
        """Async twin of :meth:`ResponsesParseMethods.stream` (``async with``); not a coroutine, as in openai."""
        resume_id, kwargs, state, plan = _stream_request(self._client, locals())  # before any local is bound
        from .._responses_stream import AsyncResponseStreamManager

        if resume_id is not None:
            retrieve: Callable[..., Awaitable[AsyncStream[ResponseStreamEvent]]] = self.retrieve  # type: ignore[attr-defined]
            return AsyncResponseStreamManager(lambda: retrieve(resume_id, **kwargs), state)
        create: Callable[..., Awaitable[AsyncStream[ResponseStreamEvent]]] = self.create  # type: ignore[attr-defined]
        if plan is None:
            return AsyncResponseStreamManager(lambda: create(**kwargs), state)
        from ._portable_streams import async_open_with_fallback

        return AsyncResponseStreamManager(
            lambda: async_open_with_fallback(plan, lambda a: create(**_create_kwargs(a))), state
        )
