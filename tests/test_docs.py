"""The documentation site: every code sample runs against the local server, the CLI page is generated.

Samples fenced as ``python`` run as scripts and samples fenced as ``bash`` run under ``bash -euo pipefail``,
page by page in one scratch directory, in the order they appear (so a shell block can create the file
the next one reads). ``text`` blocks are output or illustration and are not run. A block that needs more
than the local server (a collector to export to) is run by its own test, which the comment
``<!-- run by tests/PATH.py ... -->`` just above it names; that test must read the page.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from holyclient._cli import SUBCOMMANDS
from holyclient.testing import LocalServer

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ALL_PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
RUN_ELSEWHERE = re.compile(r"<!-- run by (tests/\S+\.py)\b[^>]*-->")
RUNNABLE = {"python", "bash"}


def _blocks(page: Path) -> list[tuple[str, str]]:
    text = page.read_text(encoding="utf-8")
    return [
        (fence.group(1), fence.group(2))
        for fence in FENCE.finditer(text)
        if fence.group(1) in RUNNABLE and not _run_elsewhere(text, fence.start())
    ]


def _run_elsewhere(text: str, start: int) -> bool:
    """Whether the line just above the fence at ``start`` names the test that runs it."""
    line = text[:start].rstrip("\n").rpartition("\n")[2]
    return RUN_ELSEWHERE.fullmatch(line) is not None


PAGES = [page for page in ALL_PAGES if _blocks(page)]


def test_every_page_has_a_fence_language_we_know():
    for page in ALL_PAGES:
        for lang, _ in FENCE.findall(page.read_text(encoding="utf-8")):
            assert lang in RUNNABLE | {"text"}, f"{page.name}: fence {lang!r} is neither run nor marked text"


def test_a_block_run_elsewhere_names_a_test_that_reads_its_page():
    named = 0
    for page in ALL_PAGES:
        for runner in RUN_ELSEWHERE.findall(page.read_text(encoding="utf-8")):
            test = ROOT / runner
            assert test.is_file(), f"{page.name}: {runner} does not exist"
            assert page.relative_to(ROOT).as_posix() in test.read_text(encoding="utf-8"), runner
            named += 1
    assert named >= 1  # the observability guide's opentelemetry-instrument recipe


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_every_code_sample_runs(page: Path, tmp_path: Path):
    blocks = _blocks(page)
    bin_dir = str(Path(sys.executable).parent)
    # The server refuses every key but the one in the environment, as the real API does, so samples
    # that probe a wrong key (doctor) see the 401 a newcomer's `holyclient serve --api-key` gives.
    with LocalServer(api_key="sk-docs") as server:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_"))},
            "HOLYSHEEP_API_KEY": "sk-docs",
            "HOLYSHEEP_BASE_URL": server.base_url,
            "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        }
        for number, (lang, code) in enumerate(blocks, 1):
            argv = (
                [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
            )
            result = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, f"{page.name} sample {number} ({lang}):\n{result.stderr}"
            assert result.stdout.strip(), f"{page.name} sample {number} printed nothing"


def test_the_cli_reference_is_generated_from_every_parser():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "_hooks" / "cli_reference.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.on_page_markdown("# CLI\n\n<!-- cli-reference -->\n")
    assert "<!-- cli-reference -->" not in page
    for name in SUBCOMMANDS:
        assert f"## holyclient {name}\n" in page
        assert f"usage: holyclient {name}" in page
