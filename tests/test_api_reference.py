"""The Python API reference page (mkdocstrings): resource methods documented, Sphinx roles turned into
cross-references, constant defaults shown as values (``docs/_hooks/griffe_roles.py``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

griffe = pytest.importorskip("griffe")

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "reference" / "python.md").read_text(encoding="utf-8")
ROLE = re.compile(r":(?:class|meth|func|data|attr|mod|exc|obj):`")


@pytest.fixture(scope="module")
def package():
    spec = importlib.util.spec_from_file_location(
        "griffe_roles", ROOT / "docs" / "_hooks" / "griffe_roles.py"
    )
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    extensions = griffe.load_extensions(hook.RolesToReferences())
    return griffe.load(
        "holyclient", search_paths=[str(ROOT / "src")], extensions=extensions, resolve_aliases=False
    )


def test_the_page_documents_the_resource_methods_a_user_calls():
    for resource in (
        "chat.Completions",
        "embeddings.Embeddings",
        "models.Models",
        "files.Files",
        "batches.Batches",
    ):
        assert f"::: holyclient.resources.{resource}\n" in PAGE, resource


def test_resource_methods_document_their_parameters_and_return(package):
    create = package["resources.chat.Completions.create"]
    sections = {section.kind.value for section in create.docstring.parse("google")}
    assert {"parameters", "returns", "raises"} <= sections
    embed = package["resources.embeddings.Embeddings.create"].docstring.parse("google")
    assert {"parameters", "returns"} <= {section.kind.value for section in embed}


def test_no_sphinx_role_is_left_in_a_docstring_and_public_ones_become_links(package):
    left = []
    for module in [package, *package.modules.values()]:
        for obj in [module, *module.members.values()]:
            if not obj.is_alias and obj.docstring is not None and ROLE.search(obj.docstring.value):
                left.append(obj.path)
    assert left == []
    router = package["router._router"].docstring.value  # ":class:`~holyclient.Client`" in the source
    assert "[`Client`][holyclient.Client]" in router and "[`AsyncClient`][holyclient.AsyncClient]" in router


def test_a_default_that_names_a_constant_shows_its_value(package):
    init = package["_client._client.Client.__init__"]
    assert str(init.parameters["max_retries"].default) == "2"
    create = package["resources.embeddings.Embeddings.create"]
    assert str(create.parameters["timeout"].default) == "NOT_GIVEN"  # an object, not a value: kept as named
