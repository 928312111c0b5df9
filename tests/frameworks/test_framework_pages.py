"""Each framework page's scripts run as written, in the framework's own venv, against the local server's
relay profile: the ``python`` fences marked ``<!-- run by tests/frameworks/test_framework_pages.py -->``
(``tests/test_docs.py`` leaves them to this file, which has the frameworks installed). Each script reads
``HOLYSHEEP_API_KEY`` / ``HOLYSHEEP_BASE_URL`` as a user's does, exits 0, prints, and every request it sent
was answered.

The pages: docs/frameworks/langchain.md, docs/frameworks/llamaindex.md, docs/frameworks/pydantic-ai.md,
docs/frameworks/openai-agents.md, docs/frameworks/instructor.md, docs/frameworks/crewai.md,
docs/frameworks/dspy.md.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from hermetic import leaky_variables
from holyclient.testing import LocalServer

from .test_frameworks import OFFLINE, ROOT, _python

DOCS = ROOT / "docs" / "frameworks"
MARK = "<!-- run by tests/frameworks/test_framework_pages.py -->"
SCRIPT = re.compile(re.escape(MARK) + r"\n```python\n(.*?)^```$", re.M | re.S)
KEY = "sk-framework-pages"

#: page -> the venv its framework is installed in
PAGES = {
    "langchain.md": "openai3",
    "llamaindex.md": "llamaindex",
    "pydantic-ai.md": "openai3",
    "openai-agents.md": "openai3",
    "instructor.md": "instructor",
    "crewai.md": "crewai",
    "dspy.md": "dspy",
}


def _scripts(page: str) -> list[str]:
    return SCRIPT.findall((DOCS / page).read_text(encoding="utf-8"))


def test_every_marked_page_is_run_here_and_has_a_script() -> None:
    marked = {page.name for page in DOCS.glob("*.md") if MARK in page.read_text(encoding="utf-8")}
    assert marked == set(PAGES)
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        assert text.count(MARK) == len(_scripts(page)) >= 1, page  # every mark is above a python fence
        for script in _scripts(page):  # a script, not a notebook cell: no top-level await
            top_level = [
                line
                for line in script.splitlines()
                if line.startswith("await ") or ("= await " in line and not line.startswith(" "))
            ]
            assert top_level == [], (page, top_level)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_s_scripts_run_as_written(page: str, tmp_path: Path) -> None:
    python = _python(PAGES[page])
    leaky = set(leaky_variables(os.environ))
    for number, script in enumerate(_scripts(page), 1):
        with LocalServer(api_key=KEY, profile="holysheep") as server:
            env = {k: v for k, v in os.environ.items() if k not in leaky}
            env |= {"HOLYSHEEP_API_KEY": KEY, "HOLYSHEEP_BASE_URL": server.base_url}
            env["PYTHONPATH"] = str(ROOT / "src")  # this checkout's holyclient
            env |= OFFLINE
            done = subprocess.run(
                [python, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180
            )
            statuses = [request.status for request in server.requests]
        assert done.returncode == 0, f"{page} script {number}:\n{done.stderr[-4000:]}"
        assert done.stdout.strip(), f"{page} script {number} printed nothing"
        assert statuses and all(status == 200 for status in statuses), (page, number, statuses)
