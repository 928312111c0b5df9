"""Every Python client spelling migrate knows, in one table: for each client class, which keywords carry
its base URL and key, what it reads when they are missing (its own defaults, as provenance sources),
and which keywords hand it a client instead. The proof's extractor (``_pysinks``) reads it; the
rewriters' tables (``_pynames``, ``_frameworks``) are checked against it by a test."""

from __future__ import annotations

from dataclasses import dataclass

from . import _provenance as pv
from ._facts import HOLY_KEY, HOLY_URL, OPENAI_API_BASE, OPENAI_KEY, OPENAI_URL

_LITELLM_URL: pv.Src = pv.Env("OPENAI_API_BASE", OPENAI_URL)
_LLAMA_URL: pv.Src = pv.Env("OPENAI_API_BASE", pv.Lit(pv.OPENAI, pv.NONE))


@dataclass(frozen=True)
class Spelling:
    """How one client class takes its base URL and key, and what it reads without them."""

    url_kws: tuple[str, ...]
    key_kws: tuple[str, ...]
    url_default: pv.Src
    key_default: pv.Src
    sdk: str = "openai"
    client_kws: tuple[str, ...] = ()  # a client handed in instead: configured where it is built
    model: str = ""  # "litellm": only an OpenAI model string makes it an OpenAI client


OPENAI_SDK = Spelling(("base_url",), ("api_key",), OPENAI_URL, OPENAI_KEY)
HOLYCLIENT = Spelling(("base_url",), ("api_key",), HOLY_URL, HOLY_KEY, sdk="holyclient")
LANGCHAIN = Spelling(
    ("base_url", "openai_api_base"),
    ("api_key", "openai_api_key"),
    OPENAI_API_BASE,
    OPENAI_KEY,
    client_kws=("client", "async_client", "root_client", "root_async_client"),
)
LLAMA_INDEX = Spelling(("api_base", "base_url"), ("api_key",), _LLAMA_URL, OPENAI_KEY)
PROVIDER = Spelling(("base_url",), ("api_key",), OPENAI_URL, OPENAI_KEY, client_kws=("openai_client",))
AUTOGEN = Spelling(("base_url",), ("api_key",), OPENAI_URL, OPENAI_KEY)
LITELLM = Spelling(("base_url", "api_base"), ("api_key",), _LITELLM_URL, OPENAI_KEY, model="litellm")
HAYSTACK = Spelling(("api_base_url",), ("api_key",), OPENAI_URL, pv.Env("OPENAI_API_KEY", required=True))
SEMANTIC_KERNEL = Spelling((), ("api_key",), OPENAI_URL, OPENAI_KEY, client_kws=("async_client",))

_SDK_CLASSES = {"OpenAI", "AsyncOpenAI", "Client", "AsyncClient"}
_BY_NAME: dict[tuple[str, str], Spelling] = {
    ("pydantic_ai", "OpenAIProvider"): PROVIDER,
    ("agents", "OpenAIProvider"): PROVIDER,
    ("autogen_ext", "OpenAIChatCompletionClient"): AUTOGEN,
    ("crewai", "LLM"): LITELLM,
    ("dspy", "LM"): LITELLM,
}
for _cls in ("ChatOpenAI", "OpenAI", "OpenAIEmbeddings", "OpenAIChat"):
    for _top in ("langchain_openai", "langchain", "langchain_community"):
        _BY_NAME[(_top, _cls)] = LANGCHAIN
for _cls in ("OpenAI", "OpenAIEmbedding"):
    _BY_NAME[("llama_index", _cls)] = LLAMA_INDEX
for _cls in ("OpenAIChatGenerator", "OpenAIGenerator", "OpenAITextEmbedder", "OpenAIDocumentEmbedder"):
    _BY_NAME[("haystack", _cls)] = HAYSTACK
for _cls in (
    "OpenAIChatCompletion",
    "OpenAITextCompletion",
    "OpenAITextEmbedding",
    "OpenAITextToImage",
    "OpenAIAudioToText",
    "OpenAITextToAudio",
):
    _BY_NAME[("semantic_kernel", _cls)] = SEMANTIC_KERNEL
#: frameworks that take a client object: what they are handed must be a genuine openai client
FRAMEWORKS = frozenset(
    {
        "instructor",
        "langchain",
        "langchain_openai",
        "langchain_community",
        "llama_index",
        "pydantic_ai",
        "agents",
        "autogen_ext",
        "autogen",
        "crewai",
        "dspy",
        "haystack",
        "semantic_kernel",
        "mem0",
        "litellm",
        "marvin",
        "guidance",
        "outlines",
    }
)
AGENTS_ONLY = {
    "Runner",
    "function_tool",
    "RunConfig",
    "ModelSettings",
    "OpenAIChatCompletionsModel",
    "OpenAIResponsesModel",
    "set_default_openai_client",
    "set_default_openai_key",
    "set_default_openai_api",
    "handoff",
    "trace",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
}


def spelling_for(qualified: str | None) -> Spelling | None:
    if not qualified:
        return None
    module, _, cls = qualified.rpartition(".")
    top = module.split(".")[0]
    if module == "openai" and cls in _SDK_CLASSES:
        return OPENAI_SDK
    if module == "holyclient" and cls in _SDK_CLASSES:
        return HOLYCLIENT
    return _BY_NAME.get((top, cls))


def leaves(src: pv.Src) -> list[pv.Src]:
    """The sources a tree of alternatives and fallbacks ends in."""
    out: list[pv.Src] = []
    stack: list[pv.Src] = [src]
    while stack:
        s = stack.pop()
        if isinstance(s, pv.OneOf):
            stack.extend(s.options)
        elif isinstance(s, pv.Fallback):
            stack.extend((s.primary, s.default))
        elif isinstance(s, pv.Env):
            out.append(s)
            if s.default is not None:
                stack.append(s.default)
        elif isinstance(s, pv.Table):
            stack.extend(v for _, v in s.items)
        elif isinstance(s, pv.At):
            stack.append(s.source)
        else:
            out.append(s)
    return out
