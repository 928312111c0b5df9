"""Pydantic models to the *strict* JSON schema that structured outputs require.

The API's strict mode accepts a subset of JSON schema: every object closes itself
(``additionalProperties: false``), lists all its properties as required (optional fields are
expressed as ``anyOf [..., null]``, which pydantic already emits), and a ``$ref`` may not sit next
to sibling keys. The rules are the official SDK's, so the same model sends the same schema through
either client (``tests/test_parsing_schema.py`` compares them).
"""

from __future__ import annotations

import inspect
from typing import Any, TypeGuard

import pydantic


def is_basemodel_type(value: object) -> TypeGuard[type[pydantic.BaseModel]]:
    return inspect.isclass(value) and issubclass(value, pydantic.BaseModel)


def is_dataclass_like_type(value: object) -> bool:
    """``@pydantic.dataclasses.dataclass`` classes carry this attribute; plain classes do not."""
    return inspect.isclass(value) and hasattr(value, "__pydantic_config__")


def to_strict_json_schema(model: type[pydantic.BaseModel] | pydantic.TypeAdapter[Any]) -> dict[str, Any]:
    """The strict JSON schema of a pydantic model (or ``TypeAdapter``), as structured outputs expect.

    Args:
        model: a ``BaseModel`` subclass or a ``pydantic.TypeAdapter``.

    Returns:
        A new schema dict: objects closed, all properties required, ``$ref`` siblings inlined,
        ``None`` defaults dropped.

    Raises:
        TypeError: for anything else.
    """
    if is_basemodel_type(model):
        schema = model.model_json_schema()
    elif isinstance(model, pydantic.TypeAdapter):
        schema = model.json_schema()
    else:
        raise TypeError(f"Expected a pydantic BaseModel class or TypeAdapter, got {model!r}")
    return _make_strict(schema, root=schema, path="#")


def _make_strict(node: object, *, root: dict[str, Any], path: str) -> dict[str, Any]:
    """Rewrite ``node`` in place (and return it); ``path`` only serves error messages."""
    if not isinstance(node, dict):
        raise TypeError(f"Expected a JSON schema object at {path}, got {node!r}")
    for section in ("$defs", "definitions"):
        defs = node.get(section)
        if isinstance(defs, dict):
            for name, sub in defs.items():
                _make_strict(sub, root=root, path=f"{path}/{section}/{name}")

    if node.get("type") == "object":
        node.setdefault("additionalProperties", False)
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["required"] = list(properties)
        node["properties"] = {
            key: _make_strict(sub, root=root, path=f"{path}/properties/{key}")
            for key, sub in properties.items()
        }
    items = node.get("items")
    if isinstance(items, dict):
        node["items"] = _make_strict(items, root=root, path=f"{path}/items")
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        node["anyOf"] = [
            _make_strict(sub, root=root, path=f"{path}/anyOf/{i}") for i, sub in enumerate(any_of)
        ]
    all_of = node.get("allOf")
    if isinstance(all_of, list):
        if len(all_of) == 1:  # a lone ``allOf`` is just its member (pydantic wraps described refs this way)
            node.update(_make_strict(all_of[0], root=root, path=f"{path}/allOf/0"))
            node.pop("allOf")
        else:
            node["allOf"] = [
                _make_strict(sub, root=root, path=f"{path}/allOf/{i}") for i, sub in enumerate(all_of)
            ]
    # A ``None`` default says nothing the nullable type does not already say.
    if "default" in node and node["default"] is None:
        del node["default"]

    ref = node.get("$ref")
    if ref and len(node) > 1:
        # Strict mode rejects ``{"$ref": ..., "description": ...}``: inline the target, keeping
        # the local keys, then make the inlined copy strict too.
        target = _resolve_ref(root, ref)
        node.update({**target, **node})
        del node["$ref"]
        return _make_strict(node, root=root, path=path)
    return node


def _resolve_ref(root: dict[str, Any], ref: object) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise ValueError(f"Unsupported $ref {ref!r}: only local references ('#/...') can be resolved")
    node: object = root
    for key in ref[2:].split("/"):
        if not isinstance(node, dict) or key not in node:
            raise ValueError(f"$ref {ref!r} does not resolve")
        node = node[key]
    if not isinstance(node, dict):
        raise ValueError(f"$ref {ref!r} resolves to {node!r}, not a schema object")
    return node
