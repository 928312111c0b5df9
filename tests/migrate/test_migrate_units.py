"""Small pieces pinned exactly, each test written against a mutant that survived the suite
(``benchmarks/mutation.sh migrate``): diff headers and hunk ranges, git's name quoting, the
``.gitignore`` matcher of the plain walk, the JSON report's shape, comment detection."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from holyclient.migrate import FileResult, Report, Site, Skipped, migrate, process, unified_diff
from holyclient.migrate._pysource import segment, source_lines
from holyclient.migrate._rules import in_comment

URL = b"https://api.openai.com/v1\n"


# -- unified_diff -------------------------------------------------------------------------------------
def test_diff_header_and_single_line_hunk_are_exact() -> None:
    assert unified_diff("x.md", b"old\n", b"new\n") == (
        b"diff --git a/x.md b/x.md\n--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n-old\n+new\n"
    )


def test_hunk_ranges_for_an_insertion_into_an_empty_file_and_a_deletion() -> None:
    assert b"@@ -0,0 +1,2 @@\n+a\n+b\n" in unified_diff("x", b"", b"a\nb\n")
    assert b"@@ -1,2 +0,0 @@\n-a\n-b\n" in unified_diff("x", b"a\nb\n", b"")


def test_three_lines_of_context_by_default() -> None:
    before = b"".join(b"%d\n" % i for i in range(1, 11))
    after = before.replace(b"5\n", b"five\n")
    diff = unified_diff("x", before, after)
    assert b"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" in diff


def test_popular_lines_are_not_treated_as_junk() -> None:
    before = b"x\n" * 400
    after = b"x\n" * 200 + b"y\n" + b"x\n" * 199
    lines = unified_diff("x", before, after).splitlines()
    changes = [line for line in lines if line[:1] in (b"-", b"+") and line[:3] not in (b"---", b"+++")]
    assert sorted(changes) == [b"+y", b"-x"]  # with autojunk, "x" is junk and the whole file is replaced


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("plain name.md", b"a/plain name.md"),  # a space is not quoted (0x20 is the first unquoted byte)
        ("caf\u00e9.md", "a/caf\u00e9.md".encode()),  # non-ASCII stays raw, as with core.quotePath=false
        ('q"x.md', b'"a/q\\"x.md"'),
        ("back\\slash.md", b'"a/back\\\\slash.md"'),
        ("tab\there.md", b'"a/tab\\there.md"'),
        ("new\nline.md", b'"a/new\\nline.md"'),
        ("ctl\x01.md", b'"a/ctl\\001.md"'),
        ("del\x7f.md", b'"a/del\\177.md"'),
        ("hash#and]bracket.md", b"a/hash#and]bracket.md"),
    ],
    ids=["space", "non-ascii", "quote", "backslash", "tab", "newline", "control", "del", "punctuation"],
)
def test_names_are_quoted_as_git_quotes_them(name: str, quoted: bytes) -> None:
    header = unified_diff(name, b"a\n", b"b\n").split(b"\n", 1)[0]
    assert header == b"diff --git " + quoted + b" " + quoted.replace(b"a/", b"b/", 1)


def test_undecodable_file_name_keeps_its_bytes() -> None:
    name = os.fsdecode(b"caf\xe9.md")
    assert unified_diff(name, b"a\n", b"b\n").startswith(b"diff --git a/caf\xe9.md b/caf\xe9.md\n")


# -- the plain walk's .gitignore matcher ---------------------------------------------------------------
def test_gitignore_rules_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitignore").write_text(
        "# first line is a comment\n\n/build\ndocs/*.md\n*.log\n!keep.log\n**/gen/*.txt\ntrailing.md   \n"
    )
    files = [
        "build/x.md",  # anchored: ignored
        "src/build/x.md",  # /build is anchored to the root: kept
        "docs/a.md",  # ignored
        "other/docs/a.md",  # docs/*.md is anchored: kept
        "app.log",  # ignored
        "keep.log",  # re-included by !keep.log
        "gen/a.txt",  # **/gen/*.txt matches at the root
        "deep/gen/b.txt",  # and below
        "trailing.md",  # trailing spaces of the rule are not part of it
        "sub/.gitignore",
        "sub/local.md",  # ignored by sub/.gitignore's /local.md
        "local.md",  # that rule is anchored to sub/
    ]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"/local.md\n" if rel.endswith(".gitignore") else URL)
    report = migrate(["."], write=False)
    assert sorted(f.path for f in report.changed) == [
        "keep.log",
        "local.md",
        "other/docs/a.md",
        "src/build/x.md",
    ]
    assert sorted(s.path for s in report.skipped) == [
        "app.log",
        "build",
        "deep/gen/b.txt",
        "docs/a.md",
        "gen/a.txt",
        "sub/local.md",
        "trailing.md",
    ]


# -- the JSON report -----------------------------------------------------------------------------------
def test_json_report_shape_is_exact() -> None:
    sites = [
        Site("a.py", 3, "url", "rewrite", "OpenAI API URL -> x"),
        Site("a.py", 4, "realtime", "review", "check it"),
        Site("b.py", 1, "parse-error", "error", "does not parse"),
    ]
    report = Report(
        files_scanned=5,
        files_matched=2,
        files_skipped=1,
        files=[FileResult("a.py", "changed", sites[:2]), FileResult("b.py", "failed", sites[2:])],
        wrote=True,
        skipped=[Skipped("link.md", "symbolic link, not followed")],
    )
    assert json.loads(report.dumps()) == {
        "version": 1,
        "summary": {
            "files_scanned": 5,
            "files_matched": 2,
            "files_changed": 1,
            "files_failed": 1,
            "files_skipped": 1,
            "written": True,
            "rewritten": {"url": 1},
            "review": {"realtime": 1},
            "incomplete": {},
            "errors": {"parse-error": 1},
        },
        "sites": [
            {"path": "a.py", "line": 3, "kind": "url", "action": "rewrite", "message": "OpenAI API URL -> x"},
            {"path": "a.py", "line": 4, "kind": "realtime", "action": "review", "message": "check it"},
            {
                "path": "b.py",
                "line": 1,
                "kind": "parse-error",
                "action": "error",
                "message": "does not parse",
            },
        ],
        "skipped": [{"path": "link.md", "reason": "symbolic link, not followed"}],
        "sdk_differences": [],
    }
    assert report.dumps().startswith('{\n  "version": 1,')  # indented for people reading it


# -- comments and notebook text cells ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("url: https://x\nmodel: gpt\n# api.openai.com", True),
        ("url: https://x\nmodel: gpt\n    # indented comment api.openai.com", True),
        ("x: 1\nhost: api.openai.com", False),
        ("curl x  # api.openai.com", True),
        ("value: api.openai.com  # a comment after", False),
        ("api.openai.com", False),
    ],
    ids=["third-line", "indented", "value", "trailing-comment", "value-then-comment", "first-char"],
)
def test_in_comment_reads_only_the_line_of_the_offset(text: str, expected: bool) -> None:
    assert in_comment(text, text.index("api.openai.com")) is expected


def _notebook(cells: list[tuple[str, str]]) -> bytes:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    ).encode()


def test_script_cell_magics_rewrite_bare_hosts_but_not_their_comments() -> None:
    nb = _notebook([("code", "%%bash\ncurl -H x api.openai.com/v1/models\n# was api.openai.com\n")])
    result = process("nb.ipynb", nb)
    assert b"curl -H x api.holysheep.ai/v1/models" in result.after
    assert b"# was api.openai.com" in result.after
    assert sorted((s.kind, s.action) for s in result.sites) == [("host", "review"), ("url", "rewrite")]


def test_markdown_cells_follow_the_key_mode_and_the_realtime_flag() -> None:
    nb = _notebook(
        [("markdown", "Set `OPENAI_API_KEY=sk-live-abcdefgh`, then open wss://api.openai.com/v1/realtime\n")]
    )
    default = process("nb.ipynb", nb)
    assert default.status == "unchanged"
    assert sorted(s.kind for s in default.sites) == ["key-value", "realtime"]
    renamed = process("nb.ipynb", _notebook([("markdown", "Set OPENAI_API_KEY first\n")]), keys="report")
    assert [(s.kind, s.action) for s in renamed.sites] == [("key", "review")]
    # a literal key in the same notebook keeps every URL OpenAI's (issue 31); without it the flag applies
    assert process("nb.ipynb", nb, rewrite_realtime=True).after == nb
    alone = _notebook([("markdown", "open wss://api.openai.com/v1/realtime\n")])
    realtime = process("nb.ipynb", alone, rewrite_realtime=True)
    assert b"wss://api.holysheep.ai/v1/realtime" in realtime.after


# -- notebooks: escapes in the JSON text and the validation net ------------------------------------------
def test_escaped_astral_characters_before_an_edit_keep_offsets_right() -> None:
    source = "sheep = '\U0001f411\u00e9'  # \U0001f411\nURL = 'https://api.openai.com/v1'\n"
    nb = _notebook([("code", source)])  # json.dumps escapes the sheep as \\ud83d\\udc11
    assert b"\\ud83d\\udc11" in nb
    result = process("nb.ipynb", nb)
    assert result.after == nb.replace(b"api.openai.com", b"api.holysheep.ai")
    assert [(s.kind, s.action) for s in result.sites] == [("url", "rewrite")]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda nb: nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": []}),
            "cell count",
        ),
        (lambda nb: nb["cells"][0]["metadata"].update(x=1), "a cell changed outside its source"),
        (lambda nb: nb["metadata"].update(x=1), "notebook metadata changed"),
        (lambda nb: nb["cells"][0].update(source=["x = (\n"]), "a code cell would no longer parse"),
    ],
    ids=["cell-count", "cell-metadata", "notebook-metadata", "code-no-longer-parses"],
)
def test_notebook_validation_refuses_changes_outside_sources(change: object, message: str) -> None:
    from holyclient.migrate._notebook import NotebookError, validate

    before = _notebook([("code", "x = 1\n"), ("markdown", "# title\n")]).decode()
    doc = json.loads(before)
    change(doc)  # type: ignore[operator]
    with pytest.raises(NotebookError, match=message):
        validate(before, json.dumps(doc))


def test_notebook_validation_accepts_source_edits_and_prose_that_does_not_parse() -> None:
    from holyclient.migrate._notebook import validate

    before = _notebook([("code", "x = 1\n"), ("markdown", "# title\n"), ("code", "%%bash\nx = (\n")]).decode()
    doc = json.loads(before)
    doc["cells"][0]["source"] = ["x = 2\n"]
    doc["cells"][1]["source"] = ["still x = (\n"]
    validate(before, json.dumps(doc))


# -- which literal values count as a secret ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("sk-live-abcdef123", True),
        ("a$bcdef123", True),  # only a leading $ makes a reference
        ("", False),
        ("$OPENAI_KEY", False),
        ("${OPENAI_KEY}", False),
        ("(none)", False),
        ("YOUR_KEY_HERE", False),
        ("sk-xxx", False),
        ("None", False),
        ("NULL", False),
        ("sk-", False),
        ("os.environ", False),
        ("config[key]", False),
        ("OPENAI_API_KEY", False),
    ],
)
def test_secret_like(value: str, secret: bool) -> None:
    from holyclient.migrate._rules import secret_like

    assert secret_like(value) is secret


def test_a_skipped_file_says_why_in_its_message() -> None:
    result = process("broken.py", b"from openai import OpenAI\nclient = OpenAI(\n")
    assert [s.format() for s in result.sites] == [
        "broken.py:2: parse-error: does not parse, skipped: '(' was never closed"
    ]


def test_summary_lines_are_exact() -> None:
    report = Report(
        files_scanned=5,
        files_matched=2,
        files_skipped=1,
        files=[
            FileResult(
                "a.py",
                "changed",
                [
                    Site("a.py", 3, "url", "rewrite", "OpenAI API URL -> x"),
                    Site("a.py", 4, "url", "rewrite", "OpenAI API URL -> x"),
                    Site("a.py", 5, "key", "rewrite", "renamed"),
                    Site("a.py", 6, "realtime", "review", "check it"),
                ],
            ),
            FileResult("b.py", "failed", [Site("b.py", 1, "parse-error", "error", "does not parse")]),
        ],
        skipped=[Skipped("link.md", "symbolic link, not followed")],
    )
    assert report.summary_lines() == [
        "migrate: scanned 5 files, 2 mention OpenAI, 1 would change, 1 failed, 1 skipped",
        "  rewritten: 3 (key 1, url 2)",
        "  needs review: 1 (realtime 1)",
        "  errors: 1 (parse-error 1)",
        "  a.py:6: realtime: check it",
        "  b.py:1: parse-error: does not parse",
        "  link.md: skipped: symbolic link, not followed",
    ]


@pytest.mark.parametrize(
    ("line", "azure"),
    [
        ('llm.openai_api_type = "azure"', True),
        ('openai.API_TYPE = "azure_ad"', True),
        ('config.storage = "azure-blob"', False),
        ('os.environ["STORAGE"] = "azure"', False),
        ('openai.api_type = "open_ai"', False),
    ],
)
def test_python_azure_type_settings(line: str, azure: bool) -> None:
    src = f'import os\nimport openai\n{line}\nopenai.api_key = os.environ["OPENAI_API_KEY"]\n'.encode()
    renamed = b"HOLYSHEEP_API_KEY" in process("cfg.py", src).after
    assert renamed is not azure


@pytest.mark.parametrize(
    "src",
    [
        "a = 1\nb = (x +\r\n  y)\rc = 'é' + fn(1,\n 2)\n",
        "x = [1,\n2,\n3]",
        "s = '''a\nb'''\n\x0cq = f(z)\n",
        "k = {'ключ': 'значение', 'π': 3.14}\n",
    ],
    ids=["mixed-line-ends", "no-final-newline", "form-feed", "non-ascii"],
)
def test_a_nodes_text_is_what_ast_gives_for_it(src: str) -> None:
    """The proof's messages quote expressions from lines split once per module (the split the parser makes)."""
    lines = source_lines(src)
    nodes = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.expr)]
    assert nodes and all(segment(lines, n) == ast.get_source_segment(src, n) for n in nodes)
