"""Qualified names for a Python module, LibCST-style but over ``ast``: which local name means
``openai.OpenAI``, ``langchain_openai.ChatOpenAI`` or ``llama_index.llms.openai.OpenAI``.

Imports anywhere in the module count (a function-level ``from openai import OpenAI`` is common);
scoping is ignored on purpose: a name imported from two different places in one module is ambiguous
and we resolve it to the last import, which is what a reader would assume too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# classes openai-python re-exports at top level that build a client talking to api.openai.com
_SDK = {"OpenAI", "AsyncOpenAI", "Client", "AsyncClient"}
_LANGCHAIN = {"ChatOpenAI", "OpenAI", "OpenAIEmbeddings", "OpenAIChat"}
_LLAMA = {"OpenAI", "OpenAIEmbedding"}
V0_RESOURCES = {
    "ChatCompletion",
    "Completion",
    "Embedding",
    "Image",
    "Audio",
    "Moderation",
    "Edit",
    "FineTune",
    "File",
    "Model",
    "Engine",
}
V1_RESOURCES = {
    "chat",
    "completions",
    "embeddings",
    "images",
    "audio",
    "moderations",
    "files",
    "models",
    "fine_tuning",
    "beta",
    "batches",
    "responses",
    "uploads",
    "vector_stores",
}
AZURE_KWARGS = {
    "api_version",
    "openai_api_version",
    "openai_api_type",
    "api_type",
    "deployment_name",
    "deployment_id",
    "engine",
}


@dataclass(frozen=True)
class Target:
    """How one client class takes its base URL and key."""

    family: str
    base_kw: str
    key_kw: str
    base_kws: frozenset[str]
    key_kws: frozenset[str]


SDK = Target("openai", "base_url", "api_key", frozenset({"base_url"}), frozenset({"api_key"}))
LANGCHAIN_OPENAI = Target(
    "langchain_openai",
    "base_url",
    "api_key",
    frozenset({"base_url", "openai_api_base"}),
    frozenset({"api_key", "openai_api_key"}),
)
LANGCHAIN_LEGACY = Target(
    "langchain",
    "openai_api_base",
    "openai_api_key",
    frozenset({"base_url", "openai_api_base"}),
    frozenset({"api_key", "openai_api_key"}),
)
LLAMA_INDEX = Target(
    "llama_index", "api_base", "api_key", frozenset({"api_base", "base_url"}), frozenset({"api_key"})
)


class Names:
    """Local name -> qualified name, from the module's absolute imports."""

    def __init__(self, imports: list[ast.Import | ast.ImportFrom]) -> None:
        self.bound: dict[str, str] = {}
        self.import_of: dict[str, ast.Import | ast.ImportFrom] = {}
        self.star: set[str] = set()
        for node in imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.bound[local] = alias.name if alias.asname else local
                    self.import_of[local] = node
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    if alias.name == "*":
                        self.star.add(node.module)
                        continue
                    local = alias.asname or alias.name
                    self.bound[local] = f"{node.module}.{alias.name}"
                    self.import_of[local] = node

    def qualname(self, expr: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self.bound.get(expr.id)
        if base is None:
            if "openai" in self.star and expr.id in _SDK:
                base = f"openai.{expr.id}"
            else:
                return None
        return ".".join([base, *reversed(parts)])

    def local_for(self, qualified: str) -> str | None:
        """A local expression that evaluates to ``qualified`` (e.g. ``os`` or ``environ``), if any."""
        for local, q in self.bound.items():
            if q == qualified:
                return local
        return None


def target_for(qualified: str | None) -> Target | None:
    if not qualified:
        return None
    module, _, cls = qualified.rpartition(".")
    top = module.split(".")[0]
    if module == "openai" and cls in _SDK:
        return SDK
    if top == "langchain_openai" and cls in _LANGCHAIN:
        return LANGCHAIN_OPENAI
    if top in ("langchain", "langchain_community") and cls in _LANGCHAIN:
        return LANGCHAIN_LEGACY
    if top == "llama_index" and cls in _LLAMA:
        return LLAMA_INDEX
    return None


def is_azure_call(call: ast.Call, qualified: str | None) -> bool:
    name = qualified or (
        call.func.attr
        if isinstance(call.func, ast.Attribute)
        else call.func.id
        if isinstance(call.func, ast.Name)
        else ""
    )
    if "Azure" in name.rpartition(".")[2]:
        return True
    return any(k.arg and (k.arg.startswith("azure") or k.arg in AZURE_KWARGS) for k in call.keywords)


def mentions_azure(test: ast.expr) -> bool:
    """``if api_type == "azure":`` and friends: the branch body belongs to Azure and is left alone."""
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.lower().startswith("azure")
        for n in ast.walk(test)
    )


def sets_azure_type(target: ast.expr, value: ast.expr) -> bool:
    """``openai.api_type = "azure_ad"``, ``os.environ["OPENAI_API_TYPE"] = "azure"`` (also as the first
    two arguments of ``setdefault``/``putenv``): the whole file talks to Azure."""
    if isinstance(target, ast.Subscript):
        target = target.slice
    named = (
        isinstance(target, ast.Attribute) and target.attr.lower() in ("api_type", "openai_api_type")
    ) or (
        isinstance(target, ast.Constant)
        and isinstance(target.value, str)
        and target.value.upper() == "OPENAI_API_TYPE"
    )
    return named and mentions_azure(value)


def negated(test: ast.expr) -> bool:
    """``x != "azure"`` / ``x not in (...)``: the Azure side of the branch is the ``else``."""
    return isinstance(test, ast.Compare) and isinstance(test.ops[0], (ast.NotEq, ast.IsNot, ast.NotIn))
