"""Parsing HTTP/1.1 requests for the local server: request heads, lengths, chunked bodies. No I/O.

:class:`~holyclient.testing._http.HTTPConnection` feeds bytes in; anything ambiguous raises
:class:`ProtocolError`, which the connection answers with its status and closes.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024

_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")


class ProtocolError(Exception):
    """A request that cannot be parsed; answered with ``status`` and a closed connection."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Request:
    """One parsed request. Header names are lower-cased; repeated headers are joined with ``", "``."""

    __slots__ = ("body", "headers", "keep_alive", "method", "path", "query", "target", "version")

    def __init__(self, method: str, target: str, version: str, headers: dict[str, str]) -> None:
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        raw_path, _, self.query = target.partition("?")
        if raw_path.startswith(("http://", "https://")):  # absolute-form: keep only the path
            slash = raw_path.find("/", raw_path.find("//") + 2)
            raw_path = raw_path[slash:] if slash >= 0 else "/"
        self.path = unquote(raw_path)
        connection = headers.get("connection", "").lower()
        if version == "HTTP/1.1":
            self.keep_alive = "close" not in connection
        else:
            self.keep_alive = "keep-alive" in connection
        self.body = b""


def parse_head(head: bytes) -> Request:
    """Parse a request line and header block (without the final blank line)."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        raise ProtocolError(400, "undecodable request head") from None
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise ProtocolError(400, "malformed request line")
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise ProtocolError(505 if version.startswith("HTTP/") else 400, "unsupported HTTP version")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name[-1] in " \t" or line[0] in " \t":
            raise ProtocolError(400, "malformed header line")
        key = name.lower()
        value = value.strip(" \t")
        if key in headers:
            headers[key] = f"{headers[key]}, {value}"
        else:
            headers[key] = value
    return Request(method, target, version, headers)


def content_length(headers: dict[str, str]) -> int:
    """The declared body length; repeated equal values are accepted, anything else is a 400."""
    raw = headers.get("content-length")
    if raw is None:
        return 0
    values = {v.strip() for v in raw.split(",")}
    if len(values) != 1:
        raise ProtocolError(400, "conflicting Content-Length")
    value = values.pop()
    if not (value.isascii() and value.isdigit()):
        raise ProtocolError(400, "invalid Content-Length")
    length = int(value)
    if length > MAX_BODY_BYTES:
        raise ProtocolError(413, "request body too large")
    return length


def parse_chunked(buf: bytearray, max_body: int = MAX_BODY_BYTES) -> tuple[bytes, int] | None:
    """Decode a complete chunked body at the start of ``buf``.

    Returns ``(body, bytes_consumed)``, or ``None`` when more input is needed.
    """
    pos = 0
    body = bytearray()
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            if len(buf) - pos > 1024:
                raise ProtocolError(400, "chunk size line too long")
            return None
        size_text = bytes(buf[pos:eol]).split(b";", 1)[0].strip(b" \t")
        if not _HEX.fullmatch(size_text):
            raise ProtocolError(400, "invalid chunk size")
        size = int(size_text, 16)
        pos = eol + 2
        if size == 0:
            # Trailer section: header lines until an empty line; trailers are ignored.
            while True:
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    if len(buf) - pos > MAX_HEAD_BYTES:
                        raise ProtocolError(431, "trailers too large")
                    return None
                if eol == pos:
                    return bytes(body), eol + 2
                pos = eol + 2
        if len(body) + size > max_body:
            raise ProtocolError(413, "request body too large")
        if len(buf) < pos + size + 2:
            return None
        body += buf[pos : pos + size]
        if buf[pos + size : pos + size + 2] != b"\r\n":
            raise ProtocolError(400, "chunk not terminated by CRLF")
        pos += size + 2
