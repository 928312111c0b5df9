"""Stored chat completions on the local server: ``store=true`` completions, listed and edited. No I/O.

A chat completion created with ``"store": true`` (streamed or not) is kept with its request messages;
``GET /v1/chat/completions`` lists them (``model``, ``metadata[key]``, ``after``, ``limit``, ``order``,
oldest first by default), ``GET``/``POST``/``DELETE /v1/chat/completions/{id}`` retrieve, update (only
``metadata``) and delete one, and ``GET /v1/chat/completions/{id}/messages`` pages its messages.
"""

from __future__ import annotations

from typing import Any

from ._handlers import InvalidRequest
from ._store import page

JSON = dict[str, Any]


class NotStored(Exception):
    """No stored completion by that id (the API answers 404)."""

    def __init__(self, completion_id: str) -> None:
        super().__init__(f"Chat completion with id '{completion_id}' not found.")
        self.message = str(self)


class StoredChats:
    """The stored completions of one server, in creation order."""

    def __init__(self) -> None:
        self.completions: dict[str, JSON] = {}
        self.messages: dict[str, list[JSON]] = {}

    def keep(self, body: JSON, completion: JSON) -> None:
        """Store ``completion`` if its request asked for it (``"store": true``)."""
        if body.get("store") is not True:
            return
        completion_id = completion["id"]
        self.completions[completion_id] = {**completion, "metadata": body.get("metadata") or {}}
        self.messages[completion_id] = [
            {
                "id": f"{completion_id}-{i}",
                "role": message.get("role"),
                "content": message.get("content"),
                "name": message.get("name"),
                "content_parts": None,
            }
            for i, message in enumerate(body.get("messages") or [])
            if isinstance(message, dict)
        ]

    def get(self, completion_id: str) -> JSON:
        if completion_id not in self.completions:
            raise NotStored(completion_id)
        return self.completions[completion_id]

    def update(self, completion_id: str, body: JSON) -> JSON:
        completion = self.get(completion_id)
        metadata = body.get("metadata")
        if not isinstance(metadata, dict):
            raise InvalidRequest("'metadata' is required and must be an object", "metadata")
        completion["metadata"] = metadata
        return completion

    def delete(self, completion_id: str) -> JSON:
        self.get(completion_id)
        del self.completions[completion_id]
        del self.messages[completion_id]
        return {"id": completion_id, "object": "chat.completion.deleted", "deleted": True}

    def list(self, query: dict[str, str]) -> JSON:
        wanted = {key[9:-1]: value for key, value in query.items() if key.startswith("metadata[")}
        items = [
            c
            for c in self.completions.values()
            if query.get("model") in (None, c["model"])
            and all(c["metadata"].get(key) == value for key, value in wanted.items())
        ]
        return page(items, query, 20, newest_first=False)

    def list_messages(self, completion_id: str, query: dict[str, str]) -> JSON:
        self.get(completion_id)
        return page(self.messages[completion_id], query, 20, newest_first=False)
