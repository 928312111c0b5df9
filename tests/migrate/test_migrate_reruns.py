"""Reruns raise no false alarms (issue 31 item 5): after ``--base-url-env``, a later ``--check`` does not
report the ``os.environ.get("HOLYSHEEP_BASE_URL", ...)`` lines migrate wrote itself, in an app shaped like
streamlit/llm-examples (one page per feature, each building its own client)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_apps import write_app

from holyclient._cli import main
from holyclient.migrate import migrate

PAGE = """\
import os

import streamlit as st
from openai import OpenAI

openai_api_key = os.environ["OPENAI_API_KEY"]
client = OpenAI(api_key=openai_api_key)
"""
LLM_EXAMPLES = {
    "Chatbot.py": PAGE,
    "pages/1_File_Q&A.py": PAGE.replace("client =", "qa ="),
    "pages/2_Chat_with_search.py": PAGE + "other = OpenAI()\n",
    "pages/3_Legacy.py": 'import openai\nopenai.api_base = "https://api.openai.com/v1"\nopenai.Completion.create()\n',
    "web/client.ts": 'import OpenAI from "openai";\nconst c = new OpenAI({ apiKey: "x" });\n',
}


@pytest.mark.parametrize("env", ["HOLYSHEEP_BASE_URL", "APP_BASE_URL"])
def test_a_rerun_after_base_url_env_reports_nothing(tmp_path: Path, env: str) -> None:
    app = write_app(tmp_path, LLM_EXAMPLES)
    assert main(["migrate", "--force", "--base-url-env", env, str(app)]) == 0
    text = (app / "Chatbot.py").read_text()
    assert f'base_url=os.environ.get("{env}", "https://api.holysheep.ai/v1")' in text
    again = migrate([app], write=False, base_url_env=env)
    assert again.changed == []
    assert [s.format() for s in again.sites] == []
    assert main(["migrate", "--check", "--base-url-env", env, str(app)]) == 0
    # without the option, a variable named neither HOLYSHEEP_* nor by --base-url-env may point anywhere
    plain = migrate([app], write=False)
    assert plain.changed == []
    if env == "HOLYSHEEP_BASE_URL":
        assert plain.sites == []
    else:
        assert plain.sites and all(s.action == "incomplete" and env in s.message for s in plain.sites)


def test_a_key_typed_into_a_text_input_labelled_openai_is_not_sent_to_the_relay(tmp_path: Path) -> None:
    """streamlit/llm-examples asks for "OpenAI API Key" in the sidebar: migrate cannot know what will be
    typed there, so the page is not pointed at the relay until someone has looked (issue 39)."""
    page = (
        'import streamlit as st\nfrom openai import OpenAI\n\nkey = st.sidebar.text_input("OpenAI API Key")\n'
    )
    page += "client = OpenAI(api_key=key)\n"
    write_app(tmp_path, {"Chatbot.py": page})
    report = migrate([tmp_path], write=False)
    assert report.changed == []
    assert [(s.line, s.kind) for s in report.incomplete] == [(5, "key-source")]


def test_a_computed_url_that_reads_another_variable_is_still_incomplete(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        'import os\nfrom openai import OpenAI\nc = OpenAI(base_url=os.environ.get("LLM_URL", "http://localhost"))\n'
    )
    report = migrate([tmp_path], write=False)
    assert [(s.line, s.kind, s.action) for s in report.sites] == [(3, "runtime-url", "incomplete")]
