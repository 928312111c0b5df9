"""Issue 39, exit codes that mislead and apps that stop working: a rerun proves what the first run could
not (item 10), the user's own provider and config files migrate rewrote are followed (11), a git-ignored
``.env`` is read and listed, and backed up when written (12), an app and its environment keep one key
name (13, 14), and an Agents app is told where its traces still go (5d). Each test failed on the code
before the provenance model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from issue39_support import RELAY, migrated, run, text, wrong_pairs
from migrate_support import git, git_repo
from recording import HOLYSHEEP_KEY, OPENAI_KEY
from sample_apps import write_app

from holyclient._cli import main
from holyclient.migrate import migrate

SECRET = "sk-proj-" + "c2VjcmV0IGZvciB0ZXN0cyBvbmx5" + "9f8e7d6c"
CHAT = 'client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])'


# -- item 10 ---------------------------------------------------------------------------------------------
def test_a_rerun_still_lists_a_runtime_url_site_it_could_not_complete(tmp_path: Path) -> None:
    src = "import os\nfrom openai import OpenAI\n\n"
    src += 'client = OpenAI(base_url=os.getenv("LLM_URL", "https://api.openai.com/v1"))\n'
    code, root = migrated(tmp_path, {"app.py": src})
    assert code == 3
    assert main(["migrate", "--force", str(root)]) == 3
    assert main(["migrate", "--check", str(root)]) == 3
    assert text(root) == src  # nothing half-migrated for the rerun to take for done


# -- item 11 ---------------------------------------------------------------------------------------------
def test_url_and_key_from_one_user_record_are_the_users_own_provider(tmp_path: Path) -> None:
    src = "from openai import OpenAI\n\n\ndef client_for(row):\n"
    src += "    return OpenAI(base_url=row.base_url, api_key=row.api_key)\n"
    code, root = migrated(tmp_path, {"providers.py": src})
    assert code == 0
    sites = migrate([root], write=False).sites
    assert [(s.kind, s.action) for s in sites] == [("own-provider", "review")]


@pytest.mark.parametrize(
    ("files", "read"),
    [
        (
            {"settings.ini": "[openai]\nOPENAI_API_BASE = https://api.openai.com/v1\n"},
            'import configparser\nconfig = configparser.ConfigParser()\nconfig.read("settings.ini")\n'
            'client = OpenAI(base_url=config["openai"]["OPENAI_API_BASE"], api_key=os.environ["OPENAI_API_KEY"])\n',
        ),
        (
            {"config.json": '{"openai": {"base_url": "https://api.openai.com/v1"}}\n'},
            'import json\nwith open("config.json") as f:\n    cfg = json.load(f)\n'
            'client = OpenAI(base_url=cfg["openai"]["base_url"], api_key=os.environ["OPENAI_API_KEY"])\n',
        ),
        (
            {},
            'ENDPOINTS = {"openai": "https://api.openai.com/v1", "local": "http://localhost:8000/v1"}\n'
            'client = OpenAI(base_url=ENDPOINTS[os.environ.get("PROVIDER", "openai")], '
            'api_key=os.environ["OPENAI_API_KEY"])\n',
        ),
    ],
    ids=["ini", "json", "endpoint-table"],
)
def test_a_base_url_read_from_a_config_migrate_rewrote_is_complete(
    tmp_path: Path, files: dict[str, str], read: str
) -> None:
    app = f"import os\nfrom openai import OpenAI\n{read}\n\ndef run():\n    {CHAT}\n"
    code, root = migrated(tmp_path, {"app.py": app, **files})
    assert code == 0
    os.chdir(root)
    report = run(root)
    assert report["error"] is None and report["requests"] == [(RELAY, HOLYSHEEP_KEY)]


# -- item 12 ---------------------------------------------------------------------------------------------
def test_a_git_ignored_env_file_is_read_listed_and_backed_up_when_written(tmp_path: Path) -> None:
    root = write_app(tmp_path, {".gitignore": ".env\n", ".env.example": "OPENAI_API_KEY=\n"})
    git_repo(root)
    (root / ".env").write_text("OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY=\n")
    report = migrate([root], write=False)
    listed = [s for s in report.sites if s.path.endswith(os.sep + ".env")]
    assert listed and listed[0].kind == "ignored-file"
    assert "OPENAI_API_KEY" in listed[0].message and "line 1" in listed[0].message
    assert (root / ".env").read_text().startswith("OPENAI_BASE_URL=https://api.openai.com")
    assert main(["migrate", "--force", str(root)]) == 0
    assert "api.holysheep.ai" in (root / ".env").read_text()
    backups = list((root / ".git" / "holyclient-migrate").rglob(".env"))
    assert [b.read_text() for b in backups] == [
        "OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY=\n"
    ]
    assert "?? " not in git(root, "status", "--porcelain")  # the backup is not in the work tree


def test_a_git_ignored_env_with_a_live_key_is_listed_without_its_value(tmp_path: Path) -> None:
    root = write_app(
        tmp_path, {".gitignore": ".env\n", "app.py": "from openai import OpenAI\nc = OpenAI()\n"}
    )
    git_repo(root)
    (root / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    argv = [sys.executable, "-m", "holyclient", "migrate", "--check", str(root)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert SECRET not in out.stderr + out.stdout
    assert ".env" in out.stderr and "OPENAI_API_KEY" in out.stderr


# -- item 13 ---------------------------------------------------------------------------------------------
def test_an_app_stays_consistent_with_a_compose_file_migrate_cannot_rename(tmp_path: Path) -> None:
    compose = f"services:\n  app:\n    environment:\n      OPENAI_API_KEY: {SECRET}\n"
    app = "import os\nfrom openai import OpenAI\n\nclient = OpenAI(api_key=os.environ['OPENAI_API_KEY'])\n"
    code, root = migrated(tmp_path, {"docker-compose.yml": compose, "app.py": app})
    assert code == 3
    assert (root / "docker-compose.yml").read_text() == compose
    assert "os.environ['OPENAI_API_KEY']" in text(root)  # the container still finds its key


# -- item 14 ---------------------------------------------------------------------------------------------
def test_pydantic_ai_model_strings_get_holysheeps_key_whatever_the_shell_exports(tmp_path: Path) -> None:
    """pydantic-ai's "openai:..." models read OPENAI_API_KEY, which a shell with both keys holds as OpenAI's
    whatever a .env says (python-dotenv does not override it): the model gets a provider of its own."""
    env = "OPENAI_API_KEY=your-key-here\nOPENAI_BASE_URL=https://api.openai.com/v1\n"
    app = 'from pydantic_ai import Agent\n\nagent = Agent("openai:gpt-4o")\n'
    code, root = migrated(tmp_path, {".env": env, "agent.py": app})
    assert code == 0
    assert "HOLYSHEEP_API_KEY=your-key-here" in (root / ".env").read_text()
    written = text(root, "agent.py")
    assert (
        'infer_model("openai:gpt-4o", lambda _: OpenAIProvider(base_url="https://api.holysheep.ai/v1"'
        in written
    )
    assert 'api_key=os.environ["HOLYSHEEP_API_KEY"]' in written


def test_a_pydantic_ai_model_string_left_without_a_key_is_incomplete(tmp_path: Path) -> None:
    src = 'from pydantic_ai import Agent\n\nagent = Agent("openai:gpt-4o")\n'
    code, root = migrated(tmp_path, {"agent.py": src}, "--keys", "report")
    assert code == 3 and text(root, "agent.py") == src


# -- item 5d ---------------------------------------------------------------------------------------------
def test_an_agents_app_is_told_its_traces_still_go_to_openai(tmp_path: Path) -> None:
    src = "from agents import Agent, set_default_openai_client\nfrom openai import AsyncOpenAI\n\n"
    src += "set_default_openai_client(AsyncOpenAI())\nagent = Agent(name='a')\n"
    write_app(tmp_path, {"bot.py": src})
    sites = migrate([tmp_path], write=False).sites
    tracing = [s for s in sites if s.kind == "agents-tracing"]
    assert tracing and "api.openai.com" in tracing[0].message and "OPENAI_API_KEY" in tracing[0].message


def test_both_keys_set_no_key_reaches_the_wrong_host_after_item_10(tmp_path: Path) -> None:
    src = "import os\nfrom openai import OpenAI\n\n"
    src += 'client = OpenAI(base_url=os.getenv("LLM_URL", "https://api.openai.com/v1"))\n\n\ndef run():\n    '
    src += CHAT + "\n"
    _, root = migrated(tmp_path, {"app.py": src})
    for env in ({}, {"LLM_URL": "https://api.openai.com/v1"}):
        assert wrong_pairs(run(root, **env)["requests"]) == [], env
    assert OPENAI_KEY
