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
import streamlit as st
from openai import OpenAI

openai_api_key = st.sidebar.text_input("OpenAI API Key", type="password")
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
    for again in (migrate([app], write=False, base_url_env=env), migrate([app], write=False)):
        assert again.changed == []
        assert [s.format() for s in again.sites] == []
    assert main(["migrate", "--check", str(app)]) == 0


def test_a_computed_url_that_reads_another_variable_is_still_incomplete(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        'import os\nfrom openai import OpenAI\nc = OpenAI(base_url=os.environ.get("LLM_URL", "http://localhost"))\n'
    )
    report = migrate([tmp_path], write=False)
    assert [(s.line, s.kind, s.action) for s in report.sites] == [(3, "runtime-url", "incomplete")]
