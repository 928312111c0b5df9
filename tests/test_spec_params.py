"""Unknown keyword arguments are refused, with the accepted names generated from the official spec."""

from __future__ import annotations

import gzip
import hashlib
import importlib
import importlib.util
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from holyclient import AsyncClient, Client, resources
from holyclient.resources import Operation, _spec_params

ROOT = Path(__file__).resolve().parent.parent


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_request_params", ROOT / "scripts" / "gen_request_params.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_request_params", module)
    spec.loader.exec_module(module)
    return module


def test_the_generated_parameter_lists_match_the_bundled_spec():
    gen = _generator()
    expected = gen.accepted_names(gen.load_spec(gen.DEFAULT_SPEC))
    assert {k: sorted(v) for k, v in _spec_params.ACCEPTED.items()} == expected
    assert gen.render(expected) == (ROOT / "src/holyclient/resources/_spec_params.py").read_text()


def test_the_bundled_spec_is_the_official_spec_its_source_note_names():
    """The bundled copy is byte for byte the file ``tests/contract/SOURCE.txt`` describes (commit, sha256)."""
    gen = _generator()
    note = (ROOT / "tests" / "contract" / "SOURCE.txt").read_text()
    recorded = re.search(r"sha256 of the uncompressed file: ([0-9a-f]{64})", note)
    assert recorded is not None, "SOURCE.txt must record the sha256 of the spec"
    digest = hashlib.sha256(gzip.decompress(gen.DEFAULT_SPEC.read_bytes())).hexdigest()
    assert digest == recorded.group(1)


def test_a_typo_in_a_keyword_is_refused_with_a_suggestion():
    client = Client(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(TypeError, match=r"'max_token' \(did you mean 'max_tokens'\?\).*extra_body"):
        client.chat.completions.create(model="m", messages=[], max_token=5)
    with pytest.raises(TypeError, match="dimension"):
        client.embeddings.create(model="m", input="x", dimension=3)


async def test_the_async_client_refuses_unknown_keywords_too():
    client = AsyncClient(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(TypeError, match="max_token"):
        await client.chat.completions.create(model="m", messages=[], max_token=5)


def declared_operations() -> list[Operation[Any]]:
    """Every ``Operation`` declared in any module of ``holyclient.resources``, each once."""
    found: dict[int, Operation[Any]] = {}
    for info in pkgutil.iter_modules(resources.__path__, resources.__name__ + "."):
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, Operation):
                found[id(value)] = value
    return list(found.values())


def test_every_declared_operation_is_checked_against_the_spec():
    operations = declared_operations()
    unchecked = [f"{op.method} {op.path}" for op in operations if op.accepted is None]
    assert unchecked == [], "not in the spec lists (add them to OPERATIONS in gen_request_params.py)"
    assert {f"{op.method} {op.path}" for op in operations} == set(_spec_params.ACCEPTED)
    assert len(operations) == len(_spec_params.ACCEPTED) == 32
