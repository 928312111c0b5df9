"""The public surface: sync/async parity and an honest ``__all__``."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import holyclient
from holyclient import AsyncClient, Client


def _public_methods(obj: object) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(obj)
        if not name.startswith("_") and callable(member) and not inspect.isclass(member)
    }


def _params(sig: inspect.Signature) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def test_sync_and_async_clients_expose_the_same_methods_with_the_same_parameters():
    sync = Client(api_key="k")
    asyn = AsyncClient(api_key="k")
    pairs = [
        (sync, asyn),
        (sync.chat.completions, asyn.chat.completions),
        (sync.embeddings, asyn.embeddings),
        (sync.models, asyn.models),
    ]
    for s, a in pairs:
        sm, am = _public_methods(s), _public_methods(a)
        assert sm.keys() == am.keys(), type(s).__name__
        for name in sm:
            assert _params(sm[name]) == _params(am[name]), f"{type(s).__name__}.{name}"
    assert _params(inspect.signature(Client.__init__)) == _params(inspect.signature(AsyncClient.__init__))
    for name in _public_methods(asyn.chat.completions):
        if name in ("stream", "list"):  # as in openai: an ``async with`` manager, a paginator
            continue
        assert inspect.iscoroutinefunction(getattr(asyn.chat.completions, name))
    sync.close()


def test_all_is_sorted_and_every_name_resolves():
    assert holyclient.__all__ == sorted(holyclient.__all__, key=lambda n: (not n.isupper(), n))
    for name in holyclient.__all__:
        assert getattr(holyclient, name) is not None, name


def test_public_names_are_exported():
    exported = set(holyclient.__all__)
    for name in dir(holyclient):
        if name.startswith("_") or name in {"annotations", "importlib", "TYPE_CHECKING", "Any"}:
            continue
        value = getattr(holyclient, name)
        if inspect.ismodule(value):
            continue
        assert name in exported, f"{name} is public but missing from __all__"


@pytest.mark.slow
def test_import_is_light():
    heavy = ("pydantic", "tiktoken", "tenacity", "httpx2", "libcst", "aiohttp")
    code = f"import sys, holyclient; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
