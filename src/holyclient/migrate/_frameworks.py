"""The frameworks' own spellings of an OpenAI client: each defaults to api.openai.com when it
is given no base URL, so each gets the relay's, or is listed with file:line when migrate cannot tell.

==============================================  =====================================================
constructor (qualified name)                     what migrate adds when no base URL is given
==============================================  =====================================================
pydantic-ai ``providers.openai.OpenAIProvider``  ``base_url=``, ``api_key=`` from HOLYSHEEP_API_KEY
Agents SDK ``agents.OpenAIProvider``             ``base_url=``, ``api_key=``
AutoGen ``OpenAIChatCompletionClient``           ``base_url=``, ``api_key=``
CrewAI ``LLM`` (an OpenAI model)                 ``base_url=``, ``api_key=``
DSPy ``dspy.LM("openai/...")``                   ``api_base=``, ``api_key=``
Haystack ``OpenAIChatGenerator`` and friends     ``api_base_url=``, ``api_key=Secret.from_env_var(...)``
Semantic Kernel ``OpenAIChatCompletion`` ...     ``async_client=AsyncOpenAI(base_url=, api_key=)``
==============================================  =====================================================

A constructor handed a client of its own (``openai_client=``, ``async_client=``) is configured where that
client is built. The Agents SDK's ``set_default_openai_client`` / ``set_default_openai_key`` get
``use_for_tracing=False`` (its traces would carry the HolySheep key to api.openai.com; the proof lists
where they still go). Dict configurations: Mem0's
``{"provider": "openai", "config": {...}}`` gets ``openai_base_url``, AutoGen 0.2's
``{"model": "gpt-...", "api_key": ...}`` entries get ``base_url``. Whether each site then reaches the relay
with HolySheep's key -- an Agent on the default client, pydantic-ai's ``"openai:..."`` model strings, a
literal key beside the URL -- is the proof's to say (``_proof``), not these rules'.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ._rules import NEW_KEY

if TYPE_CHECKING:
    from ._edits import Edit
    from ._pynames import Names
    from ._pysource import Pos
    from ._report import Finding
    from ._rules import KeyMode


@dataclass(frozen=True)
class Framework:
    label: str
    base_kw: str  # the keyword migrate adds ("" for Semantic Kernel: it injects async_client=)
    base_kws: frozenset[str]  # any of these given: the base URL is set
    key_kw: str
    skip_kws: frozenset[str] = frozenset()  # a client handed in: configured where it is built
    key: str = "env"  # "env": os.environ[...]; "secret": Haystack's Secret.from_env_var(...)
    model: str = ""  # "litellm": the model string picks the provider (DSPy, CrewAI)


_PROVIDER = Framework(
    "OpenAIProvider", "base_url", frozenset({"base_url"}), "api_key", frozenset({"openai_client"})
)
_HAYSTACK = Framework("", "api_base_url", frozenset({"api_base_url"}), "api_key", key="secret")
_SK = Framework("", "", frozenset({"async_client"}), "api_key", frozenset({"async_client"}))
_BY_NAME: dict[tuple[str, str], Framework] = {
    ("pydantic_ai", "OpenAIProvider"): _PROVIDER,
    ("agents", "OpenAIProvider"): _PROVIDER,
    ("autogen_ext", "OpenAIChatCompletionClient"): Framework(
        "OpenAIChatCompletionClient", "base_url", frozenset({"base_url"}), "api_key"
    ),
    ("crewai", "LLM"): Framework(
        "LLM", "base_url", frozenset({"base_url", "api_base"}), "api_key", model="litellm"
    ),
    ("dspy", "LM"): Framework(
        "dspy.LM", "api_base", frozenset({"api_base", "base_url"}), "api_key", model="litellm"
    ),
}
for _cls in ("OpenAIChatGenerator", "OpenAIGenerator", "OpenAITextEmbedder", "OpenAIDocumentEmbedder"):
    _BY_NAME[("haystack", _cls)] = _HAYSTACK
for _cls in (
    "OpenAIChatCompletion",
    "OpenAITextCompletion",
    "OpenAITextEmbedding",
    "OpenAITextToImage",
    "OpenAIAudioToText",
    "OpenAITextToAudio",
):
    _BY_NAME[("semantic_kernel", _cls)] = _SK


class FrameworkState(Protocol):
    """What :func:`configure` reads and extends of the Python rewriter."""

    text: str
    keys: KeyMode
    pos: Pos
    names: Names
    calls: list[ast.Call]
    dicts: list[ast.Dict]
    edits: list[Edit[str]]
    findings: list[Finding]

    def line(self, offset: int) -> int: ...
    def in_excluded(self, offset: int) -> bool: ...
    def base_url(self, slash: bool = False) -> str: ...
    def os_environ(self) -> str: ...
    def literal_key(self, line: int, what: str, value: ast.expr | None) -> None: ...
    def reaches_relay(self, line: int, value: ast.expr) -> bool: ...
    def add_arguments(self, call: ast.Call, start: int, end: int, new: list[str]) -> None: ...
    def add_items(self, items: list[Any], open_: int, end: int, new: list[str]) -> None: ...
    def insert_import(self, statement: str) -> None: ...


def _lookup(qualified: str | None) -> Framework | None:
    if not qualified:
        return None
    module, _, cls = qualified.rpartition(".")
    return _BY_NAME.get((module.split(".")[0], cls))


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def configure(self: FrameworkState) -> None:
    """Every framework constructor, Agents SDK default and known config dict of the module."""
    imported = {q.split(".")[0] for q in self.names.bound.values()}
    if not imported & {
        "pydantic_ai",
        "agents",
        "autogen_ext",
        "autogen",
        "crewai",
        "dspy",
        "haystack",
        "semantic_kernel",
        "mem0",
    }:
        return
    for call in self.calls:
        q = self.names.qualname(call.func)
        framework = _lookup(q)
        if framework is not None and q is not None:
            _constructor(self, call, framework, q)
        elif q in ("agents.set_default_openai_client", "agents.set_default_openai_key"):
            _no_tracing_key(self, call, q)
        elif q == "pydantic_ai.Agent":
            _model_string(self, call)
    if imported & {"mem0", "autogen"}:
        for d in self.dicts:
            _config_dict(self, d, mem0="mem0" in imported, autogen="autogen" in imported)


def _constructor(self: FrameworkState, call: ast.Call, fw: Framework, q: str) -> None:
    start, end = self.pos.node(call)
    if self.in_excluded(start):
        return
    line = self.line(start)
    label = fw.label or q.rpartition(".")[2]
    kwargs = {k.arg: k.value for k in call.keywords if k.arg}
    if fw.skip_kws & kwargs.keys():
        return
    self.literal_key(line, f"{label}()", kwargs.get(fw.key_kw))
    if any(k.arg is None for k in call.keywords):
        return  # the proof lists it (kwargs-constructor)
    base = next((kwargs[k] for k in fw.base_kws if k in kwargs), None)
    if base is not None:
        if (
            fw.key_kw not in kwargs
            and self.keys == "rename"
            and fw.key != "secret"
            and self.reaches_relay(line, base)
        ):
            # the literal URL is pointed at the relay: the key the framework reads by default is OpenAI's
            self.add_arguments(call, start, end, [f'{fw.key_kw}={self.os_environ()}["{NEW_KEY}"]'])
            self.findings.append(
                (line, "framework", "rewrite", f"{label}() had a base URL and no key: added {fw.key_kw}")
            )
        elif fw.key_kw not in kwargs and self.keys == "rename" and self.reaches_relay(line, base):
            local = _local(self, "haystack.utils.Secret", "from haystack.utils import Secret", "Secret")
            self.add_arguments(call, start, end, [f'{fw.key_kw}={local}.from_env_var("{NEW_KEY}")'])
            self.findings.append(
                (line, "framework", "rewrite", f"{label}() had a base URL and no key: added {fw.key_kw}")
            )
        return
    if fw.model == "litellm":
        model = _string(call.args[0] if call.args else kwargs.get("model"))
        if model is None:
            self.findings.append(
                (
                    line,
                    "framework",
                    "review",
                    f"{label}() model is computed at run time: if it is an OpenAI model, pass {fw.base_kw}= for the relay",
                )
            )
            return
        if "/" in model and not model.startswith("openai/"):
            return  # another provider, through litellm

    def key() -> str:  # os.environ[...] only where it is written: reading it may import os
        return self.os_environ() + f'["{NEW_KEY}"]'

    if not fw.base_kw:  # Semantic Kernel: no base-URL argument, a client of our own instead
        api_key = key()
        local = _local(self, "openai.AsyncOpenAI", "from openai import AsyncOpenAI", "AsyncOpenAI")
        new = [f"async_client={local}(base_url={self.base_url()}, api_key={api_key})"]
        what = "async_client=AsyncOpenAI(...) for the relay"
    else:
        new = [f"{fw.base_kw}={self.base_url()}"]
        what = fw.base_kw
        if fw.key_kw not in kwargs and self.keys == "rename":
            if fw.key == "secret":
                local = _local(self, "haystack.utils.Secret", "from haystack.utils import Secret", "Secret")
                new.append(f'{fw.key_kw}={local}.from_env_var("{NEW_KEY}")')
            else:
                new.append(f"{fw.key_kw}={key()}")
            what += f" and {fw.key_kw} from {NEW_KEY}"
    self.add_arguments(call, start, end, new)
    self.findings.append((line, "framework", "rewrite", f"{label}() had no base URL: added {what}"))


def _local(self: FrameworkState, qualified: str, statement: str, name: str) -> str:
    """The module's name for ``qualified``, importing it once when it has none."""
    found = self.names.local_for(qualified) or (
        self.names.local_for("haystack.utils.auth.Secret") if name == "Secret" else None
    )
    if found:
        return found
    self.insert_import(statement)
    self.names.bound[name] = qualified  # the next constructor finds it
    return name


