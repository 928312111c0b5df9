"""Every ``openai.types`` module path and public name a relay user can meet imports from ``holyclient.types``.

The installed openai package is walked here, independently of the generator's manifest, so a name openai
adds shows up as a failure naming it until ``scripts/gen_types_manifest.py`` and ``gen_types.py`` are rerun.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import openai.types
import pytest

import holyclient.types

ROOT = Path(__file__).resolve().parent.parent

#: The areas walked: what holyclient's endpoints send and return.
AREAS = ("chat", "audio", "responses", "shared", "shared_params")
TOP_LEVEL = ("completion", "embedding", "create_embedding", "model", "moderation", "image", "file", "batch")
TOP_LEVEL += ("audio_", "chat_model")

#: Left out on purpose, each for the reason given: HolySheep does not relay these endpoints, so no
#: holyclient call sends or returns these types.
EXCLUDED_AREAS = {
    "admin": "organisation administration",
    "beta": "assistants and threads (deprecated by OpenAI, not relayed)",
    "containers": "code-interpreter containers",
    "conversations": "stored conversations",
    "evals": "evals",
    "fine_tuning": "fine-tuning jobs",
    "graders": "grader models for evals and fine-tuning",
    "live": "live (realtime-style) sessions",
    "realtime": "realtime WebSocket sessions",
    "safety": "safety-decision endpoints",
    "skills": "hosted skills",
    "uploads": "multi-part uploads",
    "vector_stores": "vector stores",
    "webhooks": "webhook payloads",
}
EXCLUDED_TOP_LEVEL = (
    *("auto_file_chunking", "other_file_chunking", "static_file_chunking"),  # vector-store chunking
    *("container_", "content_provenance", "decision", "deleted_skill", "eval_", "skill"),
    *("upload", "vector_store", "video", "websocket_"),
)


def _openai_modules() -> list[str]:
    found = ["openai.types"]
    base = Path(openai.types.__file__).parent
    for area in AREAS:
        found.append(f"openai.types.{area}")
        found += [m.name for m in pkgutil.walk_packages([str(base / area)], prefix=f"openai.types.{area}.")]
    found += [f"openai.types.{p.stem}" for p in sorted(base.glob("*.py")) if p.stem.startswith(TOP_LEVEL)]
    return found


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and not isinstance(v, ModuleType) and n != "annotations"
    ]


def _area_values() -> set[int]:
    values: set[int] = set()
    for dotted in _openai_modules()[1:]:
        module = importlib.import_module(dotted)
        values |= {id(getattr(module, n)) for n in _public_names(module)}
    return values


def _wanted() -> list[tuple[str, str]]:
    """(holyclient module, name) for every public name of the walked openai modules."""
    wanted = []
    in_areas = _area_values()
    for dotted in _openai_modules():
        module = importlib.import_module(dotted)
        target = "holyclient" + dotted.removeprefix("openai")
        for name in _public_names(module):
            if dotted == "openai.types" and id(getattr(module, name)) not in in_areas:
                continue  # a top-level name of an excluded area
            wanted.append((target, name))
    return wanted


def test_every_openai_types_module_and_name_of_the_relayed_areas_imports_from_holyclient() -> None:
    wanted = _wanted()
    missing: list[str] = []
    for target, name in wanted:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            if f"{target} (module: {exc})" not in missing:
                missing.append(f"{target} (module: {exc})")
            continue
        if not hasattr(module, name):
            missing.append(f"{target}.{name}")
    assert len(wanted) > 1500, f"the walk found only {len(wanted)} names: is openai installed whole?"
    assert not missing, f"{len(missing)} of {len(wanted)} missing:\n" + "\n".join(missing)


def test_no_openai_types_area_is_skipped_without_a_reason() -> None:
    base = Path(openai.types.__file__).parent
    packages = {p.parent.name for p in base.glob("*/__init__.py")}
    assert packages - set(AREAS) - set(EXCLUDED_AREAS) == set()
    modules = {p.stem for p in base.glob("*.py") if p.stem != "__init__"}
    unlisted = {m for m in modules if not m.startswith(TOP_LEVEL) and not m.startswith(EXCLUDED_TOP_LEVEL)}
    assert unlisted == set()


def test_the_deep_paths_apps_use_import() -> None:
    from holyclient.types.chat import ChatCompletionMessageParam
    from holyclient.types.chat.chat_completion import Choice
    from holyclient.types.responses.tool_param import ToolParam
    from holyclient.types.shared_params import FunctionDefinition

    assert Choice and ToolParam and ChatCompletionMessageParam
    theirs = openai.types.shared_params.FunctionDefinition
    assert FunctionDefinition.__required_keys__ == theirs.__required_keys__
    assert FunctionDefinition.__optional_keys__ == theirs.__optional_keys__


def test_hand_written_models_stay_the_one_definition() -> None:
    from holyclient.types import _chat, _responses
    from holyclient.types.chat import chat_completion, chat_completion_chunk
    from holyclient.types.responses import response, response_output_text

    assert chat_completion.ChatCompletion is _chat.ChatCompletion
    assert chat_completion.Choice is _chat.Choice
    assert chat_completion_chunk.Choice is _chat.ChunkChoice  # named differently, found by its fields
    assert response.Response is _responses.Response
    assert response_output_text.ResponseOutputText is _responses.ResponseOutputText


def test_names_the_old_modules_offered_still_import() -> None:
    from holyclient.types.chat import ChatCompletionRequest, ChunkChoice
    from holyclient.types.shared import CompletionUsage

    assert ChatCompletionRequest and ChunkChoice and CompletionUsage is holyclient.types.CompletionUsage


def _load_script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen() -> Any:
    return _load_script("gen_types")


def test_the_generated_tree_matches_the_spec_and_the_hand_written_models(gen: Any) -> None:
    expected = gen.expected_files()
    on_disk = {str(p.relative_to(gen.TYPES)) for p in gen.generated_on_disk()}
    stale = sorted(rel for rel, text in expected.items() if (gen.TYPES / rel).read_text() != text)
    assert not stale, "rerun python scripts/gen_types.py; stale: " + ", ".join(stale[:20])
    assert on_disk == set(expected), sorted(on_disk ^ set(expected))


def test_a_model_added_to_a_new_private_module_is_re_exported_where_openai_has_it(gen: Any) -> None:
    manifest = {m: v["names"] for m, v in __import__("json").loads(gen.MANIFEST.read_text()).items()}
    index = gen.SpecIndex(gen.load_spec(gen.DEFAULT_SPEC))
    own = gen.handwritten()
    assert {"_chat", "_responses", "_audio", "_shared"} <= {info["module"] for info in own.values()}
    own["_stored_chat.ChatCompletionDeleted"] = {
        "module": "_stored_chat",
        "name": "ChatCompletionDeleted",
        "fields": ["id", "object", "deleted"],
        "kind": "model",
    }
    claims = gen.match_handwritten(manifest, index, own)
    assert (
        claims[("chat.chat_completion_deleted", "ChatCompletionDeleted")]
        == "_stored_chat.ChatCompletionDeleted"
    )


def test_importing_holyclient_loads_none_of_the_generated_modules() -> None:
    code = "import sys, holyclient; print(sorted(m for m in sys.modules if m.startswith('holyclient.types')))"
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "src")},
    ).stdout
    assert out.strip() == "[]"
