"""``migrate --base-url-env NAME``: before/after pairs (``fixtures_env/``, run with NAME=APP_BASE_URL),
a second run that changes nothing, the sites listed in the report, and the command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from holyclient._cli import main
from holyclient.migrate import process

FIXTURES = Path(__file__).parent / "fixtures_env"
NAMES = sorted(p.name.removesuffix(".before") for p in FIXTURES.glob("*.before"))
ENV = "APP_BASE_URL"


def _pair(name: str) -> tuple[bytes, bytes]:
    return (FIXTURES / f"{name}.before").read_bytes(), (FIXTURES / f"{name}.after").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_rewritten_to_read_the_base_url_from_the_variable(name: str) -> None:
    before, after = _pair(name)
    result = process(name, before, base_url_env=ENV)
    assert result.after == after
    assert all(site.action != "error" for site in result.sites)


@pytest.mark.parametrize("name", NAMES)
def test_second_run_with_the_variable_changes_nothing(name: str) -> None:
    _, after = _pair(name)
    again = process(name, after, base_url_env=ENV)
    assert again.status == "unchanged"
    assert [s for s in again.sites if s.action == "rewrite"] == []


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith(".py")])
def test_python_results_compile(name: str) -> None:
    compile(process(name, _pair(name)[0], base_url_env=ENV).after, name, "exec", dont_inherit=True)


def test_every_form_the_option_rewrites_is_in_the_fixtures() -> None:
    texts = {name: _pair(name)[1].decode() for name in NAMES}
    assert 'os.environ.get("APP_BASE_URL", "https://api.holysheep.ai/v1")' in texts["app.py"]
    assert "import os\n" in texts["app.py"] and "import os\n" not in _pair("app.py")[0].decode()
    assert 'openai.api_base = os.environ.get("APP_BASE_URL"' in texts["legacy.py"]
    assert 'baseURL: process.env.APP_BASE_URL ?? "https://api.holysheep.ai/v1"' in texts["client.ts"]
    for name in ("run.sh", "Dockerfile", "docker-compose.yml"):
        assert "${APP_BASE_URL:-https://api.holysheep.ai/v1}" in texts[name], name
    # no ${...} syntax in a plain YAML manifest, nor inside single quotes in shell: a literal there
    assert "${" not in texts["deploy.yaml"] and "echo 'https://api.holysheep.ai/v1'" in texts["run.sh"]


def test_outside_the_spans_it_edits_every_byte_is_kept() -> None:
    before, after = _pair("app.py")
    assert before.splitlines()[-1] == b'URL = "https://api.openai.com/v1/chat/completions"'
    assert after.splitlines()[-1] == b'URL = "https://api.holysheep.ai/v1/chat/completions"'
    assert before.splitlines()[0] == after.splitlines()[0]


def test_the_report_lists_each_base_url_read_from_the_variable() -> None:
    result = process("run.sh", _pair("run.sh")[0], base_url_env=ENV)
    sites = [s for s in result.sites if s.kind == "base-url-env"]
    assert [(s.line, s.action) for s in sites] == [(2, "rewrite")]
    assert "APP_BASE_URL" in sites[0].message


def _git_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
        check=True,
    )


def test_cli_writes_the_variable_form_and_check_lists_the_files(tmp_path, monkeypatch, capsys) -> None:
    for name in ("app.py", "run.sh", "deploy.yaml"):
        (tmp_path / name).write_bytes(_pair(name)[0])
    (tmp_path / "untouched.py").write_text("print('hello')\n")
    _git_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", ".", "--check", "--base-url-env", ENV]) == 1
    err = capsys.readouterr().err
    listed = sorted(line.split(": ", 1)[1] for line in err.splitlines() if "would change: " in line)
    assert listed == ["app.py", "deploy.yaml", "run.sh"]
    assert main(["migrate", ".", "--base-url-env", ENV]) == 0
    assert (tmp_path / "app.py").read_bytes() == _pair("app.py")[1]
