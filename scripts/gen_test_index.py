"""Regenerate ``tests/INDEX.md``: for each module of ``src/holyclient``, the test files that import or name it.

The tests are laid out by feature, not by module; this index is the map from code to tests. A test file
counts for a module when it

* imports it (``import holyclient.x``, ``from holyclient.x import y``, ``from holyclient import x``),
* imports a name that the module defines, through a package face (``from holyclient import Client``
  counts for ``holyclient/_client/_client.py``, where ``Client`` is defined), or
* names it: its dotted name (``"holyclient._send._pagination"``) or its path (``_send/_pagination.py``),
  or is named after it (``test_pagination.py``, ``test_binary_streaming.py`` for ``_binary.py``).

Usage::

    python scripts/gen_test_index.py          # rewrite tests/INDEX.md
    python scripts/gen_test_index.py --check  # exit 1 when tests/INDEX.md is stale

``tests/test_index.py`` fails when the index is stale: run this script after adding a test file.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
TESTS = ROOT / "tests"
TARGET = TESTS / "INDEX.md"
#: Inputs of the codemod's before/after tests, not tests.
SKIPPED = ("migrate/fixtures/",)


def src_modules() -> dict[str, Path]:
    """Dotted name -> path (relative to ``src/holyclient``) of every module of the package."""
    out: dict[str, Path] = {}
    for path in sorted((SRC / "holyclient").rglob("*.py")):
        rel = path.relative_to(SRC)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path.relative_to(SRC / "holyclient")
    return out


def test_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if not rel.startswith(SKIPPED):
            yield path


def _defining_module(package: str, name: str, modules: dict[str, Path]) -> str | None:
    """The module that defines ``package.name`` (a submodule, or where a re-exported object lives)."""
    if f"{package}.{name}" in modules:
        return f"{package}.{name}"
    try:
        obj = getattr(importlib.import_module(package), name)
    except (ImportError, AttributeError):
        return None
    defined = getattr(obj, "__module__", None)
    return defined if isinstance(defined, str) and defined in modules else None


def imported(tree: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The package modules a test file imports, directly or through a face."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module in modules and not node.level:
            found.add(node.module)
            for alias in node.names:
                if (defined := _defining_module(node.module, alias.name, modules)) is not None:
                    found.add(defined)
    return found


def named(text: str, modules: dict[str, Path]) -> set[str]:
    """The package modules a test file names by dotted name or path."""
    found = set()
    for dotted, path in modules.items():
        if path.name == "__init__.py":
            continue  # a package is named by its submodules' names too often to count
        if f'"{dotted}"' in text or f"{dotted}." in text or f"/{path.as_posix()}" in text:
            found.add(dotted)
    return found


def named_after(test_name: str, modules: dict[str, Path]) -> set[str]:
    """The modules whose name is a run of words in the test file's name (``test_<words>.py``)."""
    if not test_name.startswith("test_"):
        return set()
    words = test_name.removesuffix(".py").split("_")[1:]
    found = set()
    for dotted, path in modules.items():
        stem = path.stem.strip("_").split("_")
        if path.name == "__init__.py" or len("_".join(stem)) < 4:
            continue  # a short stem (``_run``) would match by accident
        if any(words[i : i + len(stem)] == stem for i in range(len(words))):
            found.add(dotted)
    return found


def index() -> dict[str, list[str]]:
    """Module path (relative to ``src/holyclient``) -> sorted test files (relative to ``tests``)."""
    modules = src_modules()
    by_module: dict[str, set[str]] = {dotted: set() for dotted in modules}
    for path in test_files():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(TESTS).as_posix()
        found = imported(ast.parse(text), modules) | named(text, modules) | named_after(path.name, modules)
        for dotted in found:
            by_module[dotted].add(rel)
    return {modules[dotted].as_posix(): sorted(files) for dotted, files in sorted(by_module.items())}


def render(entries: dict[str, list[str]]) -> str:
    untested = [module for module, files in entries.items() if not files]
    lines = [
        "# Tests by source module",
        "",
        "Generated by `scripts/gen_test_index.py`; do not edit (`tests/test_index.py` fails when it is stale).",
        "A test file is listed for a module when it imports the module, imports a name the module defines",
        "(also through `holyclient` or another package face), names its dotted name or path, or is named",
        "after it (`test_pagination.py` for `_send/_pagination.py`). Tests that",
        "only drive a module through the command line or another module are not listed: search for the",
        "behaviour too.",
        "",
        f"{len(entries)} modules, {len(untested)} without a test file listed.",
        "",
        "| module | test files |",
        "|---|---|",
    ]
    for module, files in sorted(entries.items(), key=lambda item: item[0]):
        listed = ", ".join(f"`{name}`" for name in files) if files else "--"
        lines.append(f"| `{module}` | {listed} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(SRC))
    text = render(index())
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            sys.stderr.write(f"{TARGET.relative_to(ROOT)} is stale: run python scripts/gen_test_index.py\n")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
