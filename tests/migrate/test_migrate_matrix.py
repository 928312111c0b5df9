"""The generated matrix of issue 39 (``matrix_apps.py``): several hundred small apps crossing how the base
URL is given x how the key is given x the client spelling x the file kind.

Each app is migrated through the CLI and its exit code asserted. Every Python app is then run -- in this
interpreter, or in its framework's own venv (``.ci/frameworks/<venv>``) -- with recording transports and both
keys set, before and after migrating: after, an OpenAI key never reaches the relay and the HolySheep key
never reaches anything else (beyond what the app already did before migrating, when migrate wrote
nothing), and an app migrate completed sends every request to the relay with the HolySheep key. Other file
kinds are checked on the text migrate wrote.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from issue39_support import RELAY, wrong_pairs
from matrix_apps import (
    RELAY_URL,
    SECRET,
    FileApp,
    IssueApp,
    PyApp,
    file_apps,
    issue_apps,
    python_apps,
    ts_apps,
)
from recording import HOLYSHEEP_KEY, OPENAI_KEY, quiet_collect, run_app
from test_migrate_sdk_runs import run_in_venv

from holyclient._cli import main
from holyclient.migrate import migrate

PY = python_apps()
FILES = file_apps() + ts_apps()
# the apps never close their clients: their sockets are collected once, quietly, when the module is done
pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


@pytest.fixture(scope="module", autouse=True)
def _collect_the_apps_sockets() -> Iterator[None]:
    yield
    quiet_collect()


ISSUE = issue_apps()


@pytest.mark.slow
@pytest.mark.parametrize("app", ISSUE, ids=[a.id for a in ISSUE])
def test_each_case_of_the_issue_is_an_app_of_the_matrix(
    app: IssueApp, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, before, after = _migrate(tmp_path, app.files, capsys, *app.flags)
    assert code == app.expected, app.id
    if app.listed:
        assert app.listed in {s.kind for s in migrate([before], write=False).sites}, app.id
    assert main(["migrate", "--check", *app.flags, str(after)]) == (0 if code == 0 else 3)
    capsys.readouterr()
    if app.venv is None:
        return  # its framework is not installed here: the exit code and the text are what can be checked
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_"))}
    env.update(OPENAI_API_KEY=OPENAI_KEY, HOLYSHEEP_API_KEY=HOLYSHEEP_KEY)
    runs = []
    for root in (before, after):
        root_env = dict(env)
        for name, value in _env_file(root).items():
            root_env.setdefault(name, value)
        runs.append({"root": str(root), "module": app.module, "env": root_env})
    if app.venv:
        reports = run_in_venv(app.venv, runs)
    else:
        reports = []
        for run in runs:
            monkeypatch.chdir(run["root"])
            reports.append(run_app(str(run["root"]), app.module, run["env"], collect=False))  # type: ignore[arg-type]
    wrong_before, wrong_after = (wrong_pairs([tuple(r) for r in rep["requests"]]) for rep in reports)  # type: ignore[misc]
    assert set(wrong_after) <= set(wrong_before), (app.id, wrong_after)
    if code == 0:
        assert reports[1]["error"] is None, (app.id, reports[1].get("traceback"))
        assert {tuple(r) for r in reports[1]["requests"]} == {(RELAY, HOLYSHEEP_KEY)}, app.id  # type: ignore[union-attr]


def test_the_matrix_has_several_hundred_apps() -> None:
    assert len(PY) + len(FILES) >= 400
    assert {a.spelling.name for a in PY} >= {
        "openai",
        "module-client",
        "partial",
        "subclass",
        "langchain",
        "llamaindex",
        "pydantic-ai",
        "agents",
        "crewai",
    }
    assert {a.kind for a in FILES} >= {".env", "compose", "workflow", "yaml", "json", "toml", "ts", "ts+env"}


def _env_file(root: Path) -> dict[str, str]:
    """The app's ``.env`` as python-dotenv loads it (``${X}`` expanded; the environment wins)."""
    path = root / ".env"
    values: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                name, _, value = line.partition("=")
                values[name.strip()] = re.sub(
                    r"\$\{(\w+)\}", lambda m: values.get(m.group(1), ""), value.strip()
                )
    return values


