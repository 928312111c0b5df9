"""Errors raised by holyclient, with the names users of the official SDK already know.

The tree::

    HolyClientError
    ├── ConfigurationError            bad or missing settings (no key, insecure base URL)
    ├── BudgetExceededError           a request refused before sending: it could exceed the budget
    ├── UnknownModelError             a model missing from the price table (also a LookupError)
    ├── PriceFileError                a user price file that cannot be read (also a ValueError)
    ├── ContextOverflowError          messages that cannot fit the context window (also a ValueError)
    ├── LengthFinishReasonError       parse()/stream(): the answer was cut at the token limit
    ├── ContentFilterFinishReasonError  parse()/stream(): the content filter stopped the answer
    └── APIError                      anything that went wrong talking to the API
        ├── APIStatusError            the server answered with an error status
        │   ├── BadRequestError           400
        │   ├── AuthenticationError       401
        │   ├── PermissionDeniedError     403
        │   ├── NotFoundError             404
        │   ├── ConflictError             409
        │   ├── UnprocessableEntityError  422
        │   ├── RateLimitError            429
        │   └── InternalServerError       >= 500
        ├── APIConnectionError        no usable HTTP response (refused, reset, dropped, undecodable body,
        │   │                         redirect loop: anything raised while sending or reading)
        │   ├── APITimeoutError       any timeout: pool, connect (DNS included), write, read
        │   │   ├── FirstEventTimeoutError  a stream's first event did not come in time (nothing was
        │   │   │                         handed over: retried, or failed over by a Router)
        │   │   └── StreamIdleTimeoutError  a stream went silent between two events for too long
        │   └── IncompleteStreamError a stream that ended before its answer did (a Router that could not
        │       │                     recover it; a client only marks it: ``stream.truncated``)
        │       └── StreamRestartError  a Router's stream broke part-way and was restarted on another
        │                             target: read the new ``stream`` from its beginning
        └── APIResponseValidationError  a response that is not what the API promises

Errors never carry the API key: the request attached to them is a copy without the headers that hold
a secret (``Authorization``, ``api-key`` ...), as openai's is, and messages are built from the response
body only. Their text is openai's (``Error code: 400 - <message>``, ``Connection error.``); what
holyclient knows beyond it (the HTTP library's own words for a dropped connection, a body that is not an
error object, a set-up hint) is kept as notes on the exception (``__notes__``, printed with the
traceback; :func:`error_text` joins them).
"""

from __future__ import annotations

from typing import Any


class HolyClientError(Exception):
    """Base class of every error holyclient raises."""


class ConfigurationError(HolyClientError):
    """A setting is missing or unsafe."""


class BudgetExceededError(HolyClientError):
    """The request's worst-case cost exceeds what is left of the client's budget; nothing was sent."""

    def __init__(self, message: str, *, requested_usd: float, remaining_usd: float) -> None:
        super().__init__(message)
        self.requested_usd = requested_usd
        self.remaining_usd = remaining_usd


class APIError(HolyClientError):
    """An error talking to the API.

    Attributes:
        request: the request, with its ``Authorization`` header redacted.
        body: the error object (``{"message", "type", "code", "param"}``, i.e. the ``error`` member of the
            JSON body, as openai gives it), the whole JSON body when it has no ``error`` member, or the raw
            text.
        attempts: how many attempts were made before giving up (1 = no retry).
    """

    status_code: int | None = None
    request_id: str | None = None
    code: str | None = None
    type: str | None = None
    param: str | None = None

    def __init__(self, message: str, *, request: Any = None, body: object = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.request = request
        self.body = body
        self.attempts = attempts
        error = body if isinstance(body, dict) else None  # the inner error object, as in openai
        if isinstance(error, dict):
            self.code = _str_or_none(error.get("code"))
            self.type = _str_or_none(error.get("type"))
            self.param = _str_or_none(error.get("param"))


class APIStatusError(APIError):
    """The server answered with a 4xx or 5xx status.

    Attributes:
        status_code: the HTTP status.
        request_id: the ``x-request-id`` header, to quote to support.
        retry_after: seconds the server asked us to wait, if it said (set when the wait exceeded the cap).
    """

    def __init__(
        self,
        message: str,
        *,
        response: Any,
        body: object,
        request: Any = None,
        attempts: int = 1,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, request=request, body=body, attempts=attempts)
        self.response = response
        self.status_code = int(response.status_code)
        self.request_id = response.headers.get("x-request-id")
        self.retry_after = retry_after


class BadRequestError(APIStatusError):
    """400."""


class AuthenticationError(APIStatusError):
    """401: the key is missing, wrong or revoked."""


class PermissionDeniedError(APIStatusError):
    """403."""


class NotFoundError(APIStatusError):
    """404: unknown model or path."""


class ConflictError(APIStatusError):
    """409."""


class UnprocessableEntityError(APIStatusError):
    """422: the request body failed validation."""


class RateLimitError(APIStatusError):
    """429: slow down (or, with code ``insufficient_quota``, add credit: that one is never retried)."""


class InternalServerError(APIStatusError):
    """5xx."""


class APIConnectionError(APIError):
    """No HTTP response was obtained.

    Attributes:
        maybe_processed: False only when the connection was never made; otherwise the request may
            have reached the server and been billed (its budget reservation is then kept as spent).
    """

    maybe_processed: bool = True

    def __init__(self, message: str = "Connection error.", *, request: Any = None, attempts: int = 1) -> None:
        super().__init__(message, request=request, attempts=attempts)


class APITimeoutError(APIConnectionError):
    """The request timed out."""

    def __init__(
        self, message: str = "Request timed out.", *, request: Any = None, attempts: int = 1
    ) -> None:
        super().__init__(message, request=request, attempts=attempts)


class FirstEventTimeoutError(APITimeoutError):
    """A stream's first event did not arrive within ``first_event_timeout`` of its request being sent
    (keep-alive comments do not count): nothing reached the caller, so the attempt is retried like any
    timeout, or sent to the next target by a Router.

    Attributes:
        seconds: the limit that passed.
    """

    def __init__(
        self,
        message: str = "No stream event in first_event_timeout.",
        *,
        seconds: float | None = None,
        request: Any = None,
    ) -> None:
        super().__init__(message, request=request)
        self.seconds = seconds


class StreamIdleTimeoutError(APITimeoutError):
    """A stream waited longer than ``stream_idle_timeout`` for its next event (keep-alive comments do not
    count): the answer read so far is incomplete. A client raises it from the stream; a Router takes the
    stream over on another target (see ``stream_recovery``).

    Attributes:
        seconds: the limit that passed.
    """

    def __init__(
        self,
        message: str = "No stream event in stream_idle_timeout.",
        *,
        seconds: float | None = None,
        request: Any = None,
    ) -> None:
        super().__init__(message, request=request)
        self.seconds = seconds


class IncompleteStreamError(APIConnectionError):
    """A chat stream ended before its answer did: the body ended without a ``finish_reason`` and without
    ``[DONE]`` (a proxy that closes streams that way), so the text read is not the whole answer.

    A :class:`~holyclient.Client` does not raise it, as openai does not: the stream ends and says so in
    ``stream.truncated``. A :class:`~holyclient.Router` treats it as a failure to recover from (another
    target continues or restarts the answer) and raises it when it cannot.

    Attributes:
        text: the text the stream delivered before it ended.
    """

    def __init__(
        self, message: str = "The stream ended before its answer did.", *, request: Any = None, text: str = ""
    ) -> None:
        super().__init__(message, request=request)
        self.text = text


class StreamRestartError(IncompleteStreamError):
    """A :class:`~holyclient.Router`'s stream broke part-way and could not be continued as one stream
    (the next target does not take an assistant prefill, or the router's ``stream_recovery`` is
    ``"restart"``): the answer was restarted from its beginning on another target.

    What the broken stream gave is not part of the new answer: discard it and read :attr:`stream`, which
    has already received its first event. Text of two attempts is never spliced into one answer::

        while True:
            try:
                for chunk in stream:
                    show(chunk)
                break
            except holyclient.StreamRestartError as restart:
                clear_what_was_shown()
                stream = restart.stream

    Attributes:
        stream: the restarted stream (close it if you do not read it: its prompt is paid either way).
        cause: the error that broke the first stream (also ``__cause__``).
        text: what the broken stream had delivered.
        target: the name of the target the answer restarted on.
    """

    def __init__(self, message: str, *, stream: Any, cause: BaseException, text: str, target: str) -> None:
        super().__init__(message, request=getattr(cause, "request", None), text=text)
        self.stream = stream
        self.cause = cause
        self.target = target


class APIResponseValidationError(APIError):
    """The response body was not valid JSON, or not the shape the API documents."""

    def __init__(
        self,
        message: str,
        *,
        response: Any = None,
        body: object = None,
        request: Any = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message, request=request, body=body, attempts=attempts)
        self.response = response
        if response is not None:
            self.status_code = int(response.status_code)
            self.request_id = response.headers.get("x-request-id")


class LengthFinishReasonError(HolyClientError):
    """``parse()``/``stream()`` could not decode the answer: it stopped at the token limit.

    Attributes:
        completion: the (possibly partial, when streamed) completion that was cut.
    """

    def __init__(self, *, completion: Any) -> None:
        message = "Could not parse response content as the length limit was reached"
        if getattr(completion, "usage", None):
            message += f" - {completion.usage}"
        super().__init__(message)
        self.completion = completion


class ContentFilterFinishReasonError(HolyClientError):
    """``parse()``/``stream()`` could not decode the answer: the content filter stopped it.

    Attributes:
        completion: the (possibly partial, when streamed) completion that was stopped.
    """

    def __init__(self, *, completion: Any = None) -> None:
        super().__init__("Could not parse response content as the request was rejected by the content filter")
        self.completion = completion


#: One status -> class table for both clients.
STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error_class(status_code: int) -> type[APIStatusError]:
    if status_code >= 500:
        return InternalServerError
    return STATUS_ERRORS.get(status_code, APIStatusError)


def error_text(error: BaseException) -> str:
    """``str(error)`` followed by the notes holyclient adds to it (a connection error's cause in the HTTP
    library's words, an error body that is not an error object, a set-up hint), for the places where
    openai's short text alone would lose them: log lines, command-line messages and batch results."""
    notes = getattr(error, "__notes__", None) or ()
    return "; ".join([str(error), *(str(note) for note in notes)])


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)
