"""JS/TS client constructors, one row per shape (each row written against a mutant that survived the
suite): empty calls and objects, options from a variable or a spread, computed base URLs, one property per
line, shorthand keys, aliases, CommonJS, local modules, the quote style and ``--keys report``."""

from __future__ import annotations

from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.migrate import process

IMPORT = 'import OpenAI from "openai";\n'
BASE = 'baseURL: "https://api.holysheep.ai/v1"'
KEY = "apiKey: process.env.HOLYSHEEP_API_KEY"
REWRITE = [(2, "constructor", "rewrite")]
REVIEW = [(2, "runtime-url", "incomplete")]  # the CLI exits 3 on these
OPAQUE = [(2, "kwargs-constructor", "incomplete")]

CASES = [
    (
        "empty-call",
        IMPORT + "const c = new OpenAI();\n",
        f"const c = new OpenAI({{ {BASE}, {KEY} }});",
        REWRITE,
    ),
    (
        "empty-object",
        IMPORT + "const c = new OpenAI({});\n",
        f"const c = new OpenAI({{ {BASE}, {KEY} }});",
        REWRITE,
    ),
    ("options-variable", IMPORT + "const c = new OpenAI(opts);\n", "const c = new OpenAI(opts);", OPAQUE),
    ("spread", IMPORT + "const c = new OpenAI({ ...opts, timeout: 5 });\n", None, OPAQUE),
    ("computed-base", IMPORT + "const c = new OpenAI({ baseURL: process.env.BASE });\n", None, REVIEW),
    (
        "one-per-line",
        IMPORT + "const c = new OpenAI({\n  timeout: 5,\n});\n",
        f"const c = new OpenAI({{\n  {BASE},\n  {KEY},\n  timeout: 5,\n}});",
        REWRITE,
    ),
    (
        # a key from a variable migrate cannot follow: beside the relay's URL it could be OpenAI's
        "shorthand-key",
        IMPORT + "const c = new OpenAI({ apiKey });\n",
        "const c = new OpenAI({ apiKey });",
        [(2, "key-source", "incomplete")],
    ),
    (
        "commonjs",
        'const { OpenAI } = require("openai");\nconst c = new OpenAI({ timeout: 5 });\n',
        f"const c = new OpenAI({{ {BASE}, {KEY}, timeout: 5 }});",
        REWRITE,
    ),
    (
        "alias",
        'import { OpenAI as O } from "openai";\nconst c = new O({ timeout: 5 });\n',
        f"const c = new O({{ {BASE}, {KEY}, timeout: 5 }});",
        REWRITE,
    ),
    ("local-module", 'import OpenAI from "./my-openai";\nconst c = new OpenAI();\n', None, []),
    (
        "namespace-import",
        'import * as oa from "openai";\nconst c = new oa.OpenAI({ timeout: 5 });\n',
        f"const c = new oa.OpenAI({{ {BASE}, {KEY}, timeout: 5 }});",
        REWRITE,
    ),
    (
        "named-import",
        'import { OpenAI } from "openai";\nconst c = new OpenAI();\n',
        f"const c = new OpenAI({{ {BASE}, {KEY} }});",
        REWRITE,
    ),
    (
        "named-alias-among-others",
        'import { OpenAI as Client, AzureOpenAI } from "openai";\nconst c = new Client();\n',
        f"const c = new Client({{ {BASE}, {KEY} }});",
        REWRITE,
    ),
    (
        "langchain-embeddings",
        'import { OpenAIEmbeddings } from "@langchain/openai";\nconst e = new OpenAIEmbeddings({ model: "x" });\n',
        f'const e = new OpenAIEmbeddings({{ configuration: {{ {BASE} }}, {KEY}, model: "x" }});',
        REWRITE,
    ),
    (
        "ai-sdk-default-provider",
        'import { openai } from "@ai-sdk/openai";\nconst m = openai("gpt-4o");\n',
        None,
        [(1, "still-openai", "incomplete")],
    ),
    (
        "ai-sdk-create",
        'import { createOpenAI } from "@ai-sdk/openai";\nconst p = createOpenAI({ compatibility: "strict" });\n',
        f'const p = createOpenAI({{ {BASE}, {KEY}, compatibility: "strict" }});',
        [(2, "constructor", "rewrite")],
    ),
    (
        "nested-brackets",
        IMPORT + 'const c = new OpenAI({ defaultHeaders: { a: [1, (2)] }, q: { x: "}" }, timeout: 5 });\n',
        f'const c = new OpenAI({{ {BASE}, {KEY}, defaultHeaders: {{ a: [1, (2)] }}, q: {{ x: "}}" }}, timeout: 5 }});',
        REWRITE,
    ),
    ("unclosed-call", IMPORT + "const c = new OpenAI(\n", None, []),
]


@pytest.mark.parametrize(("src", "line", "sites"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_constructor_shapes(src: str, line: str | None, sites: list[tuple[int, str, str]]) -> None:
    result = process("a.ts", src.encode())
    second = result.after.decode().splitlines(keepends=True)[1:]
    assert "".join(second).rstrip("\n") == (
        line if line is not None else "".join(src.splitlines(True)[1:]).rstrip("\n")
    )
    assert [(s.line, s.kind, s.action) for s in result.sites] == sites
    assert process("a.ts", result.after).status == "unchanged"


def test_report_mode_adds_no_key_and_keeps_single_quotes() -> None:
    src = b"import OpenAI from 'openai';\nconst c = new OpenAI();\n"
    # no key added: the client would send OPENAI_API_KEY to the relay, so the file stays as it was
    result = process("a.ts", src, keys="report")
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [(2, "key-source")]
    quoted = process(
        "a.ts", src.replace(b"new OpenAI()", b"new OpenAI({ apiKey: process.env.HOLYSHEEP_API_KEY })")
    )
    assert quoted.after.splitlines()[1] == (
        b"const c = new OpenAI({ baseURL: 'https://api.holysheep.ai/v1', apiKey: process.env.HOLYSHEEP_API_KEY });"
    )


def test_a_node_app_and_its_env_file_are_migrated_together_to_one_key_name(tmp_path: Path) -> None:
    """The client's fallback to OPENAI_API_KEY (when ``apiKey`` is undefined) is not a name the .env must
    set: the code reads HOLYSHEEP_API_KEY and the file sets it, so the run completes."""
    (tmp_path / "client.ts").write_text(
        IMPORT + "const c = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });\n"
    )
    (tmp_path / ".env").write_text("OPENAI_API_KEY=\nOPENAI_BASE_URL=https://api.openai.com/v1\n")
    assert main(["migrate", "--force", str(tmp_path)]) == 0
    assert KEY in (tmp_path / "client.ts").read_text()
    assert (tmp_path / ".env").read_text().startswith("HOLYSHEEP_API_KEY=\n")
