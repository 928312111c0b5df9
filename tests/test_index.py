"""``tests/INDEX.md`` (the map from each source module to its test files) is regenerated with the tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_test_index", ROOT / "scripts" / "gen_test_index.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_test_index", module)
    spec.loader.exec_module(module)
    return module


def test_the_test_index_is_up_to_date() -> None:
    gen = _generator()
    expected = gen.render(gen.index())
    assert (ROOT / "tests" / "INDEX.md").read_text(encoding="utf-8") == expected, (
        "tests/INDEX.md is stale: run python scripts/gen_test_index.py"
    )


def test_the_index_lists_a_module_for_its_imports_its_faces_and_its_name() -> None:
    entries = _generator().index()
    assert "test_pagination.py" in " ".join(entries["_send/_pagination.py"])  # named after it
    assert "test_retries.py" in entries["_core/_retry.py"]  # imported directly
    assert "test_retries.py" in entries["_exceptions.py"]  # InternalServerError through the face
    assert "test_index.py" not in " ".join(f for files in entries.values() for f in files)
