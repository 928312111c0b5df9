"""``multipart/form-data`` bodies for uploads (audio transcriptions, files), encoded without I/O to the network.

openai accepts a file as a path (``pathlib.Path``), ``bytes``, a binary file object, or a tuple
``(filename, content[, content_type])``; the other parameters become form fields, lists as
``name[]`` and mappings as ``name[key]``, booleans as ``true``/``false`` -- the same fields openai
sends. The body is encoded here once, as bytes, so a retry resends it unchanged and both HTTP
libraries (and the aiohttp transport) carry it as they carry JSON. A path or a file object is read
when the request is built: a local read, which httpx itself does synchronously for uploads too.
"""

from __future__ import annotations

import io
import mimetypes
import os
import pathlib
from collections.abc import Iterable, Mapping
from typing import IO, Any, TypeAlias

FileContent: TypeAlias = "IO[bytes] | bytes | os.PathLike[str]"
FileTypes: TypeAlias = (
    "FileContent | tuple[str | None, FileContent] | tuple[str | None, FileContent, str | None]"
)
"""What an upload parameter (``file=``) accepts, as in openai."""

_DEFAULT_FILENAME = "upload"  # httpx's name for an upload given as bytes


def read_file(value: object, *, field: str = "file") -> tuple[str, bytes, str]:
    """``(filename, content, content_type)`` of one upload parameter.

    Raises:
        TypeError: ``value`` is not one of the accepted forms (a ``str`` is refused: openai takes a
            path as ``pathlib.Path``, and a string could as well be the content).
    """
    content_type: str | None = None
    filename: str | None
    if isinstance(value, tuple) and 2 <= len(value) <= 3:
        filename, content = value[0], value[1]
        content_type = value[2] if len(value) == 3 else None
        data = _content_bytes(content, field)
        if filename is None:
            filename = _DEFAULT_FILENAME
    else:
        data = _content_bytes(value, field)
        filename = _name_of(value)
    return filename, data, content_type or _guess_type(filename)


def _content_bytes(value: object, field: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, os.PathLike):
        return pathlib.Path(value).read_bytes()
    if isinstance(value, io.IOBase) or hasattr(value, "read"):
        data = value.read()
        if isinstance(data, bytes):
            return data
        raise TypeError(f"`{field}` must be opened in binary mode ('rb'), got a text file object")
    raise TypeError(
        f"`{field}` must be bytes, a pathlib.Path, a binary file object or a (filename, content) tuple, "
        f"got {type(value).__name__}"
    )


def _name_of(value: object) -> str:
    if isinstance(value, os.PathLike):
        return pathlib.Path(value).name
    name = getattr(value, "name", None)
    return pathlib.Path(name).name if isinstance(name, str) and name else _DEFAULT_FILENAME


def _guess_type(filename: str) -> str:
    return mimetypes.guess_type(filename)[0] or "application/octet-stream"


def form_fields(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The form fields of the non-file parameters, flattened as openai flattens them."""
    fields: list[tuple[str, str]] = []
    for key, value in params.items():
        fields.extend(_flatten(key, value))
    return fields


def _flatten(key: str, value: Any) -> Iterable[tuple[str, str]]:
    if isinstance(value, Mapping):
        for sub, item in value.items():
            yield from _flatten(f"{key}[{sub}]", item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(f"{key}[]", item)
    elif value is True or value is False:
        yield key, "true" if value else "false"
    else:
        yield key, "" if value is None else str(value)


def _quote(name: str) -> str:
    """Escape a parameter of ``Content-Disposition`` as browsers do (HTML5 form encoding)."""
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def encode_multipart(
    fields: Iterable[tuple[str, str]],
    files: Iterable[tuple[str, tuple[str, bytes, str]]],
    boundary: str | None = None,
) -> tuple[bytes, str]:
    """The body and its ``Content-Type`` (with the boundary): form fields first, then files, as httpx orders them."""
    boundary = boundary or os.urandom(16).hex()
    delimiter = f"--{boundary}\r\n".encode("ascii")
    out = bytearray()
    for name, value in fields:
        out += delimiter
        out += f'Content-Disposition: form-data; name="{_quote(name)}"\r\n\r\n'.encode()
        out += value.encode()
        out += b"\r\n"
    for name, (filename, data, content_type) in files:
        out += delimiter
        out += (
            f'Content-Disposition: form-data; name="{_quote(name)}"; filename="{_quote(filename)}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        out += data
        out += b"\r\n"
    out += f"--{boundary}--\r\n".encode("ascii")
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def multipart_body(params: Mapping[str, Any], file_fields: Iterable[str] = ("file",)) -> tuple[bytes, str]:
    """Encode a method's parameters: the ``file_fields`` as uploads, everything else as form fields."""
    names = set(file_fields)
    files: list[tuple[str, tuple[str, bytes, str]]] = []
    for name in file_fields:
        value = params.get(name)
        if isinstance(
            value, list
        ):  # several files (``image=[a, b]``) go as ``image[]``, as openai sends them
            files.extend((f"{name}[]", read_file(item, field=name)) for item in value)
        elif name in params:
            files.append((name, read_file(value, field=name)))
    data = {key: value for key, value in params.items() if key not in names}
    return encode_multipart(form_fields(data), files)
