"""The README's python blocks run as written, against the local server (as ``test_docs.py`` does for
``docs/``): no placeholders, every import present, no OpenAI key needed. A block that defines pytest
tests runs under pytest."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from holyclient.testing import LocalServer

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)
BLOCKS = FENCE.findall(README.read_text(encoding="utf-8"))


def test_the_readme_has_python_blocks_to_run():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("number", range(len(BLOCKS)), ids=lambda n: f"block{n + 1}")
def test_every_readme_python_block_runs_against_the_local_server(number: int, tmp_path: Path) -> None:
    code = BLOCKS[number]
    with LocalServer(api_key="sk-readme") as new, LocalServer(api_key="sk-readme-old") as old:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_"))},
            "HOLYSHEEP_API_KEY": "sk-readme",
            "HOLYSHEEP_BASE_URL": new.base_url,
            "OLD_API_KEY": "sk-readme-old",
            "OLD_BASE_URL": old.base_url,
        }
        if "def test_" in code:
            (tmp_path / "test_readme_block.py").write_text(code, encoding="utf-8")
            argv = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "test_readme_block.py",
            ]
        else:
            argv = [sys.executable, "-c", code]
        result = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"README python block {number + 1}:\n{result.stdout}\n{result.stderr}"
    assert result.stdout.strip(), f"README python block {number + 1} printed nothing"
