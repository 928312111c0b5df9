"""Every face that loads its names on first use (``holyclient._lazy``) behaves like a plain module: an unknown
name is an ``AttributeError`` naming the package, a known one is loaded once and then kept."""

from __future__ import annotations

import importlib

import pytest

FACES = {
    "holyclient": "cost_from_usage",
    "holyclient._send": "SyncPage",
    "holyclient.compare": "make_report",
    "holyclient.types": "ChatModel",
    "holyclient.types.chat": "ParsedChatCompletion",
    "holyclient.types.responses": "ResponseStreamEvent",
}


@pytest.mark.parametrize("package", sorted(FACES))
def test_an_unknown_name_raises_attribute_error_naming_the_package(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018
    assert not hasattr(module, "not_a_name")


@pytest.mark.parametrize(("package", "name"), sorted(FACES.items()))
def test_a_lazy_name_is_loaded_once_and_kept_in_the_module(package: str, name: str) -> None:
    module = importlib.import_module(package)
    value = getattr(module, name)
    assert vars(module)[name] is value  # the next access is a plain lookup
