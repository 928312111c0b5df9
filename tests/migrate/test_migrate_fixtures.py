"""Before/after fixture pairs: every form the codemod rewrites, every case it must leave alone, and
the same inputs with CRLF line breaks, a UTF-8 BOM or a legacy encoding."""

from __future__ import annotations

import ast
import codecs
import json

import pytest
from migrate_support import pairs

from holyclient.migrate import process

PAIRS = pairs()
IDS = [name for name, _, _ in PAIRS]


@pytest.mark.parametrize(("name", "before", "after"), PAIRS, ids=IDS)
def test_fixture_is_rewritten_to_its_after_file_byte_for_byte(name: str, before: bytes, after: bytes) -> None:
    result = process(name, before)
    assert result.after == after
    assert result.status == ("changed" if before != after else "unchanged")
    assert all(site.action != "error" for site in result.sites)


@pytest.mark.parametrize(("name", "before", "after"), PAIRS, ids=IDS)
def test_second_run_changes_nothing(name: str, before: bytes, after: bytes) -> None:
    again = process(name, after)
    assert again.status == "unchanged"
    assert [s for s in again.sites if s.action == "rewrite"] == []


@pytest.mark.parametrize(("name", "before", "after"), PAIRS, ids=IDS)
def test_crlf_files_keep_crlf_everywhere(name: str, before: bytes, after: bytes) -> None:
    crlf = process(name, before.replace(b"\n", b"\r\n"))
    assert crlf.after == after.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(("name", "before", "after"), PAIRS, ids=IDS)
def test_utf8_bom_is_kept(name: str, before: bytes, after: bytes) -> None:
    assert process(name, codecs.BOM_UTF8 + before).after == codecs.BOM_UTF8 + after


PYTHON = [p for p in PAIRS if p[0].endswith(".py")]


@pytest.mark.parametrize(("name", "before", "after"), PYTHON, ids=[p[0] for p in PYTHON])
@pytest.mark.parametrize("variant", ["lf", "crlf", "bom"])
def test_python_results_still_parse(name: str, before: bytes, after: bytes, variant: str) -> None:
    source = {
        "lf": before,
        "crlf": before.replace(b"\n", b"\r\n"),
        "bom": codecs.BOM_UTF8 + before,
    }[variant]
    result = process(name, source)
    assert result.status == ("changed" if before != after else "unchanged")
    assert not [s for s in result.sites if s.action == "error"]
    # compile, not just parse: also catches what only the compiler rejects (a repeated keyword argument)
    compile(result.after, name, "exec", dont_inherit=True)


AZURE = [p for p in PAIRS if "azure" in p[0]]


@pytest.mark.parametrize(("name", "before", "after"), AZURE, ids=[p[0] for p in AZURE])
def test_azure_configured_files_keep_their_openai_key_names(name: str, before: bytes, after: bytes) -> None:
    """Each spelling is its own fixture, so a detector that only knows one of them fails here."""
    result = process(name, before)
    assert result.status == "unchanged" and result.after == before
    assert b"HOLYSHEEP" not in result.after
    if not name.endswith(".py"):
        assert {(s.kind, s.action) for s in result.sites} == {("key", "review")}
        assert all("Azure" in s.message for s in result.sites)


def test_azure_urls_of_another_provider_entry_do_not_make_the_file_azure() -> None:
    _, before, after = next(p for p in PAIRS if p[0] == ".env.both-providers")
    assert process(".env.both-providers", before).after == after
    assert after.startswith(b"HOLYSHEEP_API_KEY=")


def test_notebook_outputs_and_layout_are_untouched() -> None:
    _, before, after = next(p for p in PAIRS if p[0].endswith(".ipynb"))
    old, new = json.loads(before), json.loads(after)
    assert [c.get("outputs") for c in old["cells"]] == [c.get("outputs") for c in new["cells"]]
    assert b"POST https://api.openai.com/v1/chat/completions" in after  # an output, kept
    assert b'Caf\\u00e9 demo \\"quoted\\"' in after  # escapes kept as written
    code = "".join(new["cells"][2]["source"])
    assert 'base_url="https://api.holysheep.ai/v1"' in code
    ast.parse(code.replace("!curl", "#curl"))


