"""Record which ``openai.types`` module paths and names ``holyclient.types`` must offer, and their spec schemas.

The installed ``openai`` package is read only as a *list*: its module paths under the areas a relay user
meets, each module's public names (``__all__``), the names it re-exports from sibling modules, and, to find
the official schema a name stands for, the set of field names of each class (its schema in the spec has
the same property names; openai's generator renames schemas, so the names alone do not say which one).
No type, annotation or docstring is copied: ``scripts/gen_types.py`` builds every definition from the
spec and from holyclient's hand-written models.

Usage::

    python scripts/gen_types_manifest.py      # rewrites scripts/openai_types_manifest.json

Run it when the openai version the project targets changes, then ``python scripts/gen_types.py``.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _types_spec import SpecIndex, load_spec
from gen_types import DEFAULT_SPEC, MANIFEST

#: The ``openai.types`` areas a relay user meets. Left out on purpose: realtime, fine-tuning, vector
#: stores, evals, containers, conversations, graders, beta (assistants), uploads, webhooks, admin: they
#: are endpoints HolySheep does not relay, so nothing a holyclient call returns is of those types.
AREAS = ("chat", "audio", "responses", "shared", "shared_params")
TOP_LEVEL_PREFIXES = (
    *("completion", "embedding", "create_embedding", "model", "moderation", "image", "file", "batch"),
    *("audio_", "chat_model"),
)


def openai_modules(types_dir: Path) -> list[str]:
    """Dotted paths (relative to ``openai.types``) of every module in the listed areas, ``""`` the package."""
    found = [""]
    for area in AREAS:
        for path in sorted((types_dir / area).rglob("*.py")):
            parts = path.relative_to(types_dir).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    for path in sorted(types_dir.glob("*.py")):
        if path.stem.startswith(TOP_LEVEL_PREFIXES):
            found.append(path.stem)
    return found


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*parts, *(name.split(".") if name else [])])


def _imports(module: str, path: Path) -> dict[str, str]:
    """Names the module imports from other ``openai.types`` modules: name -> module path."""
    is_package = path.name == "__init__.py"
    depth = module.count(".") + 1 if module else 0
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            if node.level - (1 if is_package else 0) > depth:
                continue  # openai._models, openai._utils ...: helpers, not types
            source = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                found[alias.asname or alias.name] = source
    return found


def _field_names(value: Any) -> list[str] | None:
    fields = getattr(value, "model_fields", None)
    if isinstance(fields, dict):
        return [info.alias or name for name, info in fields.items()]
    if isinstance(value, type) and hasattr(value, "__total__"):
        return list(value.__annotations__)
    return None


def _unwrap(value: Any) -> Any:
    while typing.get_origin(value) is typing.Annotated:
        value = typing.get_args(value)[0]
    return value


def _literal_values(value: Any) -> list[str] | None:
    value = _unwrap(value)
    if typing.get_origin(value) is typing.Literal:
        return [str(v) for v in typing.get_args(value)]
    return None


def _variants(value: Any, pointers: dict[int, str]) -> list[str] | None:
    """Schema pointers of the classes a union alias joins (those openai resolved to a schema)."""
    value = _unwrap(value)
    if typing.get_origin(value) not in (typing.Union, types.UnionType):
        return None
    found = [pointers[id(member)] for member in typing.get_args(_unwrap(value)) if id(member) in pointers]
    return found or None


def build(spec: dict[str, Any]) -> dict[str, Any]:
    """The manifest: per module, its public names with their kind, schema and re-export source."""
    import openai.types

    index = SpecIndex(spec)
    types_dir = Path(openai.types.__file__).parent
    manifest: dict[str, Any] = {}
    pointers: dict[int, str] = {}  # id(class) -> its schema, for the union aliases of the second pass
    aliases: list[tuple[dict[str, Any], str, Any]] = []
    modules = openai_modules(types_dir)
    loaded = {m: importlib.import_module(f"openai.types.{m}" if m else "openai.types") for m in modules}
    imports = {m: _imports(m, Path(loaded[m].__file__ or "")) for m in modules}
    public = {
        m: list(getattr(loaded[m], "__all__", None) or [n for n in imports[m] if not n.startswith("_")])
        for m in modules
    }
    for module in modules:  # a name a package re-exports is public even when its module's __all__ omits it
        for name in public[module]:
            source = imports[module].get(name)
            if source in public and name not in public[source] and name not in imports[source]:
                public[source].append(name)
    for module in modules:
        mod, imported = loaded[module], imports[module]
        entries: dict[str, Any] = {}
        for name in public[module]:
            if name in imported:
                entries[name] = {"from": imported[name]}
                continue
            value = getattr(mod, name)
            fields = _field_names(value)
            if fields is not None:
                kind = "typeddict" if not hasattr(value, "model_fields") else "model"
                entries[name] = {"kind": kind, "schema": index.find_object(name, fields, module)}
                if entries[name]["schema"]:
                    pointers[id(value)] = entries[name]["schema"]
            else:
                entries[name] = {"kind": "alias", "schema": None}
                aliases.append((entries[name], name, value))
        if module == "":  # the package re-exports every area; keep the names of the areas listed here
            entries = {n: e for n, e in entries.items() if e.get("from") in public}
        uses = {n: src for n, src in imported.items() if n not in entries}
        manifest[module] = {"names": entries, "uses": uses}
    for entry, name, value in aliases:
        entry["schema"] = index.find_alias(name, _literal_values(value), _variants(value, pointers))
    return manifest


def main() -> int:
    manifest = build(load_spec(DEFAULT_SPEC))
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    names = sum(len(v["names"]) for v in manifest.values())
    unresolved = sum(
        1 for v in manifest.values() for e in v["names"].values() if "from" not in e and not e["schema"]
    )
    print(f"{len(manifest)} modules, {names} names, {unresolved} without a spec schema -> {MANIFEST}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
