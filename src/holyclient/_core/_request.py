"""Request building, the sans-IO half both clients share: options, JSON bodies, headers.

Nothing here sends, awaits or sleeps, so :class:`~holyclient.Client` and :class:`~holyclient.AsyncClient`
stay thin shells and every decision can be unit-tested with plain values.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__

USER_AGENT = f"holyclient/{__version__}"


class NotGiven:
    """ "Not given", distinct from an explicit ``None`` (``timeout=None`` means no timeout): openai's
    ``NotGiven``. The instance every signature defaults to is :data:`NOT_GIVEN`; ``not_given`` is another."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


class _Default(NotGiven):
    """The class of :data:`NOT_GIVEN` alone. Its own name keeps the check for sentinels to translate (by
    class name, in C: :func:`given_args`) from stopping at every default argument of every call."""


class Omit:
    """openai's ``Omit``: ``omit`` leaves a parameter out of the request, as ``NOT_GIVEN`` does, and a
    header given as ``omit`` in ``extra_headers`` removes the default one of that name."""

    def __bool__(self) -> bool:
        return False


NOT_GIVEN: Any = _Default()
#: Another instance, as in openai (``not_given is NOT_GIVEN`` is false there too); it means the same.
not_given: Any = NotGiven()
omit: Any = Omit()

#: The classes of "not given" sentinels, ours and openai's (``openai.NOT_GIVEN`` and ``openai.omit``), known
#: by name so that telling openai's apart costs no ``import openai``: frameworks that take any client
#: object (pydantic-ai, the Agents SDK) pass them for every argument they leave out.
_SENTINELS = frozenset({"NotGiven", "Omit"})
_TYPE_NAME = operator.attrgetter("__class__.__name__")


def omitted(value: Any) -> bool:
    """Whether ``value`` means "not given": ``NOT_GIVEN``, ``omit``, or openai's ``NOT_GIVEN`` / ``omit``."""
    if value is NOT_GIVEN or isinstance(value, (NotGiven, Omit)):
        return True
    kind = type(value)
    return kind.__name__ in _SENTINELS and kind.__module__.partition(".")[0] == "openai"