def _model_string(self: FrameworkState, call: ast.Call) -> None:
    """pydantic-ai's ``Agent("openai:gpt-4o")`` builds its provider from ``OPENAI_BASE_URL`` and
    ``OPENAI_API_KEY``, which the shell may export whatever an env file says: the model gets a provider of
    its own (``infer_model`` keeps the model class the string stands for in the installed version)."""
    model = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "model"), None)
    text = _string(model)
    if model is None or text is None or self.keys != "rename" or self.in_excluded(self.pos.node(call)[0]):
        return
    if not text.startswith(("openai:", "openai-chat:", "openai-responses:")):
        return
    infer = _local(
        self, "pydantic_ai.models.infer_model", "from pydantic_ai.models import infer_model", "infer_model"
    )
    provider = _local(
        self,
        "pydantic_ai.providers.openai.OpenAIProvider",
        "from pydantic_ai.providers.openai import OpenAIProvider",
        "OpenAIProvider",
    )
    start, end = self.pos.node(model)
    factory = f'lambda _: {provider}(base_url={self.base_url()}, api_key={self.os_environ()}["{NEW_KEY}"])'
    self.edits.append((start, end, f"{infer}({self.text[start:end]}, {factory})"))
    self.findings.append(
        (
            self.line(start),
            "framework",
            "rewrite",
            f"pydantic-ai {text!r}: a provider for the relay with the key from {NEW_KEY} (the default one reads "
            "OPENAI_BASE_URL / OPENAI_API_KEY)",
        )
    )


