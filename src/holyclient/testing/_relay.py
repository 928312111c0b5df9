"""The local server's relay profile: HolySheep's model catalogue and how each model family answers. No I/O
but reading two data files once.

``LocalServer(profile="holysheep")`` (``holyclient serve --profile holysheep``) plays the relay:

* ``/v1/models`` lists the models of holyclient's price table (``_data/models.json``: every name, alias
  and snapshot), and a request for any other model is refused as OpenAI refuses it (404
  ``model_not_found``), on chat, Responses, embeddings and completions alike;
* each model answers as its family does behind an OpenAI-compatible API, as the dated and sourced
  capabilities table (``_data/capabilities.json``) says: a ``rejected`` feature gets the 400 the source
  quotes (DeepSeek: ``json_schema`` -> "This response_format type is unavailable now", ``json_object``
  without the word "json" in a system or user message -> "Prompt must contain the word 'json'..."); an
  ``ignored`` one is dropped before answering (Claude answers a ``response_format`` in plain text and
  ``logprobs`` with none); ``only_one`` refuses ``n`` other than 1;
* each family reports usage in its own shape (the ``usage`` row: OpenAI's cache reads and writes,
  Claude's ``cache_read_input_tokens`` / ``cache_creation_input_tokens``, Gemini's thinking tokens
  beside the completion, DeepSeek's ``prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``; see
  :mod:`._usage_shapes`), ``deepseek-reasoner`` returns ``reasoning_content`` (see :mod:`._providers`);
* in ``json_object`` mode a model follows a JSON schema written in the prompt, as a real model asked to
  does: the answer is an instance of that schema.

Why this module reads the data files itself, with ``json`` and ``importlib.resources``: the local server
is standard library only and imports nothing of the client (an import-linter contract), so it cannot ask
``holyclient.pricing`` for the catalogue; the two files are the one source both sides read. The family
rule (lower-cased name after the last ``/``, longest ``match`` prefix) is the one
``holyclient._parsing._capabilities`` applies to the same file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from ._handlers import InvalidRequest
from ._handlers import instruction_texts as _instruction_texts
from ._prefill import prefill_of
from ._prompt_schema import prompt_schema
from ._usage_shapes import PromptCache, UsagePlan
from ._usage_shapes import plan as usage_plan

JSON = dict[str, Any]

PROFILES = ("default", "holysheep")


def _data(name: str) -> Any:
    return json.loads(resources.files("holyclient").joinpath("_data", name).read_text("utf-8"))


@lru_cache(maxsize=1)
def catalogue() -> tuple[str, ...]:
    """Every model name the relay serves: each price-table entry, then its aliases and snapshots."""
    names: list[str] = []
    for name, entry in _data("models.json")["models"].items():
        for model in (name, *entry.get("aliases", ()), *entry.get("snapshots", ())):
            if model not in names:
                names.append(model)
    return tuple(names)


@lru_cache(maxsize=1)
def _families() -> dict[str, JSON]:
    families: dict[str, JSON] = _data("capabilities.json")["families"]
    return families


@lru_cache(maxsize=256)
def features_of(model: str) -> Mapping[str, JSON]:
    """The capability rows of ``model``'s family; empty for a model in no family."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    best, best_len = None, 0
    for family, entry in _families().items():
        for prefix in entry["match"]:
            if name.startswith(prefix) and len(prefix) > best_len:
                best, best_len = family, len(prefix)
    return _families()[best]["features"] if best is not None else {}


