"""Operations whose request or answer is not plain JSON: multipart uploads, binary answers, empty bodies.

They reuse :class:`~holyclient.resources._operation.Operation` and adjust the request it builds, so
path, query, ``extra_*`` and timeout handling stay in one place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .._core import RequestOptions, multipart_body
from ._operation import Operation

ResponseT = TypeVar("ResponseT")


def with_headers(options: RequestOptions, headers: Mapping[str, str]) -> RequestOptions:
    """``headers`` as defaults under the caller's ``extra_headers`` (openai sets ``Accept`` this way)."""
    return dataclasses.replace(options, extra_headers={**headers, **(options.extra_headers or {})})


@dataclass(frozen=True)
class MultipartOperation(Operation[ResponseT]):
    """An upload: ``file_fields`` are sent as files, every other field as a form field."""

    file_fields: tuple[str, ...] = ("file",)

    def build(self, arguments: Mapping[str, Any]) -> RequestOptions:
        args = dict(arguments)
        params = dict(args.get("params") or {})
        # Taken out before the JSON rules apply: a file object is iterable and would become a list of lines.
        files = {
            name: args.pop(name) if name in args else params.pop(name)
            for name in self.file_fields
            if name in args or name in params
        }
        args["params"] = params
        options = super().build(args)
        content, content_type = multipart_body({**(options.body or {}), **files}, self.file_fields)
        return with_headers(
            dataclasses.replace(options, body=None, content=content), {"Content-Type": content_type}
        )


@dataclass(frozen=True)
class HeaderOperation(Operation[ResponseT]):
    """An operation with default headers (``Accept`` of a binary answer) and, for an action, no body."""

    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    empty_body: bool = False
    """Send no body at all (``POST /batches/{id}/cancel``), as openai does, rather than ``{}``."""

    def build(self, arguments: Mapping[str, Any]) -> RequestOptions:
        options = with_headers(super().build(arguments), self.headers)
        if self.empty_body and not options.body:
            options = dataclasses.replace(options, body=None)
        return options
