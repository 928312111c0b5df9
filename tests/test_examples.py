"""The examples and the README's tour run for real against the local server (no key, no network)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from holyclient.testing import LocalServer

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(example: Path, tmp_path: Path):
    with LocalServer() as server:
        env = {**os.environ, "HOLYSHEEP_API_KEY": "sk-example", "HOLYSHEEP_BASE_URL": server.base_url}
        result = subprocess.run(  # in a scratch directory: an example may write files
            [sys.executable, str(example)], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


@pytest.mark.slow
def test_tour_runs_with_no_key_and_no_network():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_"))}
    result = subprocess.run(
        [sys.executable, "-m", "holyclient", "tour"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Echo: Say hello to HolySheep." in result.stdout
    assert "embeddings" in result.stdout
