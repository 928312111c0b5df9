"""The ``compare`` HTML report in a real headless Chromium: it renders, with no console errors, offline."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.testing import LocalServer
from test_compare import _sample

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    argv = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)


@pytest.fixture
def report_html(tmp_path, monkeypatch, capsys) -> Path:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", "sk-html-secret")
    sample = _sample(tmp_path / "sample.jsonl")
    out = tmp_path / "report.html"
    with LocalServer(noise=0.1, seed=1) as old, LocalServer(noise=0.1, seed=2, persona="other") as new:
        code = main(
            ["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--repeat", "2",
             "--gate", "similarity>=noise-0.05", "--gate", "error_rate<=0.01", "-o", str(out)]
        )  # fmt: skip
    assert code == 1, capsys.readouterr().err  # the different model fails a gate: the page shows it
    return out


def test_the_html_report_needs_no_script_and_no_network(report_html):
    page = report_html.read_text()
    assert "<script" not in page.lower()
    assert re.findall(r"""(?:src|href)\s*=""", page) == []
    assert "@import" not in page and "url(" not in page


@pytest.mark.slow
def test_the_html_report_renders_in_chromium_without_console_errors(report_html, tmp_path):
    shot = tmp_path / "report.png"
    result = _chromium(tmp_path, "--window-size=1200,2400", f"--screenshot={shot}", report_html.as_uri())
    assert result.returncode == 0, result.stderr
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000

    dom = _chromium(tmp_path, "--dump-dom", report_html.as_uri())
    assert dom.returncode == 0, dom.stderr
    for text in ("holyclient compare", "FAIL", "similarity&gt;=noise-0.05", "Differing requests", "<svg"):
        assert text in dom.stdout