def _environment(app: PyApp, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_", "LLM_"))}
    env.update(OPENAI_API_KEY=OPENAI_KEY, HOLYSHEEP_API_KEY=HOLYSHEEP_KEY, LLM_API_KEY=OPENAI_KEY)
    if app.url.name == "env-var-unset":
        env["LLM_BASE_URL"] = (
            "https://api.openai.com/v1"  # the deployment as it was: nothing of the app sets it
        )
    for name, value in _env_file(root).items():
        env.setdefault(name, value)
    env.update(_provided(root))
    return env


def _provided(root: Path) -> dict[str, str]:
    """What the app's compose file or CI workflow sets: the environment the container or job runs with."""
    values: dict[str, str] = {}
    for name in ("docker-compose.yml", ".github/workflows/ci.yml"):
        if (root / name).exists():
            for m in re.finditer(
                r"^[ \t]+([A-Z][A-Z0-9_]*):[ \t]*(\S+)[ \t]*$", (root / name).read_text(), re.M
            ):
                values[m.group(1)] = m.group(2)
    return values


def _migrate(
    tmp: Path, files: dict[str, str], capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, Path, Path]:
    before = tmp / "before"
    after = tmp / "after"
    for root in (before, after):
        for name, content in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(content)
    code = main(["migrate", "--force", *args, str(after)])
    capsys.readouterr()
    return code, before, after


def _check_run(app: PyApp, code: int, before: dict[str, Any], after: dict[str, Any]) -> None:
    wrong_after = wrong_pairs([tuple(r) for r in after["requests"]])  # type: ignore[misc]
    wrong_before = wrong_pairs([tuple(r) for r in before["requests"]])  # type: ignore[misc]
    assert set(wrong_after) <= set(wrong_before), (app.id, wrong_after, app.files["app.py"])
    if code == 0:
        # migrate does not mend what was broken before (a module-level base_url without its trailing slash)
        assert after["error"] is None or before["error"] is not None, (app.id, after.get("traceback"))
        requests = [tuple(r) for r in after["requests"]]
        assert requests and set(requests) == {(RELAY, HOLYSHEEP_KEY)}, (app.id, requests)


LOCAL = [a for a in PY if a.spelling.venv is None]


@pytest.mark.slow  # runs every app four times: kept out of the mutation runs (benchmarks/mutation.sh)
@pytest.mark.parametrize("app", LOCAL, ids=[a.id for a in LOCAL])
def test_a_python_app_is_migrated_to_its_exit_code_and_its_keys_reach_their_hosts(
    app: PyApp, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flags = ("--sdk",) if app.sdk else ()
    code, before, after = _migrate(tmp_path, app.files, capsys, *flags)
    assert code == app.expected, (app.id, (after / "app.py").read_text())
    for exported in ({}, {"OPENAI_BASE_URL": "https://api.openai.com/v1"}):  # 5c: the shell exports it
        results = []
        for root in (before, after):
            monkeypatch.chdir(root)
            results.append(run_app(str(root), "app", {**_environment(app, root), **exported}, collect=False))
        _check_run(app, code, *results)
    # --check on the migrated app gives the same verdict and has nothing left to write
    assert main(["migrate", "--check", *flags, str(after)]) == (0 if code == 0 else 3)
    capsys.readouterr()


FRAMEWORKS = sorted({a.spelling.name for a in PY if a.spelling.venv})


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("spelling", FRAMEWORKS)
def test_framework_apps_are_migrated_and_run_in_their_own_venv(
    spelling: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    apps = [a for a in PY if a.spelling.name == spelling]
    venv = apps[0].spelling.venv
    assert venv is not None
    listing, codes = [], []
    for i, app in enumerate(apps):
        code, before, after = _migrate(tmp_path / str(i), app.files, capsys)
        assert code == app.expected, (app.id, (after / "app.py").read_text())
        codes.append(code)
        for root in (before, after):
            listing.append({"root": str(root), "module": "app", "env": _environment(app, root)})
    reports = run_in_venv(venv, listing)
    for i, app in enumerate(apps):
        _check_run(app, codes[i], reports[2 * i], reports[2 * i + 1])


@pytest.mark.parametrize("app", FILES, ids=[a.id for a in FILES])
def test_a_config_or_env_file_is_migrated_to_its_exit_code_and_never_pairs_keys_wrongly(
    app: FileApp, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, before, after = _migrate(tmp_path, app.files, capsys)
    assert code == app.expected, (app.id, (after / app.main).read_text())
    for name in app.files:
        old, new = (before / name).read_text(), (after / name).read_text()
        # the relay's URL never beside a literal key the file did not already pair with it
        if SECRET in new and RELAY_URL in new:
            assert RELAY_URL in old, (app.id, name)
        # the HolySheep key never fed from an OpenAI-named secret or variable
        assert not re.search(r"HOLYSHEEP_API_KEY\W+\$\{\{\s*secrets\.OPENAI", new), (app.id, name)
        if code == 0:
            code_lines = [ln for ln in new.splitlines() if not ln.lstrip().startswith(("#", "//"))]
            assert not any("api.openai.com" in ln for ln in code_lines), (app.id, name, new)
    if code == 0 and ".env" in app.files:
        # the app starts: every key name the code reads is one its .env sets (or the relay's own)
        env = (after / ".env").read_text()
        reads = set(re.findall(r"process\.env\.(\w+_API_KEY)", (after / app.main).read_text()))
        assert reads <= set(re.findall(r"^(\w+)=", env, re.M)), (app.id, reads, env)
    assert shutil.which  # nothing of the app was run: text files only
