"""`holyclient migrate` end to end: in-place writes, --check, --diff (applied with a real `git apply`),
--json, the dirty-tree guard, parse failures and exit codes."""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from migrate_support import git, git_repo, install, pairs

from holyclient._cli import main


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def test_in_place_run_writes_every_fixture_then_a_second_run_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # each fixture is an app of its own: one run over all of them would make their env files and
    # module-level openai settings configure each other's code (the proof follows both across a run)
    codes, written = set(), ""
    for i, (name, before, after) in enumerate(pairs()):
        app = tmp_path / str(i)
        app.mkdir()
        (app / name).write_bytes(before)
        codes.add(main(["migrate", "--force", str(app)]))
        assert (app / name).read_bytes() == after, name
        written += capsys.readouterr().err
        assert main(["migrate", "--check", str(app)]) in (0, 3), name
        assert "0 would change" in capsys.readouterr().err, name
    assert "needs review" in written and "realtime" in written
    # the fixtures hold sites migrate cannot complete (a computed base URL, **kwargs, a literal key)
    assert codes == {0, 3}


def test_check_writes_nothing_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("https://api.openai.com/v1\n")
    before = snapshot(tmp_path)
    assert main(["migrate", "--check", str(tmp_path)]) == 1
    assert snapshot(tmp_path) == before
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "would change" in captured.err


def test_diff_applies_with_git_apply_and_matches_in_place_result(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    install(repo)
    (repo / "crlf.py").write_bytes(b"from openai import OpenAI\r\nc = OpenAI(\r\n    timeout=1,\r\n)\r\n")
    (repo / "bom.md").write_bytes(codecs.BOM_UTF8 + b"https://api.openai.com/v1\n")
    (repo / "nonl.sh").write_bytes(b"curl https://api.openai.com/v1/models")
    (repo / "sub dir").mkdir()
    (repo / "sub dir" / 'we"ird\\ ünï.md').write_bytes(b"https://api.openai.com/v1\n")  # quoted in the diff
    git_repo(repo)
    expected = tmp_path / "expected"
    shutil.copytree(repo, expected, ignore=shutil.ignore_patterns(".git"))
    assert main(["migrate", "--force", str(expected)]) == 3  # the fixtures hold incomplete sites
    monkeypatch.chdir(repo)
    before = snapshot(repo)
    capsysbinary.readouterr()
    assert main(["migrate", "--diff", "."]) == 3
    patch = capsysbinary.readouterr().out
    assert snapshot(repo) == before  # --diff writes nothing
    assert b"\\ No newline at end of file" in patch
    (tmp_path / "p.diff").write_bytes(patch)
    git(repo, "apply", "--check", str(tmp_path / "p.diff"))
    git(repo, "apply", str(tmp_path / "p.diff"))
    assert snapshot(repo) == snapshot(expected)


def test_json_report_lists_sites_with_file_line_and_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "app.py").write_text(
        'from openai import OpenAI\n\nc = OpenAI(base_url=cfg.url)\nU = "https://api.openai.com/v1"\n'
    )
    assert main(["migrate", "--check", "--json", str(tmp_path)]) == 3
    doc = json.loads(capsys.readouterr().out)
    sites = {(Path(s["path"]).name, s["line"], s["kind"], s["action"]) for s in doc["sites"]}
    assert sites == {("app.py", 3, "runtime-url", "incomplete"), ("app.py", 4, "url", "rewrite")}
    assert doc["summary"]["incomplete"] == {"runtime-url": 1}
    assert doc["summary"]["files_changed"] == 1 and doc["summary"]["written"] is False


def test_dirty_tree_is_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "clean.md").write_text("https://api.openai.com/v1\n")
    (tmp_path / "dirty.md").write_text("old\n")
    git_repo(tmp_path)
    (tmp_path / "dirty.md").write_text("edited, not committed: https://api.openai.com/v1\n")
    before = snapshot(tmp_path)
    assert main(["migrate", str(tmp_path)]) == 2
    assert snapshot(tmp_path) == before  # nothing written, not even the clean file
    assert "dirty.md" in capsys.readouterr().err
    assert main(["migrate", "--force", str(tmp_path)]) == 0
    assert (tmp_path / "dirty.md").read_text() == "edited, not committed: https://api.holysheep.ai/v1\n"


def test_untracked_file_counts_as_uncommitted(tmp_path: Path) -> None:
    git_repo(tmp_path)
    (tmp_path / "new.md").write_text("https://api.openai.com/v1\n")
    assert main(["migrate", str(tmp_path)]) == 2


def test_parse_failure_is_reported_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.py").write_text("import openai\nprint 'python 2'\n")
    (tmp_path / "good.py").write_text('U = "https://api.openai.com/v1"\n')
    assert main(["migrate", "--force", str(tmp_path)]) == 1
    assert (tmp_path / "good.py").read_text() == 'U = "https://api.holysheep.ai/v1"\n'
    assert (tmp_path / "bad.py").read_text() == "import openai\nprint 'python 2'\n"
    assert "bad.py:2: parse-error" in capsys.readouterr().err


def test_secret_value_never_reaches_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = "sk-proj-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={secret}\nOPENAI_BASE_URL=https://api.openai.com/v1\n")
    assert main(["migrate", "--check", "--json", str(tmp_path)]) == 3
    captured = capsys.readouterr()
    assert secret not in captured.out + captured.err
    assert "openai-key-beside-url" in captured.err


@pytest.mark.parametrize("argv", [["--json", "--diff"], ["--check", "--diff"], ["does-not-exist"]])
def test_usage_errors_exit_2(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", *argv]) == 2


@pytest.mark.slow
def test_console_script_runs_check(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("holyclient")
    if not exe.exists():
        pytest.skip("console script not installed")
    (tmp_path / "a.yaml").write_text("url: https://api.openai.com/v1\n")
    out = subprocess.run(
        [exe, "migrate", "--check", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1
    assert "1 would change" in out.stderr and out.stdout == ""


def test_keys_report_flag_and_rewrite_realtime_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.sh").write_text('curl "$OPENAI_API_KEY" wss://api.openai.com/v1/realtime\n')
    assert main(["migrate", "--force", "--keys", "report", "--rewrite-realtime", str(tmp_path)]) == 0
    assert (tmp_path / "a.sh").read_text() == 'curl "$OPENAI_API_KEY" wss://api.holysheep.ai/v1/realtime\n'
    assert "a.sh:1: key:" in capsys.readouterr().err