def test_latin1_python_maps_columns_after_non_ascii_text() -> None:
    src = (
        "# -*- coding: latin-1 -*-\n"
        "from openai import OpenAI\n"
        "NAME = 'caf\xe9'; URL = 'https://api.openai.com/v1'\n"
        "client = OpenAI(default_headers={'x-caf\xe9': '\xe9'})\n"
    ).encode("latin-1")
    result = process("legacy.py", src)
    assert result.after == (
        "# -*- coding: latin-1 -*-\n"
        "import os\n"
        "from openai import OpenAI\n"
        "NAME = 'caf\xe9'; URL = 'https://api.holysheep.ai/v1'\n"
        "client = OpenAI(default_headers={'x-caf\xe9': '\xe9'}, base_url=\"https://api.holysheep.ai/v1\", "
        'api_key=os.environ["HOLYSHEEP_API_KEY"])\n'
    ).encode("latin-1")


def test_utf8_python_with_wide_characters_before_the_edit() -> None:
    src = "import os\nfrom openai import OpenAI\nc = OpenAI(default_headers={'x': '日本語 🐑'})\n".encode()
    after = process("wide.py", src).after.decode()
    assert after.endswith(
        "c = OpenAI(default_headers={'x': '日本語 🐑'}, base_url=\"https://api.holysheep.ai/v1\", "
        'api_key=os.environ["HOLYSHEEP_API_KEY"])\n'
    )


def test_legacy_encoded_text_file_is_edited_without_decoding() -> None:
    src = "caf\xe9: https://api.openai.com/v1  \t\n".encode("cp1252")
    assert process("notes.txt", src).after == "caf\xe9: https://api.holysheep.ai/v1  \t\n".encode("cp1252")


def test_file_without_final_newline_keeps_it_missing() -> None:
    assert process("a.md", b"see https://api.openai.com/v1").after == b"see https://api.holysheep.ai/v1"


def test_keys_report_mode_renames_nothing_and_reports_each_site() -> None:
    src = b'import os\nfrom openai import OpenAI\nc = OpenAI(api_key=os.environ["OPENAI_API_KEY"])\n'
    result = process("k.py", src, keys="report")
    assert b"OPENAI_API_KEY" in result.after and b"HOLYSHEEP" not in result.after
    assert [(s.line, s.kind, s.action) for s in result.sites if s.kind == "key"] == [(3, "key", "review")]


def test_implicit_key_is_reported_in_report_mode() -> None:
    # --keys report gives the client no key, so with the relay's URL it would send OPENAI_API_KEY there:
    # the proof keeps the file as it was and lists the site (issue 39 item 1)
    src = b"from openai import OpenAI\nc = OpenAI()\n"
    result = process("k.py", src, keys="report")
    assert result.after == src
    assert any(s.kind == "implicit-key" and s.action == "review" for s in result.sites)
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [(2, "key-source")]


def test_realtime_is_reported_by_default_and_rewritten_with_the_flag() -> None:
    src = b'URL = "wss://api.openai.com/v1/realtime?model=x"\nopenai = 1\n'
    default = process("rt.py", src)
    assert default.status == "unchanged"
    assert [(s.kind, s.action) for s in default.sites] == [("realtime", "review")]
    assert process("rt.py", src, rewrite_realtime=True).after.startswith(
        b'URL = "wss://api.holysheep.ai/v1/realtime'
    )


def test_secret_values_are_reported_not_renamed_and_never_quoted() -> None:
    secret = b"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    result = process(".env", b"OPENAI_API_KEY=" + secret + b"\n")
    assert result.status == "unchanged"
    assert [s.kind for s in result.sites] == ["key-value"]
    assert all(secret.decode() not in s.message for s in result.sites)


