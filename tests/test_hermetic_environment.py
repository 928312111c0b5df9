"""No test depends on the developer's shell: the top conftest clears HOLYSHEEP_*, OPENAI_* and proxies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic import leaky_variables

ROOT = Path(__file__).resolve().parents[1]
#: What a developer's shell may well hold; each would redirect or re-key the tests' requests.
SHELL = {
    "HOLYSHEEP_API_KEY": "sk-holy-from-the-shell",
    "HOLYSHEEP_BASE_URL": "http://127.0.0.1:9/v1",
    "OPENAI_API_KEY": "sk-openai-from-the-shell",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "OPENAI_ORG_ID": "org-shell",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "ALL_PROXY": "socks5://127.0.0.1:9",
    "no_proxy": "example.com",
}


def test_a_test_sees_none_of_the_shell_s_endpoint_key_or_proxy_variables() -> None:
    assert leaky_variables(os.environ) == []
    assert "HOLYCLIENT_DEBUG" not in os.environ


def test_the_variables_cleared_include_every_proxy_spelling_and_both_prefixes() -> None:
    assert leaky_variables(SHELL | {"HOLYCLIENT_SKIP_CONTRACT": "1", "PATH": "/bin"}) == sorted(SHELL)


@pytest.mark.slow
def test_a_shell_with_endpoint_key_and_proxy_variables_set_does_not_reach_the_tests() -> None:
    env = {**os.environ, **SHELL, "PYTHONPATH": str(ROOT / "src")}
    inner = f"{Path(__file__).name}::test_a_test_sees_none_of_the_shell_s_endpoint_key_or_proxy_variables"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            f"tests/{inner}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