def given_args(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A method's arguments with every other "not given" sentinel (``omit``, openai's) replaced by
    ``NOT_GIVEN``, so every later ``is NOT_GIVEN`` check treats them alike (``timeout=openai.NOT_GIVEN`` is
    the client's timeout, not "no timeout")."""
    given = dict(arguments)
    if not _SENTINELS.isdisjoint(map(_TYPE_NAME, given.values())):  # every call: checked in C
        for key, value in arguments.items():
            if omitted(value):
                given[key] = NOT_GIVEN
    return given


@dataclass(frozen=True, slots=True)
class ForeignRequest:
    """An HTTP request another client built (openai's, handed to ``as_openai()``'s transport), for the
    client whose base URL it was made for to send as it is (see ``holyclient._send._foreign``).

    Attributes:
        request: the httpx(2) request, its body already read.
        base_url: the base URL the request's URL was checked to be under.
        authorization: its own ``Authorization`` header (None: it had none), put back after the wire so
            that the request the caller keeps never holds the client's key.
        body: the options' ``body`` read from it, and ``content`` its bytes: options whose ``body`` or
            ``content`` is another object (however they were changed) no longer describe the request.
    """

    request: Any
    base_url: str
    authorization: str | None
    body: Any = None
    content: bytes | None = None


@dataclass(frozen=True)
class RequestOptions:
    """Everything needed to send one API call, independent of the HTTP library."""

    method: str
    path: str
    body: Mapping[str, Any] | None = None
    query: Mapping[str, Any] | None = None
    """Query-string parameters (``extra_query``, and the fields of a GET)."""
    content: bytes | None = None
    """A pre-encoded body (a multipart upload) sent instead of ``body``; its type is in ``extra_headers``."""
    extra_headers: Mapping[str, str] | None = None
    timeout: Any = NOT_GIVEN
    max_retries: int | None = None
    stream: bool = False
    failover: bool = False
    """Set by a Router when another target can take this call: a timeout (the target sent nothing back
    in time) is not retried on this target."""
    foreign: ForeignRequest | None = field(default=None, compare=False)
    """The request another client built from exactly these options, sent in place of a new one (its key
    and identity set); anything that changes the body drops it (:meth:`with_body`)."""

    def with_body(self, body: Mapping[str, Any]) -> RequestOptions:
        """A copy sending ``body``: a ``content`` that encoded the old body (openai's bytes, through
        ``as_openai()``) and the request built from it no longer describe it, so both are dropped."""
        if self.body is not None and self.content is not None:
            return self.replaced(body=body, content=None, foreign=None)
        return self.replaced(body=body, foreign=None)

    def replaced(self, **changes: Any) -> RequestOptions:
        """A copy with ``changes`` (``dataclasses.replace``, without its walk over every field: every
        attempt of every call makes one)."""
        if not changes.keys() <= _OPTION_FIELDS:
            raise TypeError(f"RequestOptions has no field {sorted(changes.keys() - _OPTION_FIELDS)[0]!r}")
        new = object.__new__(RequestOptions)
        new.__dict__.update(self.__dict__, **changes)
        return new


_OPTION_FIELDS = frozenset(RequestOptions.__dataclass_fields__)

_PLAIN = frozenset({str, int, float, bool, type(None)})


def _is_plain(value: Any) -> bool:
    """Whether ``value`` is JSON data already (dicts, lists, scalars): the common case, checked without copying."""
    kind = type(value)
    # Explicit loops, not all(<generator>): this runs on every request body and is ~2x faster.
    if kind is dict:
        for item in value.values():  # noqa: SIM110
            if type(item) not in _PLAIN and not _is_plain(item):
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110
            if type(item) not in _PLAIN and not _is_plain(item):
                return False
        return True
    return kind in _PLAIN


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data: pydantic objects dumped as openai does, iterables as lists.

    This is what lets the tool loop ``messages.append(response.choices[0].message)`` work: a response
    model is sent as ``model_dump(mode="json", exclude_unset=True, by_alias=True)``, i.e. exactly the
    fields the server sent. Plain JSON data is returned as it is (checked without copying).

    Raises:
        TypeError: for a class (``response_format=MyModel`` belongs to ``parse()``).
    """
    if _is_plain(value):
        return value
    if isinstance(value, type):
        raise TypeError(
            f"Cannot send the class {value.__name__} in a request body. To get a structured output, "
            "pass a pydantic class to `client.chat.completions.parse(response_format=...)` instead of "
            "`create()`; `create()` takes a JSON-schema dict."
        )
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(value, Mapping):  # openai leaves its sentinels out of nested objects too
        return {k: to_jsonable(v) for k, v in value.items() if not omitted(v)}
    if isinstance(value, (str, int, float, bool)):  # subclasses (enums ...): json encodes them
        return value
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        return [to_jsonable(v) for v in value]
    return value


def build_body(params: Mapping[str, Any], extra_body: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge call parameters and ``extra_body``; parameters pass through as JSON (forward compatible)."""
    if _SENTINELS.isdisjoint(map(_TYPE_NAME, params.values())):  # every call: checked in C
        body = {
            key: value if type(value) in _PLAIN else to_jsonable(value)
            for key, value in params.items()
            if value is not NOT_GIVEN
        }
    else:
        body = {key: to_jsonable(value) for key, value in params.items() if not omitted(value)}
    if extra_body:
        body.update(extra_body)
    return body


def build_headers(
    api_key: str,
    default_headers: Mapping[str, str] | None,
    extra_headers: Mapping[str, str] | None,
    *,
    stream: bool = False,
) -> dict[str, str]:
    headers = {
        "Authorization": f"Bearer {api_key}",
        "User-Agent": USER_AGENT,
        "Accept": "text/event-stream" if stream else "application/json",
    }
    if default_headers:
        headers.update(default_headers)
    if extra_headers:
        headers.update(extra_headers)
        if not _SENTINELS.isdisjoint(map(_TYPE_NAME, extra_headers.values())):  # ``omit``: remove it
            headers = {name: value for name, value in headers.items() if not omitted(value)}
    return headers
