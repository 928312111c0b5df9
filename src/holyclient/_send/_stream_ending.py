"""How a stream's reading ended, for its meter, its span and its caller (:class:`Ending`).

Shared by :class:`~._streaming.Stream` and :class:`~._streaming.AsyncStream`: a stream read to its end
is complete -- unless it is a chat stream whose body ended without saying so, which is marked
``truncated`` (see :mod:`._streaming`) -- one the caller left is "early", one the wire broke is
"unknown", one that opened with the server's error is "refused".
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .._constants import LOGGER_NAME
from .._core import SSEDecoder, redacted_request, stream_error
from .._exceptions import APIConnectionError, IncompleteStreamError
from ._steps import clean_failure

if TYPE_CHECKING:
    from ..pricing import Outcome, StreamMeter

__all__ = ["Ending", "opening_error"]

logger = logging.getLogger(LOGGER_NAME)


def opening_error(stream: Any) -> Any:
    """The error a stream opens with (an ``APIStatusError``), or ``None``: an SSE error event in the bytes
    read before the caller got any.

    A relay that is overloaded may answer 200 and send ``data: {"error": ...}`` as its first event;
    nothing has reached the caller yet, so a Router can still send the request to another target
    (closing this stream with :meth:`Stream.refuse`).
    """
    first = getattr(stream, "_first", b"")
    if not first or b'"error"' not in first:
        return None
    events = SSEDecoder().feed(first)
    if not events:
        return None
    response = stream.response
    return stream_error(events[0], response, request=getattr(response, "request", None))


class Ending:
    """How a stream's reading ended, for its meter and its caller.

    ``outcome``: ``"complete"``, ``"early"`` (closed before the end), ``"unknown"`` (the wire failed:
    the answer may have been billed) or ``"refused"`` (the server's error was the first event: nothing
    was generated, so nothing is charged -- as a Router that fails over on it charges nothing). ``failure``: what ended it. The one key-safety rule of a stream:
    an error from the HTTP library is translated and redacted (:func:`~._steps.clean_failure`) and
    raised *after* the ``finally`` by :meth:`raise_failure`, outside the ``except`` block, so that the
    library's exception (whose request holds the key) is not chained; our own errors (an error event,
    a chunk that does not parse) are raised as they are.
    """

    __slots__ = ("failure", "outcome", "said")

    def __init__(self) -> None:
        self.outcome: Outcome = "early"
        self.failure: BaseException | None = None
        #: What ended a stream without raising (one that ended early): its meter and span say it.
        self.said: BaseException | None = None

    def read_to_the_end(self, stream: Any) -> None:
        """The body ended: complete, or (a chat stream that never said it ended) truncated."""
        if not stream._decoder.ended_early():
            self.outcome = "complete"
            return
        self.outcome = "unknown"  # the server may have gone on generating (and billing) after the cut
        stream.truncated = True
        request_id = stream.response.headers.get("x-request-id")
        skipped = stream._decoder.skipped
        if skipped and not stream._read_raw:  # its end may have been in what could not be read: an error
            raise IncompleteStreamError(
                f"The stream ended without a finish_reason or [DONE] after {skipped} event(s) that were not "
                "valid JSON: its answer is incomplete" + (f" (request {request_id})." if request_id else "."),
                request=redacted_request(stream.response.request),
            )
        self.said = IncompleteStreamError(
            "The stream ended without a finish_reason or [DONE]: its answer is incomplete"
            + (f" (request {request_id})." if request_id else ".")
        )
        logger.warning("%s stream.truncated is True.", self.said)

    def settle(self, meter: StreamMeter | None) -> None:
        if meter is not None:
            meter.finish(self.outcome, self.failure or self.said)

    def caught(self, exc: Exception, stream: Any) -> bool:
        """Record ``exc``, which ended ``stream``; whether it is ours, to be re-raised at once by the
        caller's ``raise``. Our own error, when it is the error the stream opened with, means nothing
        was generated."""
        self.failure = clean_failure(exc, lambda: stream.response.request)
        if self.failure is exc:  # our own error: nothing to translate
            if opening_error(stream) is not None:
                self.outcome = "refused"
            elif isinstance(exc, APIConnectionError):  # a deadline, an answer incomplete: it may go on
                self.outcome = "unknown"
            return True
        self.outcome = "unknown"
        return False

    def raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure
