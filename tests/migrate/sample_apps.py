"""Small apps in the shape of real ones, files inline, for the codemod's end-to-end tests (issue 31).

``SGPT`` is shaped like shell_gpt: a config dict read from ``OPENAI_API_KEY``, a client built as
``OpenAI(**kwargs)``, and its own tiny test suite fed by the spellings the real one uses (a CI
workflow's ``env:``, ``docker run -e`` / ``--env``, a shell ``export``). ``write_app`` lays one out and
``workflow_env`` reads the variables its CI workflow sets, as CI would hand them to the app's tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SGPT = {
    "sgpt/__init__.py": "",
    "sgpt/config.py": """\
import os

DEFAULT_CONFIG = {
    "OPENAI_API_KEY": os.getenv("OPENAI_API_KEY"),
    "API_BASE_URL": os.getenv("API_BASE_URL", "default"),
    "DEFAULT_MODEL": os.getenv("DEFAULT_MODEL", "gpt-4o-mini"),
}
if not DEFAULT_CONFIG["OPENAI_API_KEY"]:
    raise RuntimeError("set OPENAI_API_KEY first")
cfg = DEFAULT_CONFIG
""",
    "sgpt/handler.py": """\
from openai import OpenAI

from .config import cfg


class Handler:
    def __init__(self) -> None:
        kwargs = {"api_key": cfg.get("OPENAI_API_KEY"), "timeout": 60}
        if cfg.get("API_BASE_URL") != "default":
            kwargs["base_url"] = cfg.get("API_BASE_URL")
        self.client = OpenAI(**kwargs)


def ask(prompt: str) -> str:
    answer = Handler().client.chat.completions.create(
        model=cfg["DEFAULT_MODEL"], messages=[{"role": "user", "content": prompt}]
    )
    return answer.choices[0].message.content or ""
""",
    "tests/test_sgpt.py": """\
import os

from sgpt.config import cfg
from sgpt.handler import Handler


def test_the_key_comes_from_the_environment():
    assert cfg["OPENAI_API_KEY"] == os.environ["OPENAI_API_KEY"] == "test_api_key"


def test_a_handler_builds_its_client_offline():
    assert Handler().client.api_key == "test_api_key"
""",
    ".github/workflows/test.yml": """\
name: test
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      OPENAI_API_KEY: test_api_key
    steps:
      - run: pytest tests
""",
    "scripts/docker-test.sh": """\
#!/bin/sh
docker run --rm --env OPENAI_API_KEY=api_key sgpt pytest tests
docker run --rm -e OPENAI_API_KEY=$OPENAI_API_KEY sgpt sgpt "hello"
""",
    "README.md": """\
# sgpt

    export OPENAI_API_KEY="your OPENAI API key"
""",
}


def write_app(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def workflow_env(root: Path) -> dict[str, str]:
    """The ``NAME: value`` pairs under the workflow's ``env:`` (the one shape this sample uses)."""
    text = (root / ".github/workflows/test.yml").read_text()
    block = text.split("    env:\n", 1)[1]
    return dict(re.findall(r"^      ([A-Z_]+): (\S+)$", block.split("    steps:", 1)[0], re.M))


def run_app_tests(root: Path) -> subprocess.CompletedProcess[str]:
    """The app's own test suite, with the environment its CI workflow sets (and nothing of ours)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_", "PYTEST_"))}
    env.update(workflow_env(root), PYTHONPATH=str(root))
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "tests"]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
