"""Key names renamed alike in every spelling an app uses (issue 31 item 4): ``docker run --env`` /
``-e``, a CI workflow's ``env:``, shell ``export``, Python ``os.environ``; values are placeholders unless
they look like a key (the rule in docs/guides/migrating.md). After migrating a shell_gpt-shaped app, its
own test suite passes as it did before."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_apps import SGPT, run_app_tests, write_app

from holyclient._cli import main
from holyclient.migrate import process
from holyclient.migrate._rules import secret_like

SPELLINGS = [
    ("run.sh", "docker run --env OPENAI_API_KEY=api_key img\n"),
    ("run.sh", "docker run -e OPENAI_API_KEY=$OPENAI_API_KEY img\n"),
    ("run.sh", 'docker run -e "OPENAI_API_KEY=${OPENAI_API_KEY}" img\n'),
    ("run.sh", "docker run --env OPENAI_API_KEY img\n"),
    (".github/workflows/ci.yml", "env:\n  OPENAI_API_KEY: test_api_key\n"),
    (".github/workflows/ci.yml", "env:\n  OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\n"),
    ("setup.sh", 'export OPENAI_API_KEY="your OPENAI API key"\n'),
    ("conftest.py", 'import os\nos.environ["OPENAI_API_KEY"] = "test_api_key"\n'),
    ("conftest.py", 'import os\nos.environ.setdefault("OPENAI_API_KEY", "dummy")\n'),
    ("compose.yml", "environment:\n  - OPENAI_API_KEY=changeme\n"),
    (".env.example", "OPENAI_API_KEY=\n"),
]


@pytest.mark.parametrize(("name", "text"), SPELLINGS, ids=[t for _, t in SPELLINGS])
def test_every_spelling_of_the_key_name_is_renamed(name: str, text: str) -> None:
    result = process(name, text.encode())
    assert b"OPENAI_API_KEY" not in result.after
    assert result.after == text.replace("OPENAI_API_KEY", "HOLYSHEEP_API_KEY").encode()
    assert not [s for s in result.sites if s.action != "rewrite"]


@pytest.mark.parametrize(
    "value",
    [
        "sk-proj-abcDEF123456",
        "sk-live-abcdef123",
        "sk-test-4eC39HqLyjWDarjtT1zdp7dc",
        "a1b2c3d4e5f6",
        "0123456789abcdef0123456789abcdef",
    ],
)
def test_a_value_that_looks_like_a_key_is_reported_not_renamed(value: str) -> None:
    assert secret_like(value)
    result = process("ci.yml", f"env:\n  OPENAI_API_KEY: {value}\n".encode())
    assert b"OPENAI_API_KEY" in result.after
    assert [s.kind for s in result.sites] == ["key-value"]


@pytest.mark.parametrize(
    "value",
    ["api_key", "test_api_key", "dummy-key-1", "your-key", "sk-xxxxxxxx", "changeme", "<key>", "fake123key"],
)
def test_placeholder_values_are_renamed_with_their_name(value: str) -> None:
    assert not secret_like(value)


@pytest.mark.slow
def test_a_shell_gpt_shaped_app_keeps_passing_its_own_tests_after_migrating(tmp_path: Path) -> None:
    app = write_app(tmp_path, SGPT)
    before = run_app_tests(app)
    assert before.returncode == 0 and "2 passed" in before.stdout, before.stdout + before.stderr
    # OpenAI(**kwargs): where the dict's key goes depends on API_BASE_URL, which no file sets -- incomplete
    # until someone has looked, and nothing of the key/URL pairing is rewritten meanwhile
    assert main(["migrate", "--sdk", "--force", str(app)]) == 3
    assert run_app_tests(app).returncode == 0
    handler = app / "sgpt/handler.py"
    handler.write_text(
        handler.read_text().replace("OpenAI(**kwargs)", "OpenAI(**kwargs)  # holyclient-migrate: ok")
    )
    assert main(["migrate", "--sdk", "--force", str(app)]) == 0
    leftovers = [p for p in app.rglob("*") if p.is_file() and b"OPENAI_API_KEY" in p.read_bytes()]
    assert leftovers == []
    after = run_app_tests(app)
    assert after.returncode == 0 and "2 passed" in after.stdout, after.stdout + after.stderr
    assert main(["migrate", "--sdk", "--check", str(app)]) == 0
