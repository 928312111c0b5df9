"""Tool definitions as the chat API shows them to the model (a TypeScript-like ``namespace functions``).

Token counting (:mod:`holyclient.tokens`) counts this text to price the ``tools`` of a request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["render_functions"]


def render_functions(functions: Sequence[Mapping[str, Any]]) -> str:
    """The function definitions as the API renders them for the model (TypeScript-like)."""
    lines = ["namespace functions {", ""]
    for function in functions:
        description = function.get("description")
        if description:
            lines.append(f"// {description}")
        parameters = function.get("parameters")
        name = function.get("name", "")
        if isinstance(parameters, Mapping) and parameters.get("properties"):
            lines.append(f"type {name} = (_: {{")
            lines.append(_render_properties(parameters, 0))
            lines.append("}) => any;")
        else:
            lines.append(f"type {name} = () => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)


def _render_properties(schema: Mapping[str, Any], indent: int) -> str:
    properties = schema.get("properties")
    required = schema.get("required") or ()
    lines: list[str] = []
    if isinstance(properties, Mapping):
        for name, prop in properties.items():
            if not isinstance(prop, Mapping):
                continue
            if prop.get("description") and indent < 2:
                lines.append(f"// {prop['description']}")
            optional = "" if name in required else "?"
            lines.append(f"{name}{optional}: {_render_type(prop, indent)},")
    return "\n".join(" " * indent + line for line in lines)


def _render_type(prop: Mapping[str, Any], indent: int) -> str:
    kind = prop.get("type")
    enum = prop.get("enum")
    if isinstance(kind, list):
        return " | ".join(_render_type({**prop, "type": k}, indent) for k in kind)
    if isinstance(enum, list) and kind in ("string", "number", "integer", None):
        return " | ".join(f'"{v}"' if isinstance(v, str) else json.dumps(v) for v in enum)
    if kind == "string":
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind in ("boolean", "null"):
        return str(kind)
    if kind == "object":
        return "\n".join(["{", _render_properties(prop, indent + 2), "}"])
    if kind == "array":
        items = prop.get("items")
        return f"{_render_type(items, indent)}[]" if isinstance(items, Mapping) else "any[]"
    for key in ("anyOf", "oneOf"):
        options = prop.get(key)
        if isinstance(options, list):
            return " | ".join(_render_type(o, indent) for o in options if isinstance(o, Mapping))
    return "any"
