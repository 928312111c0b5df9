"""The official OpenAPI spec as ``scripts/gen_types.py`` reads it: every object, enum and union schema by
JSON pointer, and the lookups that find the schema an ``openai.types`` name stands for."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any


def load_spec(path: Path) -> dict[str, Any]:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    spec: dict[str, Any] = json.loads(raw)
    return spec


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", text)}


class SpecIndex:
    """Every object and enum schema in the spec, by JSON pointer, with its property names."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.schemas: dict[str, Any] = spec["components"]["schemas"]
        self.objects: dict[str, frozenset[str]] = {}
        self.enums: dict[str, frozenset[str]] = {}
        self.unions: dict[str, frozenset[str]] = {}
        for name, schema in self.schemas.items():
            self._walk(schema, f"#/components/schemas/{name}", 0)

    def resolve(self, pointer: str) -> Any:
        target: Any = self.spec
        for part in pointer.removeprefix("#/").split("/"):
            target = target[int(part)] if isinstance(target, list) else target[part.replace("~1", "/")]
        return target

    def properties(self, schema: Any, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Properties of an object schema, ``allOf`` parts merged, ``$ref`` followed."""
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return {} if ref in seen else self.properties(self.resolve(ref), seen | {ref})
        props: dict[str, Any] = {}
        for part in schema.get("allOf", []):
            props.update(self.properties(part, seen))
        props.update(schema.get("properties", {}))
        return props

    def required(self, schema: Any, seen: frozenset[str] = frozenset()) -> set[str]:
        if not isinstance(schema, dict):
            return set()
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return set() if ref in seen else self.required(self.resolve(ref), seen | {ref})
        found = set(schema.get("required", []))
        for part in schema.get("allOf", []):
            found |= self.required(part, seen)
        return found

    def _walk(self, schema: Any, pointer: str, depth: int) -> None:
        if not isinstance(schema, dict) or depth > 8 or "$ref" in schema:
            return
        props = self.properties(schema)
        if props:
            self.objects[pointer] = frozenset(props)
        if isinstance(schema.get("enum"), list):
            self.enums[pointer] = frozenset(str(v) for v in schema["enum"] if v is not None)
        for key in ("anyOf", "oneOf"):
            variants = schema.get(key)
            if isinstance(variants, list):
                self.unions[pointer] = frozenset(
                    v["$ref"] if isinstance(v, dict) and "$ref" in v else f"{pointer}/{key}/{i}"
                    for i, v in enumerate(variants)
                )
        for key, sub in schema.get("properties", {}).items():
            self._walk(sub, f"{pointer}/properties/{key.replace('/', '~1')}", depth + 1)
        for key in ("items", "additionalProperties"):
            if isinstance(schema.get(key), dict):
                self._walk(schema[key], f"{pointer}/{key}", depth + 1)
        for key in ("anyOf", "oneOf", "allOf"):
            for i, sub in enumerate(schema.get(key, [])):
                self._walk(sub, f"{pointer}/{key}/{i}", depth + 1)

    def _named(self, name: str) -> list[str]:
        names = [name, name.removesuffix("Param"), name.removesuffix("Params")]
        return [f"#/components/schemas/{n}" for n in dict.fromkeys(names) if n in self.schemas]

    def find_object(self, name: str, fields: list[str], module: str) -> str | None:
        """The pointer of the object schema a class with these fields stands for, or None."""
        wanted = frozenset(fields)
        if not wanted:
            return None

        def score(pointer: str) -> tuple[float, int, int]:
            have = self.objects.get(pointer, frozenset())
            jaccard = len(have & wanted) / len(have | wanted) if have | wanted else 0.0
            context = len(
                _words(pointer.split("/")[3]) & (_words(name) | set(module.replace(".", "_").split("_")))
            )
            return jaccard, context, -len(pointer)

        for pointer in self._named(name):
            if score(pointer)[0] >= 0.6:
                return pointer
        best = max(self.objects, key=score)
        return best if score(best)[0] >= 0.8 else None

    def find_alias(self, name: str, literals: list[str] | None, variants: list[str] | None) -> str | None:
        """The pointer of the enum or union schema an alias stands for, or None.

        ``literals`` are the values of a ``Literal`` alias; ``variants`` the schema pointers of the members
        of a union alias.
        """
        named = self._named(name)
        if named:
            return named[0]
        for values, table in ((literals, self.enums), (variants, self.unions)):
            if not values:
                continue
            wanted = frozenset(values)

            def score(
                pointer: str, table: dict[str, frozenset[str]] = table, wanted: frozenset[str] = wanted
            ) -> tuple[float, int, int]:
                have = table[pointer]
                return (
                    len(have & wanted) / len(have | wanted),
                    len(_words(pointer) & _words(name)),
                    -len(pointer),
                )

            best = max(table, key=score)
            if score(best)[0] >= 0.8:
                return best
        return None