@pytest.mark.parametrize(
    "src",
    [
        b"See https://platform.openai.com/docs and https://help.openai.com/en and https://openai.com/api\n",
        b"AZURE=https://contoso.openai.azure.com/openai/deployments/gpt4\nAZURE_OPENAI_API_KEY=\n",
        b"OPENROUTER=https://openrouter.ai/api/v1\nGROQ=https://api.groq.com/openai/v1\nLOCAL=http://localhost:11434/v1\n",
        b"https://api.openai.com.evil.example/v1 and x-api.openai.com\n",
    ],
    ids=["docs-links", "azure", "other-vendors", "look-alike-hosts"],
)
def test_negative_text_cases_are_left_alone(src: bytes) -> None:
    assert process("notes.md", src).status == "unchanged"


def test_azure_branch_and_azure_client_are_left_alone() -> None:
    src = (
        b"import os\nimport openai\nfrom openai import AzureOpenAI\n"
        b'if settings.provider == "azure":\n    key = os.environ["OPENAI_API_KEY"]\n'
        b'c = AzureOpenAI(azure_endpoint=e, api_key=os.environ["OPENAI_API_KEY"], api_version="2024-06-01")\n'
    )
    assert process("az.py", src).status == "unchanged"


def test_langchain_openai_is_not_mistaken_for_the_sdk() -> None:
    src = b"from langchain_openai import OpenAI\nllm = OpenAI()\n"
    after = process("lc.py", src).after
    assert b'OpenAI(base_url="https://api.holysheep.ai/v1", api_key=' in after
    legacy = process("lc.py", b"from langchain.llms import OpenAI\nllm = OpenAI()\n").after
    assert b'OpenAI(openai_api_base="https://api.holysheep.ai/v1", openai_api_key=' in legacy


def test_unrelated_openai_named_class_is_not_touched() -> None:
    src = b"from mylib import OpenAI\nclient = OpenAI()\n"
    assert process("mine.py", src).status == "unchanged"


def test_parse_failure_is_reported_and_file_untouched() -> None:
    result = process("broken.py", b"from openai import OpenAI\nclient = OpenAI(\n")
    assert result.status == "failed"
    assert result.after == result.before
    assert [(s.kind, s.action) for s in result.sites] == [("parse-error", "error")]


def test_broken_notebook_is_reported_not_rewritten() -> None:
    result = process("nb.ipynb", b'{"cells": [ {"source": "https://api.openai.com/v1"} ')
    assert result.status == "failed"
    assert result.sites[0].kind == "parse-error"


def test_python_key_names_bound_to_literal_secrets_are_reported_not_renamed() -> None:
    src = (
        b"import os\n"
        b'env = {"OPENAI_API_KEY": "sk-abcdefghijkl", "B": os.environ["OPENAI_API_KEY"]}\n'
        b'os.environ["OPENAI_API_KEY"] = "sk-live-1234567"\n'
        b'os.environ.setdefault("OPENAI_API_KEY", "sk-live-1234567")\n'
    )
    result = process("env.py", src)
    assert result.after == src.replace(b'os.environ["OPENAI_API_KEY"]}', b'os.environ["HOLYSHEEP_API_KEY"]}')
    assert [(s.line, s.kind) for s in result.sites if s.action == "review"] == [
        (2, "key-value"),
        (3, "key-value"),
        (4, "key-value"),
    ]
    assert all("sk-" not in s.message for s in result.sites)


def test_hardcoded_keys_are_reported_without_their_value() -> None:
    src = b'import openai\nfrom openai import OpenAI\nopenai.api_key = "sk-abc123"\nc = OpenAI(api_key="sk-xyz789")\n'
    # beside the base URL migrate adds, the literal key makes the file incomplete (issue 31); the module
    # client's literal key goes nowhere new (the module client is not used, so it keeps OpenAI's URL)
    result = process("k.py", src)
    assert result.after == src
    assert [s.line for s in result.sites if s.kind == "openai-key-beside-url"] == [4]
    assert [s.line for s in result.sites if s.kind == "hardcoded-key"] == [3]  # line 4: said once, above
    assert all("sk-" not in s.message for s in result.sites)


