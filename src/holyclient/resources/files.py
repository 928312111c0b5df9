"""``files``: upload, list, retrieve, download and delete files (the input and output of the Batch API)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN, HttpxBinaryResponseContent
from .._send import AsyncCursorPage, SyncCursorPage
from ..types.files import FileDeleted, FileObject
from ._operation import AsyncCursorList, Operation, PageOperation, SyncCursorList
from ._uploads import HeaderOperation, MultipartOperation

if TYPE_CHECKING:
    from .._core import FileTypes

CREATE = MultipartOperation("POST", "/files", FileObject)
LIST = PageOperation("GET", "/files", SyncCursorPage[FileObject], AsyncCursorPage[FileObject])
RETRIEVE = Operation("GET", "/files/{file_id}", FileObject)
DELETE = Operation("DELETE", "/files/{file_id}", FileDeleted)
CONTENT = HeaderOperation(
    "GET", "/files/{file_id}/content", HttpxBinaryResponseContent, headers={"Accept": "application/binary"}
)


class Files(SyncCursorList[FileObject]):
    _list = LIST

    def create(
        self,
        *,
        file: FileTypes,
        purpose: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> FileObject:
        """Upload ``file`` (a ``pathlib.Path``, bytes, a binary file object or a ``(name, bytes)`` tuple)."""
        return self._client._request(CREATE.build(locals()), CREATE.cast_to)

    def retrieve(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> FileObject:
        """One file's metadata."""
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    def content(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> HttpxBinaryResponseContent:
        """One file's bytes (``.content``, ``.text``, ``.write_to_file(path)``)."""
        return self._client._request(CONTENT.build(locals()), CONTENT.cast_to)  # type: ignore[type-var]

    def delete(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> FileDeleted:
        """Delete a file."""
        return self._client._request(DELETE.build(locals()), DELETE.cast_to)


class AsyncFiles(AsyncCursorList[FileObject]):
    _list = LIST

    async def create(
        self,
        *,
        file: FileTypes,
        purpose: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> FileObject:
        """Async twin of :meth:`Files.create`."""
        return await self._client._request(CREATE.build(locals()), CREATE.cast_to)

    async def retrieve(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> FileObject:
        """Async twin of :meth:`Files.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    async def content(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> HttpxBinaryResponseContent:
        """Async twin of :meth:`Files.content`."""
        return await self._client._request(CONTENT.build(locals()), CONTENT.cast_to)  # type: ignore[type-var]

    async def delete(
        self,
        file_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> FileDeleted:
        """Async twin of :meth:`Files.delete`."""
        return await self._client._request(DELETE.build(locals()), DELETE.cast_to)
