"""``chat.completions.parse()`` and ``.stream()``: structured outputs and the stream helper.

Mixed into the chat completions resources (``client.chat.completions`` and
``client.beta.chat.completions``). The request is the chat completion operation's, with a
``response_format`` class turned into its strict JSON schema (:mod:`holyclient._parsing`); the
answer is decoded by the same sans-IO functions the stream helper (:mod:`holyclient._chat_stream`)
uses, so ``parse()`` and ``stream()`` agree. ``stream()`` goes through ``create(stream=True)`` so
that everything ``create`` does to a stream (usage accounting) applies to it too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .._core import NOT_GIVEN, RequestOptions, given_args
from .._exceptions import APIStatusError
from .._send import ResponseModes
from ._chat_operations import CREATE

# The helpers' modules (structured outputs, the stream helper, the portable fallbacks and the Responses
# models they read) load on the first parse()/stream() call, as in ``_responses_parse``: a client that
# only calls create() does not pay their import time and memory (``benchmarks/bench_client.py``).
if TYPE_CHECKING:
    from .._chat_stream import AsyncChatCompletionStreamManager, ChatCompletionStreamManager
    from .._parsing import ParsedChatCompletion, StructuredChat
    from .._send import AsyncCallSite, AsyncStream, Stream, SyncCallSite
    from ..types._chat import ChatCompletionChunk, ChatCompletionMessageParam

ResponseFormatT = TypeVar("ResponseFormatT")


def _check_params(method: str, params: Mapping[str, Any]) -> None:
    """Refuse ``stream=`` (these methods decide it) and names the API does not define, before sending."""
    if "stream" in params:
        raise TypeError(
            f"{method}() got an unexpected keyword argument 'stream'; use create(stream=True) or stream()"
        )
    if params and CREATE.accepted is not None and not params.keys() <= CREATE.accepted:
        raise TypeError(CREATE._unexpected(params.keys() - CREATE.accepted))


def _parse_arguments(
    arguments: Mapping[str, Any],
) -> tuple[dict[str, Any], Any, list[Mapping[str, Any]] | None]:
    """A ``parse()`` call's arguments without ``response_format``, the format and the checked tools."""
    from .._parsing import validate_input_tools

    args = given_args(arguments)  # openai's sentinels count as not given
    args.pop("self", None)
    _check_params("parse", args.get("params") or {})
    response_format = args.pop("response_format")
    tools = validate_input_tools(None if args.get("tools") is NOT_GIVEN else args.get("tools"))
    if tools is not None:
        args["tools"] = tools
    return args, response_format, tools


def _options(args: Mapping[str, Any], response_format: Any = NOT_GIVEN) -> RequestOptions:
    """The request of one ``parse()`` attempt; as openai's, the body says ``"stream": false`` explicitly."""
    from .._parsing import response_format_param

    sent = dict(args)
    if response_format is not NOT_GIVEN:
        sent["response_format"] = response_format_param(response_format)
    sent["params"] = {**(sent.get("params") or {}), "stream": False}
    return CREATE.build(sent)


def _structured(client: object, args: Mapping[str, Any], response_format: Any) -> StructuredChat | None:
    """The attempts of a call with a class to validate into (``None``: a dict or no format, sent as is).

    Which ways to try depends on the model and on what this endpoint has refused before (see
    :mod:`holyclient._parsing._capabilities`); a model known to take a JSON schema gets openai's request.
    """
    from .._parsing import StructuredChat, is_rich_response_format, learn, methods_for

    if response_format is NOT_GIVEN or not is_rich_response_format(response_format):
        return None
    endpoint, model = str(getattr(client, "base_url", "")), str(args.get("model"))
    methods = methods_for(endpoint, model)
    return StructuredChat(args, response_format, methods, lambda method: learn(endpoint, model, method))


def _stream_arguments(
    arguments: Mapping[str, Any],
) -> tuple[dict[str, Any], Any, list[Mapping[str, Any]] | None]:
    """A ``stream()`` call's arguments without ``response_format`` (``params`` checked), the format, the tools."""
    args = given_args(arguments)  # openai's sentinels count as not given
    args.pop("self", None)
    _check_params("stream", args.get("params") or {})  # now, as openai's signature would, not on entering
    response_format = args.pop("response_format")
    tools = None if args.get("tools") is NOT_GIVEN else list(args["tools"])
    if tools is not None:
        args["tools"] = tools
    return args, response_format, tools


def _create_kwargs(args: Mapping[str, Any], response_format: Any = NOT_GIVEN) -> dict[str, Any]:
    """Keyword arguments for ``create(stream=True)``: only the call options given, so ``create``'s own
    defaults apply, and ``params`` spread. (The client asks for the usage chunk and hides it, as for any
    stream: a fallback stream's attempts read their cost from it without the caller seeing it.)"""
    from .._parsing import response_format_param

    kwargs = dict(args)
    params = kwargs.pop("params", None) or {}
    if response_format is not NOT_GIVEN:
        kwargs["response_format"] = response_format_param(response_format)
    for name in ("extra_headers", "extra_query", "extra_body", "max_retries"):
        if kwargs.get(name) is None:
            kwargs.pop(name, None)
    if kwargs.get("timeout") is NOT_GIVEN:
        kwargs.pop("timeout")
    return {**kwargs, **params, "stream": True}


def _finish(
    completion: ParsedChatCompletion[Any], response_format: Any, tools: list[Mapping[str, Any]] | None
) -> ParsedChatCompletion[Any]:
    """Decode the completion in place; under ``with_raw_response`` the one the raw response wraps."""
    from .._parsing import parse_chat_completion

    parsed = ResponseModes._unwrap(completion)
    parse_chat_completion(parsed, None if response_format is NOT_GIVEN else response_format, tools)
    return completion


