"""Unknown keyword arguments are refused, with the accepted names generated from the official spec."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from holyclient import AsyncClient, Client
from holyclient.resources import _spec_params

ROOT = Path(__file__).resolve().parent.parent
SHARED_SPEC = ROOT.parent / "shared" / "openapi" / "openapi.prism.json"  # ../shared beside the clone


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


@pytest.mark.skipif(not SHARED_SPEC.exists(), reason="the shared spec checkout is not on this machine")
def test_the_bundled_spec_is_the_shared_official_spec():
    gen = _generator()
    assert gen.accepted_names(gen.load_spec(SHARED_SPEC)) == gen.accepted_names(
        gen.load_spec(gen.DEFAULT_SPEC)
    )


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


def test_every_declared_operation_is_checked_against_the_spec():
    from holyclient.resources import Operation, chat, embeddings, models

    for module in (chat, embeddings, models):
        for value in vars(module).values():
            if isinstance(value, Operation):
                assert value.accepted is not None, f"{value.method} {value.path} is not in the spec lists"