def _no_tracing_key(self: FrameworkState, call: ast.Call, q: str) -> None:
    if any(k.arg in ("use_for_tracing", None) for k in call.keywords) or len(call.args) > 1:
        return
    start, end = self.pos.node(call)
    self.add_arguments(call, start, end, ["use_for_tracing=False"])
    self.findings.append(
        (
            self.line(start),
            "framework",
            "rewrite",
            f"{q.rpartition('.')[2]}(): added use_for_tracing=False, so the Agents SDK's traces do not carry "
            "the HolySheep key to api.openai.com",
        )
    )


def _config_dict(self: FrameworkState, d: ast.Dict, *, mem0: bool, autogen: bool) -> None:
    keys = {k.value: v for k, v in zip(d.keys, d.values, strict=True) if isinstance(k, ast.Constant)}
    if mem0 and keys.get("provider") is not None and _string(keys["provider"]) == "openai":
        config = keys.get("config")
        if isinstance(config, ast.Dict):
            inner = {k.value for k in config.keys if isinstance(k, ast.Constant)}
            if "openai_base_url" not in inner and not any(k is None for k in config.keys):
                new = [f'"openai_base_url": {self.base_url()}']
                if "api_key" not in inner and self.keys == "rename":
                    new.append(f'"api_key": {self.os_environ()}["{NEW_KEY}"]')
                _add_to_dict(self, config, new, "Mem0 openai config: added openai_base_url")
        return
    model = _string(keys.get("model"))
    if (
        autogen
        and model is not None
        and "api_key" in keys
        and not {"base_url", "api_base", "api_type"} & keys.keys()
        and model.startswith(("gpt-", "o1", "o3", "o4"))
        and not any(k is None for k in d.keys)
    ):
        _add_to_dict(self, d, [f'"base_url": {self.base_url()}'], "AutoGen config entry: added base_url")


def _add_to_dict(self: FrameworkState, d: ast.Dict, new: list[str], what: str) -> None:
    start, end = self.pos.node(d)
    if self.in_excluded(start):
        return
    items = [x for pair in zip(d.keys, d.values, strict=True) for x in pair if x is not None]
    self.add_items(items, start, end, new)
    self.findings.append((self.line(start), "framework", "rewrite", what))