def test_module_level_config_goes_inside_a_guarded_import() -> None:
    src = b"try:\n    import openai\nexcept ImportError:\n    openai = None\n\nopenai.Completion.create(prompt='x')\n"
    after = process("guard.py", src).after
    assert after.startswith(
        b'import os\ntry:\n    import openai\n    openai.api_base = "https://api.holysheep.ai/v1"\n'
        b'    openai.api_key = os.environ["HOLYSHEEP_API_KEY"]\nexcept'
    )


def test_runtime_module_base_is_reported() -> None:
    result = process(
        "cfg.py", b"import openai\nopenai.api_base = settings.base\nopenai.Completion.create()\n"
    )
    assert result.status == "unchanged"
    assert [(s.line, s.kind) for s in result.sites] == [(2, "runtime-url")]


def test_python_without_final_newline() -> None:
    src = b'from openai import OpenAI\nURL = "https://api.openai.com/v1"  # end\nc = OpenAI()'
    after = process("nofinal.py", src).after
    assert after.endswith(
        b'URL = "https://api.holysheep.ai/v1"  # end\nc = OpenAI(base_url="https://api.holysheep.ai/v1", api_key=os.environ["HOLYSHEEP_API_KEY"])'
    )


def test_not_azure_branch_is_migrated_and_its_else_left_alone() -> None:
    src = (
        b"import os\nimport openai\n"
        b'if os.environ.get("OPENAI_API_TYPE") != "azure":\n    openai.api_base = "https://api.openai.com/v1"\n'
        b'else:\n    openai.api_key = os.environ["OPENAI_API_KEY"]\n'
    )
    after = process("branch.py", src).after
    assert b'openai.api_base = "https://api.holysheep.ai/v1"' in after
    assert b'openai.api_key = os.environ["OPENAI_API_KEY"]' in after


def test_secret_default_of_getenv_keeps_its_name() -> None:
    src = b'import os\nk = os.getenv("OPENAI_API_KEY", "sk-live-abcdefgh")\nj = os.getenv("OPENAI_API_KEY", "")\n'
    result = process("d.py", src)
    assert result.after == src.replace(
        b'j = os.getenv("OPENAI_API_KEY"', b'j = os.getenv("HOLYSHEEP_API_KEY"'
    )
    assert [(s.line, s.kind) for s in result.sites if s.action == "review"] == [(2, "key-value")]


def test_js_literal_api_key_is_reported_and_other_vendor_key_untouched() -> None:
    src = (
        b'import OpenAI from "openai";\n'
        b'const a = new OpenAI({ apiKey: "sk-abc" });\n'
        b'const b = new OpenAI({ baseURL: "https://api.together.xyz/v1", apiKey: process.env.OPENAI_API_KEY });\n'
    )
    result = process("a.ts", src)
    # the literal key would travel with the baseURL migrate adds: nothing is rewritten (issue 31)
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [
        (2, "openai-key-beside-url")
    ]


def test_langchain_js_gets_a_configuration_base_url() -> None:
    src = (
        b'import { ChatOpenAI } from "@langchain/openai";\n'
        b'const llm = new ChatOpenAI({ model: "gpt-4o" });\n'
        b"const other = new ChatOpenAI({ configuration: { timeout: 5 } });\n"
    )
    result = process("chain.ts", src)
    assert result.after.splitlines()[1] == (
        b'const llm = new ChatOpenAI({ configuration: { baseURL: "https://api.holysheep.ai/v1" }, '
        b'apiKey: process.env.HOLYSHEEP_API_KEY, model: "gpt-4o" });'
    )
    assert [(s.line, s.kind, s.action) for s in result.sites if s.action != "rewrite"] == [
        (3, "still-openai", "incomplete")
    ]
