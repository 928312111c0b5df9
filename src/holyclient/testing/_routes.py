"""The local server's one route table: every path it answers, with the endpoint name per method.

``App.handle`` answers the endpoints in :data:`CORE` itself (the rate-limited, benchmarked ones);
:mod:`._endpoints` answers the rest. Endpoint names are ``area.action``; the part before the dot is
the key of ``stats()["by_endpoint"]``.
"""

from __future__ import annotations

import re

#: path pattern -> {method: endpoint name}, the first method's name giving the endpoint's area
ROUTES: list[tuple[re.Pattern[str], dict[str, str]]] = [
    (re.compile(p, re.DOTALL), m)
    for p, m in (
        (r"/v1/chat/completions", {"POST": "chat", "GET": "chat.list"}),
        (r"/v1/embeddings", {"POST": "embeddings"}),
        (r"/v1/models", {"GET": "models"}),
        (r"/v1/models/(?P<id>.+)", {"GET": "model"}),
        (r"/v1/responses", {"POST": "responses"}),
        (r"/v1/responses/input_tokens", {"POST": "responses.input_tokens"}),
        (r"/v1/responses/(?P<id>[^/]+)", {"GET": "responses.retrieve", "DELETE": "responses.delete"}),
        (r"/v1/responses/(?P<id>[^/]+)/cancel", {"POST": "responses.cancel"}),
        (r"/v1/responses/(?P<id>[^/]+)/input_items", {"GET": "responses.input_items"}),
        (
            r"/v1/chat/completions/(?P<id>[^/]+)",
            {"GET": "chat.retrieve", "POST": "chat.update", "DELETE": "chat.delete"},
        ),
        (r"/v1/chat/completions/(?P<id>[^/]+)/messages", {"GET": "chat.messages"}),
        (r"/v1/completions", {"POST": "completions"}),
        (r"/v1/moderations", {"POST": "moderations"}),
        (r"/v1/images/generations", {"POST": "images"}),
        (r"/v1/images/edits", {"POST": "images.edit"}),
        (r"/v1/images/variations", {"POST": "images.variation"}),
        (r"/v1/audio/speech", {"POST": "speech"}),
        (r"/v1/audio/transcriptions", {"POST": "transcriptions"}),
        (r"/v1/audio/translations", {"POST": "translations"}),
        (r"/v1/files", {"POST": "files.create", "GET": "files.list"}),
        (r"/v1/files/(?P<id>[^/]+)", {"GET": "files.retrieve", "DELETE": "files.delete"}),
        (r"/v1/files/(?P<id>[^/]+)/content", {"GET": "files.content"}),
        (r"/v1/batches", {"POST": "batches.create", "GET": "batches.list"}),
        (r"/v1/batches/(?P<id>[^/]+)", {"GET": "batches.retrieve"}),
        (r"/v1/batches/(?P<id>[^/]+)/cancel", {"POST": "batches.cancel"}),
    )
]
#: the endpoints ``App.handle`` answers itself; a ``disabled_features`` entry naming one removes it
CORE = frozenset({"chat", "embeddings", "models", "model"})

_EXACT = {pattern.pattern: methods for pattern, methods in ROUTES if pattern.groups == 0}


def find_route(path: str, disabled: frozenset[str]) -> tuple[str, dict[str, str]] | None:
    """The item id in ``path`` ("" if none) and its ``{method: endpoint}``; ``None`` for an unknown URL.

    Exact paths are one dict lookup (the chat fast path); switched-off core endpoints are left out,
    and a path left with no method is one this server does not have.
    """
    methods = _EXACT.get(path)
    item_id = ""
    if methods is None:
        for pattern, candidate in ROUTES:
            match = pattern.fullmatch(path)
            if match is not None:
                methods, item_id = candidate, match["id"] if pattern.groups else ""
                break
        else:
            return None
    if disabled:
        methods = {m: e for m, e in methods.items() if e not in CORE or e not in disabled}
    return (item_id, methods) if methods else None
