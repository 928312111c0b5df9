"""``HOLYCLIENT_SKIP_CONTRACT=1`` really skips the contract tests, and says so loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_skip_contract_skips_every_contract_test_with_a_loud_line(tmp_path):
    env = {**os.environ, "HOLYCLIENT_SKIP_CONTRACT": "1", "HOLYCLIENT_PRISM_BIN": str(tmp_path / "no-prism")}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/contract"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert " passed" not in result.stdout and " failed" not in result.stdout
    assert "CONTRACT TESTS SKIPPED (HOLYCLIENT_SKIP_CONTRACT=1)" in result.stdout


def test_ci_run_does_not_install_prism_when_contract_tests_are_skipped():
    script = (REPO / ".ci" / "run").read_text()
    guard = script.index('if [ "${HOLYCLIENT_SKIP_CONTRACT:-}" = "1" ]; then')
    install = script.index("bash .ci/install-prism")
    otherwise = script.index("else", guard)
    assert guard < otherwise < install