def _given(value: Any) -> Any:
    return None if value is NOT_GIVEN else value


class ParseMethods:
    """``parse`` and ``stream`` of the sync chat completions resource."""

    _client: SyncCallSite

    def parse(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        response_format: type[ResponseFormatT] | Mapping[str, Any] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ParsedChatCompletion[ResponseFormatT]:
        """Create a chat completion and decode it: ``message.parsed`` and tools' ``parsed_arguments``.

        Args:
            response_format: a pydantic model (sent as its strict JSON schema; the answer is validated
                into it as ``choices[i].message.parsed``) or a ``response_format`` dict, sent as is.
            tools: as for ``create``; every tool must be a strict function tool, such as those made by
                :func:`holyclient.pydantic_function_tool` (their calls get ``parsed_arguments``).

        Raises:
            LengthFinishReasonError: the answer stopped at the token limit.
            ContentFilterFinishReasonError: the content filter stopped the answer.
            ValueError: a tool that is not a strict function tool.
            pydantic.ValidationError: an answer that does not fit ``response_format``.
            APIStatusError, APIConnectionError, BudgetExceededError: as ``create``.
        """
        args, fmt, checked_tools = _parse_arguments(locals())  # first: the name imported below is a local too
        from .._parsing import ParsedChatCompletion

        plan = _structured(self._client, args, fmt)
        if plan is None:
            return _finish(
                self._client._request(_options(args, fmt), ParsedChatCompletion[ResponseFormatT]),
                fmt,
                checked_tools,
            )
        while True:  # each attempt through the client's own call path (budget, retries, usage)
            try:
                with plan.marked():
                    completion = self._client._request(
                        _options(plan.request()), ParsedChatCompletion[ResponseFormatT]
                    )
            except APIStatusError as error:
                if plan.rejected(error):
                    continue
                raise
            if plan.answered(ResponseModes._unwrap(completion)):
                return completion

    def stream(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        response_format: type[ResponseFormatT] | Mapping[str, Any] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletionStreamManager[ResponseFormatT]:
        """Stream a chat completion as typed events; use it in a ``with`` block.

        ``with client.chat.completions.stream(...) as stream:`` sends the request; iterating
        ``stream`` yields ``chunk``, ``content.delta``/``content.done``, ``refusal.delta``/``.done``,
        ``tool_calls.function.arguments.delta``/``.done`` (and logprobs) events;
        ``stream.get_final_completion()`` returns the completion decoded as ``parse()`` would.
        Leaving the block closes the response.
        """
        args, fmt, input_tools = _stream_arguments(locals())  # first: the names imported below are locals too
        from .._chat_stream import ChatCompletionStreamManager
        from ._portable_streams import PortableChatState, open_with_fallback

        create: Callable[..., Stream[ChatCompletionChunk]] = self.create  # type: ignore[attr-defined]
        plan = _structured(self._client, args, fmt)
        if plan is None:
            kwargs = _create_kwargs(args, fmt)
            return ChatCompletionStreamManager(
                lambda: create(**kwargs), response_format=_given(fmt), input_tools=input_tools
            )
        state = PortableChatState(plan, input_tools=input_tools)
        return ChatCompletionStreamManager(
            lambda: open_with_fallback(plan, lambda a: state.watching(create(**_create_kwargs(a)))),
            response_format=fmt,
            input_tools=input_tools,
            state=state,
        )


class AsyncParseMethods:
    """``parse`` and ``stream`` of the async chat completions resource."""

    _client: AsyncCallSite

    async def parse(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        response_format: type[ResponseFormatT] | Mapping[str, Any] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ParsedChatCompletion[ResponseFormatT]:
        """Async twin of :meth:`ParseMethods.parse`."""
        args, fmt, checked_tools = _parse_arguments(locals())  # first: the name imported below is a local too
        from .._parsing import ParsedChatCompletion

        plan = _structured(self._client, args, fmt)
        if plan is None:
            return _finish(
                await self._client._request(_options(args, fmt), ParsedChatCompletion[ResponseFormatT]),
                fmt,
                checked_tools,
            )
        while True:
            try:
                with plan.marked():
                    completion = await self._client._request(
                        _options(plan.request()), ParsedChatCompletion[ResponseFormatT]
                    )
            except APIStatusError as error:
                if plan.rejected(error):
                    continue
                raise
            if plan.answered(ResponseModes._unwrap(completion)):
                return completion

    def stream(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        response_format: type[ResponseFormatT] | Mapping[str, Any] = NOT_GIVEN,
        tools: Iterable[Mapping[str, Any]] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncChatCompletionStreamManager[ResponseFormatT]:
        """Async twin of :meth:`ParseMethods.stream` (``async with``); not a coroutine, as in openai."""
        args, fmt, input_tools = _stream_arguments(locals())  # first: the names imported below are locals too
        from .._chat_stream import AsyncChatCompletionStreamManager
        from ._portable_streams import PortableChatState, async_open_with_fallback

        create: Callable[..., Awaitable[AsyncStream[ChatCompletionChunk]]] = self.create  # type: ignore[attr-defined]
        plan = _structured(self._client, args, fmt)
        if plan is None:
            kwargs = _create_kwargs(args, fmt)
            return AsyncChatCompletionStreamManager(
                lambda: create(**kwargs), response_format=_given(fmt), input_tools=input_tools
            )
        state = PortableChatState(plan, input_tools=input_tools)

        async def opened(arguments: dict[str, Any]) -> Any:
            return state.watching(await create(**_create_kwargs(arguments)))

        return AsyncChatCompletionStreamManager(
            lambda: async_open_with_fallback(plan, opened),
            response_format=fmt,
            input_tools=input_tools,
            state=state,
        )
