"""Regenerate the ``openai.types``-shaped tree under ``src/holyclient/types`` from the official spec.

Inputs, all in the repository: the spec (``tests/contract/openapi.prism.json.gz``), the list of module
paths and names to offer (``scripts/openai_types_manifest.json``, made by ``gen_types_manifest.py``), and
holyclient's hand-written models (every module directly under ``types/`` that this script did not write,
private ones included, so a model someone adds to ``types/_stored_chat.py`` is found on the next run).

For each name: a hand-written model that stands for it (same name, or the same fields as its schema) is
re-exported, so it stays the one definition and keeps its helpers; a name openai re-exports from a sibling
module is imported from our sibling; anything else is built from its schema (a pydantic model, a
``TypedDict`` for request shapes, or an alias for enums and unions). Package ``__init__`` modules load
their names on first access, so importing ``holyclient.types.chat`` stays cheap.

Usage::

    python scripts/gen_types.py [--check]

``tests/test_openai_types_tree.py`` fails when the committed output is stale. The spec index lives in
``_types_spec.py``, the rendering of one module in ``_types_render.py``.
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _types_render import MARKER, Module, _rel, _render_index, _render_module, _render_package
from _types_spec import SpecIndex, load_spec

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT / "tests" / "contract" / "openapi.prism.json.gz"
MANIFEST = ROOT / "scripts" / "openai_types_manifest.json"
TYPES = ROOT / "src" / "holyclient" / "types"
PACKAGES_INDEX = "_openai_index.py"

#: Hand-written modules whose public names a generated package keeps offering (they were modules with
#: the package's name before the tree was generated, and apps import from them).
LEGACY = {"chat": "_chat", "responses": "_responses", "audio": "_audio", "shared": "_shared"}


# --- the hand-written models --------------------------------------------------------------------------


def handwritten() -> dict[str, dict[str, Any]]:
    """Public names defined in holyclient's own type modules: ``module.name`` -> {module, name, fields, kind}."""
    sys.path.insert(0, str(ROOT / "src"))
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(TYPES.glob("*.py")):
        text = path.read_text()
        if text.startswith(MARKER) or path.name in ("__init__.py", PACKAGES_INDEX):
            continue
        module = importlib.import_module(f"holyclient.types.{path.stem}")
        for node in ast.parse(text).body:
            names: list[str] = []
            if isinstance(node, ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            for name in names:
                if name.startswith("_") or name == "BaseModel":
                    continue
                value = getattr(module, name)
                model_fields = getattr(value, "model_fields", None)
                if isinstance(model_fields, dict):
                    fields, kind = [info.alias or key for key, info in model_fields.items()], "model"
                elif isinstance(value, type) and hasattr(value, "__total__"):
                    fields, kind = list(value.__annotations__), "typeddict"
                else:
                    fields, kind = [], "alias"
                found[f"{path.stem}.{name}"] = {
                    "module": path.stem,
                    "name": name,
                    "fields": fields,
                    "kind": kind,
                }
    return found


def _area(module: str) -> str:
    """``responses`` for ``responses.response_usage``, ``_responses`` and ``response_usage``; ``batch`` for
    ``batches`` and ``batch_usage``: which API area a module belongs to, to tell same-named models apart."""
    word = module.split(".")[0].strip("_").split("_")[0]
    return word[:-2] if word.endswith("ches") else word.rstrip("s")


def match_handwritten(
    manifest: dict[str, Any], index: SpecIndex, own: dict[str, Any]
) -> dict[tuple[str, str], str]:
    """(openai module, name) -> the key (``module.name``) of the hand-written class that stands for it."""
    slots = [(m, n, e) for m, names in manifest.items() for n, e in names.items() if "from" not in e]
    claimed: dict[tuple[str, str], str] = {}

    def overlap(fields: list[str], entry: dict[str, Any]) -> float:
        have = index.objects.get(entry.get("schema") or "", frozenset())
        mine = frozenset(fields)
        return len(have & mine) / len(have | mine) if have | mine else 0.0

    def fits(info: dict[str, Any], entry: dict[str, Any]) -> bool:
        """A model stands for a model, a request shape for a ``TypedDict``; either for an alias (a union)."""
        kind = info.get("kind", "model")
        return (
            kind == entry["kind"]
            or entry["kind"] == "alias"
            or (kind == "alias" and entry["kind"] != "model")
        )

    unnamed = []
    offers: dict[tuple[str, str], list[tuple[float, bool, str]]] = {}
    for key, info in own.items():
        name = info["name"]
        same = [(m, e) for m, n, e in slots if n == name and fits(info, e)]
        if not same:
            unnamed.append((key, info))
            continue
        # The name is often defined in several openai modules: offer the class to those whose schema fits
        # best; two hand-written classes of one name (``InputTokensDetails``) go by area.
        best = max(overlap(info["fields"], e) for _, e in same)
        for module, entry in same:
            if len(same) == 1 or (best > 0 and overlap(info["fields"], entry) == best):
                offers.setdefault((module, name), []).append(
                    (best, _area(module) == _area(info["module"]), key)
                )
    for slot, candidates in offers.items():
        claimed[slot] = max(candidates)[2]
    for key, info in unnamed:  # a model named differently (ChunkChoice): the slot whose schema it matches
        candidates = [
            (overlap(info["fields"], e), _area(m) == _area(info["module"]), m, n)
            for m, n, e in slots
            if e["kind"] == info.get("kind", "model") and (m, n) not in claimed
        ]
        candidates = [c for c in candidates if c[0] >= 0.8]
        if candidates:
            top = max(candidates)
            if sum(1 for c in candidates if c[:2] == top[:2]) == 1:
                claimed[(top[2], top[3])] = key
    return claimed


def generate(spec: dict[str, Any], manifest: dict[str, Any]) -> dict[str, str]:
    """Path under ``types/`` -> module text (not yet formatted)."""
    index = SpecIndex(spec)
    own = handwritten()
    names_of = {m: v["names"] for m, v in manifest.items()}
    claims = match_handwritten(names_of, index, own)
    packages = {m for m in manifest if m and any(o.startswith(m + ".") for o in manifest)}
    out: dict[str, str] = {}

    def pointer_of(module: str, name: str, seen: int = 0) -> str | None:
        entry = names_of.get(module, {}).get(name)
        if entry is None and seen <= 10 and name in manifest.get(module, {}).get("uses", {}):
            return pointer_of(manifest[module]["uses"][name], name, seen + 1)
        if entry is None or seen > 10:
            return None
        if "from" in entry:
            return pointer_of(entry["from"], name, seen + 1)
        return entry.get("schema")

    def home_of(module: str, name: str, seen: int = 0) -> str | None:
        """The module that defines ``name`` (following re-exports), so imports name it explicitly."""
        info = manifest.get(module)
        if info is None or seen > 10:
            return None
        entry = info["names"].get(name)
        if entry is not None:
            return home_of(entry["from"], name, seen + 1) if "from" in entry else module
        source = info["uses"].get(name)
        return home_of(source, name, seen + 1) if source else None

    for module, info in manifest.items():
        if module == "":
            continue
        names = info["names"]
        is_package = module in packages
        base = module.split(".") if is_package else module.split(".")[:-1]
        local: dict[str, str] = {}
        imports: list[str] = []
        for name, source in info["uses"].items():
            pointer, home = pointer_of(source, name), home_of(source, name)
            if pointer and home:
                local.setdefault(pointer, name)
                imports.append(f"from {_rel(base, home)} import {name}")
        for name in names:
            pointer = pointer_of(module, name)
            if pointer:
                local.setdefault(pointer, name)
        gen = Module(module, index, local)
        lazy: dict[str, str] = {}
        for name, entry in names.items():
            home = home_of(module, name) if "from" in entry else None
            if home:
                if is_package:
                    lazy[name] = _rel(base, home)
                else:
                    imports.append(f"from {_rel(base, home)} import {name} as {name}")
            elif (module, name) in claims:
                hand = own[claims[(module, name)]]
                imports.append(f"from {_rel(base, hand['module'])} import {hand['name']} as {name}")
            elif "from" in entry or entry["schema"] is None:
                gen.unspecified(name, entry.get("kind", "alias"))
            elif entry["kind"] == "model":
                gen.model(name, entry["schema"])
            elif entry["kind"] == "typeddict":
                gen.typed_dict(name, entry["schema"])
            else:
                gen.alias(name, entry["schema"])
        gen.finish()
        if is_package:
            legacy = LEGACY.get(module)
            if legacy:
                for hand in own.values():
                    if hand["module"] == legacy and hand["name"] not in names and hand["name"] not in lazy:
                        lazy[hand["name"]] = _rel(base, legacy)
            out[f"{module.replace('.', '/')}/__init__.py"] = _render_package(module, lazy, gen, imports)
        else:
            out[f"{module.replace('.', '/')}.py"] = _render_module(module, gen, imports, list(names), base)
    return out


def formatted(files: dict[str, str]) -> dict[str, str]:
    """The files as ``ruff format`` (and ``ruff check --fix`` for import order) leaves them."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "types"
        for rel, text in files.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(text)
        config = ["--config", str(ROOT / "pyproject.toml")]
        subprocess.run(
            [ruff, "check", "--fix-only", "--select", "I,UP,F401", *config, "-q", str(base)], check=False
        )
        subprocess.run([ruff, "format", *config, "-q", str(base)], check=True)
        return {rel: (base / rel).read_text() for rel in files}


def expected_files(spec_path: Path = DEFAULT_SPEC) -> dict[str, str]:
    manifest = json.loads(MANIFEST.read_text())
    files = generate(load_spec(spec_path), manifest)
    files[PACKAGES_INDEX] = _render_index(manifest)
    return formatted(files)


def generated_on_disk() -> Iterator[Path]:
    for path in TYPES.rglob("*.py"):
        if path.read_text().startswith(MARKER):
            yield path


def main(argv: list[str]) -> int:
    files = expected_files()
    stale = {str(p.relative_to(TYPES)) for p in generated_on_disk()} - set(files)
    if "--check" in argv:
        differ = [
            rel
            for rel, text in files.items()
            if not (TYPES / rel).exists() or (TYPES / rel).read_text() != text
        ]
        for rel in sorted(differ) + sorted(stale):
            print(f"stale: src/holyclient/types/{rel}")
        return 1 if differ or stale else 0
    for rel in stale:
        (TYPES / rel).unlink()
    for rel, text in files.items():
        (TYPES / rel).parent.mkdir(parents=True, exist_ok=True)
        (TYPES / rel).write_text(text)
    print(f"wrote {len(files)} modules under {TYPES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
