"""The Python API reference page (mkdocstrings): resource methods documented, Sphinx roles turned into
cross-references, constant defaults shown as values (``docs/_hooks/griffe_roles.py``), and the built
site as a reader sees it: no private or send-path member, one table-of-contents entry per object, every
public method of the clients, signatures formatted to the content column, no hook source in the site."""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
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


# --- the built site (mkdocs build --strict), as a reader sees it ---

HOOKS = ROOT / "docs" / "_hooks"


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(name, HOOKS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Page(HTMLParser):
    """The headings' anchors, the signatures' text and the tables of contents of a built page."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[str] = []
        self.signatures: list[str] = []
        self.tables = 0
        self.tocs: list[list[tuple[int, str]]] = []  # (list depth, label) per secondary TOC
        self._in_toc = False
        self._lists = 0  # <ul> nesting inside the TOC being read
        self._label: str | None = None
        self._divs = 0  # <div> nesting inside the signature being read; 0 outside one

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        if tag in {"h2", "h3", "h4", "h5", "h6"} and "doc-heading" in classes and found.get("id"):
            self.anchors.append(str(found["id"]))
        elif tag == "table":
            self.tables += 1
        elif tag == "div" and (self._divs or "doc-signature" in classes):
            if not self._divs:
                self.signatures.append("")
            self._divs += 1
        elif tag == "nav" and "md-nav--secondary" in classes:
            self._in_toc, self._lists = True, 0
            self.tocs.append([])
        elif tag == "ul" and self._in_toc:
            self._lists += 1
        elif tag == "a" and self._in_toc and "md-nav__link" in classes:
            self._label = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._divs:
            self._divs -= 1
        elif tag == "a" and self._label is not None:
            self.tocs[-1].append((self._lists, " ".join(self._label.split())))
            self._label = None
        elif tag == "ul" and self._in_toc:
            self._lists -= 1
        elif tag == "nav" and self._in_toc and self._lists == 0:
            self._in_toc = False

    def handle_data(self, data: str) -> None:
        if self._label is not None:
            self._label += data
        if self._divs:
            self.signatures[-1] += data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def reference(site: Path) -> _Page:
    page = _Page()
    page.feed((site / "reference" / "python" / "index.html").read_text(encoding="utf-8"))
    return page


@pytest.mark.slow
def test_the_site_holds_no_build_hook(site: Path):
    assert not (site / "_hooks").exists()
    assert sorted(path.relative_to(site).as_posix() for path in site.rglob("*.py")) == []


@pytest.mark.slow
def test_no_private_or_send_path_member_is_documented(reference: _Page):
    assert len(reference.anchors) > 100  # the page was read
    private = [anchor for anchor in reference.anchors if any(p.startswith("_") for p in anchor.split("."))]
    assert private == []
    left_out = set(_hook("griffe_public").SEND_PATH)
    assert sorted(left_out & set(reference.anchors)) == []
    for signature in reference.signatures:  # a private parameter, or the call site a resource is built on
        assert not re.search(r"[(,\s]_\w+\s*[:=]", signature), signature
        assert "CallSite" not in signature, signature


@pytest.mark.slow
def test_no_send_path_name_appears_anywhere_on_the_page(site: Path):
    """Not as an entry, nor in a signature or a type: ``Stream``'s constructor once showed
    ``meter: StreamMeter | None``. Names that are also plain words (``refuse``, ``settle``) are not looked for."""
    text = html.unescape(re.sub(r"<[^>]*>", " ", (site / "reference" / "python" / "index.html").read_text()))
    names = {path.rsplit(".", 1)[1] for path in _hook("griffe_public").SEND_PATH}
    names = {name for name in names if "_" in name or not name.islower()}
    assert "StreamMeter" in names and "Ledger" in names
    assert sorted(name for name in names if re.search(rf"\b{name}\b", text)) == []


def test_each_member_left_out_of_the_reference_exists():
    loaded = griffe.load("holyclient", search_paths=[str(ROOT / "src")], resolve_aliases=False)
    for path in _hook("griffe_public").SEND_PATH:
        try:
            loaded[path.removeprefix("holyclient.")]
        except KeyError:
            pytest.fail(f"{path} is left out of the reference but no longer exists: update SEND_PATH")


@pytest.mark.slow
def test_the_table_of_contents_names_each_section_and_object_once(reference: _Page):
    toc = reference.tocs[-1]
    top = [label for depth, label in toc if depth <= 2]  # the page's sections and the objects in them
    assert sorted({label for label in top if top.count(label) > 1}) == []
    assert "client.chat.completions" in top and "client.completions" in top
    siblings: dict[tuple[str, ...], list[str]] = {}
    parents: list[str] = []
    for depth, label in toc:
        parents = [*parents[: depth - 1], label]
        siblings.setdefault(tuple(parents[:-1]), []).append(label)
    repeated = {p: [x for x in set(labels) if labels.count(x) > 1] for p, labels in siblings.items()}
    assert {p: r for p, r in repeated.items() if r} == {}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Client", "AsyncClient", "Router", "AsyncRouter"])
def test_the_clients_and_routers_document_every_public_method(reference: _Page, name: str):
    import holyclient

    cls = getattr(holyclient, name)
    left_out = set(_hook("griffe_public").SEND_PATH)
    expected = []
    for member in dir(cls):
        attr = inspect.getattr_static(cls, member)
        if member.startswith("_") or getattr(attr, "__name__", member) != member:
            continue  # private, or another name for a documented method (copy = with_options)
        if f"holyclient.{name}.{member}" not in left_out:
            expected.append(member)
    assert {"with_options", "usage", "request", "close"} <= set(expected)
    missing = [m for m in expected if f"holyclient.{name}.{m}" not in reference.anchors]
    assert missing == []


@pytest.mark.slow
def test_signatures_are_formatted_to_the_content_width_and_parameters_are_lists(reference: _Page):
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    found = re.search(r"^\s+line_length: (\d+)$", config, re.M)
    width = int(found.group(1)) if found else 60  # mkdocstrings' default
    assert width <= 72  # what fits the content column at 1280 px (checked in a browser)
    too_long = [line for s in reference.signatures for line in s.splitlines() if len(line) > width]
    assert too_long == []
    assert any(s.count("\n") > 10 for s in reference.signatures)  # one parameter a line when they do not fit
    # a four-column parameter table loses its Default column off the right edge of the content column
    assert reference.tables == 0


def test_the_docs_extra_installs_a_signature_formatter():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    assert any(re.match(r"(ruff|black)\b", requirement) for requirement in extras["docs"])