class RelayError(InvalidRequest):
    """What the relay answers instead of a completion: its status, type and the source's wording."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(str(error["message"]), error.get("param"), error.get("code"))
        self.status = int(error.get("status", 400))
        self.type_ = str(error.get("type", "invalid_request_error"))


def unknown_model(model: object) -> RelayError:
    return RelayError(
        {
            "status": 404,
            "message": f"The model `{model}` does not exist or you do not have access to it.",
            "param": None,
            "code": "model_not_found",
        }
    )


def _says_json(texts: list[str]) -> bool:
    return any("json" in text.lower() for text in texts)


class Relay:
    """The relay profile of one server: which models it serves and how each family answers."""

    def __init__(self, models: tuple[str, ...]) -> None:
        self.models = frozenset(models)
        self._cache = PromptCache()

    def check_model(self, body: Mapping[str, Any]) -> Mapping[str, JSON]:
        """The capability rows of the body's model. Raises :class:`RelayError` 404 for a model not served."""
        model = body.get("model")
        if isinstance(model, str) and model and model not in self.models:
            raise unknown_model(model)
        return features_of(model) if isinstance(model, str) else {}

    def check(self, body: Mapping[str, Any], fmt: object, texts: list[str]) -> dict[str, Any]:
        """Raise what the model's family answers to this request; else the request as the model sees it.

        ``fmt`` is the requested output format (chat ``response_format`` or Responses ``text.format``),
        ``texts`` the system and user text (for the word "json").

        Raises:
            RelayError: an unknown model (404) or a rejected feature (the source's 400).
        """
        rows = self.check_model(body)
        seen = dict(body)
        kind = fmt.get("type") if isinstance(fmt, Mapping) else None
        for name, used in (
            ("json_schema", kind == "json_schema"),
            ("json_object", kind == "json_object"),
            ("n", body.get("n") not in (None, 1)),
            ("logprobs", bool(body.get("logprobs"))),
            ("assistant_prefill", prefill_of(body) is not None),
        ):
            row = rows.get(name)
            if not used or row is None:
                continue
            support = row["support"]
            if support in ("rejected", "only_one") or (
                support == "needs_json_word" and not _says_json(texts)
            ):
                raise RelayError(row["error"])
            if support == "ignored":
                seen["ignored:" + name] = True
        return seen

    def usage_plan(
        self,
        body: Mapping[str, Any],
        pieces: list[Any],
        tokens_of: Callable[[Any], int],
        completion_of: Callable[[], int],
        cost_factor: float | None,
    ) -> UsagePlan:
        """How the answer to ``body`` reports its usage: its family's shape (``usage`` row), the prompt
        cache's reads and writes of ``pieces`` (messages or input items), ``cost`` when reported."""
        model = body.get("model")
        if not isinstance(model, str):
            return UsagePlan(None)
        row = features_of(model).get("usage")
        shape = row.get("shape") if row is not None else None
        return usage_plan(shape, model, body, pieces, tokens_of, self._cache, completion_of, cost_factor)

    # -- per endpoint ---------------------------------------------------------------------------
    def chat(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A chat body as the model sees it: ignored fields dropped. Raises :class:`RelayError`."""
        texts = _instruction_texts(body.get("messages"))
        seen = self.check(body, body.get("response_format"), texts)
        if seen.pop("ignored:json_schema", False) or seen.pop("ignored:json_object", False):
            seen.pop("response_format", None)
        if seen.pop("ignored:logprobs", False):
            seen.pop("logprobs", None)
            seen.pop("top_logprobs", None)
        seen.pop("ignored:n", None)
        fmt = seen.get("response_format")
        if isinstance(fmt, Mapping) and fmt.get("type") == "json_object":
            schema = prompt_schema(texts)
            if schema is not None:
                seen["response_format"] = {"type": "json_schema", "json_schema": {"schema": schema}}
        return seen

    def responses(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A Responses body as the model sees it (``text.format`` as chat's ``response_format``)."""
        text = body.get("text")
        fmt = text.get("format") if isinstance(text, Mapping) else None
        source = body.get("input")
        texts = [str(body.get("instructions") or "")]
        if isinstance(source, str):
            texts.append(source)
        else:
            texts += _instruction_texts([item for item in source or () if isinstance(item, dict)])
        seen = self.check(body, fmt, texts)
        dropped = seen.pop("ignored:json_schema", False) or seen.pop("ignored:json_object", False)
        for key in [k for k in seen if k.startswith("ignored:")]:
            seen.pop(key)
        if dropped:
            seen["text"] = {k: v for k, v in dict(text or {}).items() if k != "format"}
        elif isinstance(fmt, Mapping) and fmt.get("type") == "json_object":
            schema = prompt_schema(texts)
            if schema is not None:
                seen["text"] = {**dict(text or {}), "format": {"type": "json_schema", "schema": schema}}
        return seen
