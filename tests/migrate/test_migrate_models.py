"""Retired and unserved model names (issue 31 item 6): reported with file:line and the closest model the
relay serves, from the price table's model list; served names and prose are left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holyclient.migrate import process
from holyclient.migrate._models import closest, served
from holyclient.pricing import PriceTable

APP = b"""\
import os
from openai import OpenAI

client = OpenAI(base_url="https://api.holysheep.ai/v1", api_key=os.environ["HOLYSHEEP_API_KEY"])
LEGACY = "text-davinci-003"


def ask(prompt):
    '''Once ran on gpt-3.5-turbo-0301; a docstring is prose.'''
    client.completions.create(model=LEGACY, prompt=prompt)
    return client.chat.completions.create(model="gpt-3.5-turbo-0301", messages=[])


def fine():
    return client.chat.completions.create(model="gpt-4o-mini", messages=[])
"""


def test_unserved_names_are_listed_with_file_line_and_the_closest_served_model() -> None:
    result = process("app.py", APP)
    assert result.after == APP
    sites = [(s.line, s.action, s.message) for s in result.sites if s.kind == "model"]
    assert sites == [
        (
            5,
            "review",
            "model 'text-davinci-003' is retired or not served by the relay; closest it serves: 'gpt-3.5-turbo-instruct'",
        ),
        (
            11,
            "review",
            "model 'gpt-3.5-turbo-0301' is retired or not served by the relay; closest it serves: 'gpt-3.5-turbo'",
        ),
    ]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env", b"DEFAULT_MODEL=gpt-4-32k\n"),
        ("config.yaml", b"llm:\n  model: gpt-4-vision-preview\n"),
        ("app.ts", b'const r = await c.chat.completions.create({ model: "gpt-3.5-turbo-16k" });\n'),
        ("settings.toml", b'model = "code-davinci-002"\n'),
    ],
)
def test_config_files_name_their_unserved_models(name: str, text: bytes) -> None:
    sites = [s for s in process(name, text).sites if s.kind == "model"]
    assert len(sites) == 1 and sites[0].line == text.count(b"\n", 0, text.index(b"-") + 1) + 1
    assert closest(sites[0].message.split("'")[1]) in served()


def test_prose_comments_and_served_names_are_not_reported() -> None:
    assert process("README.md", b"We moved off text-davinci-003.\n").sites == []
    assert process("run.sh", b"# was gpt-4-32k\nMODEL=gpt-4o\n").sites == []
    assert process("a.py", b'import openai\nm = "gpt-4o-2024-08-06"  # gpt-4-32k before\n').sites == []


def test_every_closest_model_is_one_the_price_table_serves() -> None:
    table = PriceTable.builtin()
    for name in (
        "text-davinci-003",
        "gpt-4-1106-preview",
        "o1-mini",
        "text-similarity-ada-001",
        "gpt-4.5-preview",
    ):
        assert table.lookup(closest(name)) is not None


def test_the_served_list_is_the_price_tables_without_retired_entries() -> None:
    path = Path(__file__).resolve().parents[2] / "src/holyclient/_data/models.json"
    models = json.loads(path.read_text())["models"]
    assert "gpt-4o-mini" in served() and "chatgpt-4o-latest" in served()
    retired = [n for n, e in models.items() if "retired" in str(e.get("notes", ""))]
    assert retired and not set(retired) & served()
