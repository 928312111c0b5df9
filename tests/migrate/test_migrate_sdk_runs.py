"""Issue 39, ``--sdk`` output that runs: each shape migrated with ``--sdk``, then imported and called
(recording transports answered by the local server) -- the import lands in the scope that uses it (item
7), code using what holyclient's client lacks stays on openai's client (8), a client handed to a framework
stays a genuine openai client, run in the framework's own venv (9), and a base URL read from
``OPENAI_BASE_URL`` is proven like any other (5c). Each test failed on the code before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from issue39_support import RELAY, migrated, run, text, wrong_pairs
from recording import HOLYSHEEP_KEY, OPENAI_KEY

ROOT = Path(__file__).resolve().parents[2]
CALL = '.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])'


# -- item 5c ---------------------------------------------------------------------------------------------
def test_sdk_proves_a_base_url_read_from_openai_base_url_like_any_other(tmp_path: Path) -> None:
    src = "import os\nfrom openai import OpenAI\n\n"
    src += 'client = OpenAI(base_url=os.getenv("OPENAI_BASE_URL", "https://api.openai.com/v1"))\n\n\n'
    src += f"def run():\n    client{CALL}\n"
    code, root = migrated(tmp_path, {"app.py": src}, "--sdk")
    assert code == 3
    report = run(root, OPENAI_BASE_URL="https://api.openai.com/v1")  # the environment exports OpenAI's URL
    assert report["error"] is None and wrong_pairs(report["requests"]) == []


# -- item 7 ----------------------------------------------------------------------------------------------
def test_sdk_puts_import_holyclient_where_every_use_sees_it(tmp_path: Path) -> None:
    src = "import openai\n\n\ndef helper():\n    import openai\n\n    return openai.OpenAI()\n\n\n"
    src += f"client = openai.OpenAI()\n\n\ndef run():\n    client{CALL}\n    helper(){CALL}\n"
    code, root = migrated(tmp_path, {"app.py": src}, "--sdk")
    assert code == 0
    assert text(root).startswith("import openai\nimport holyclient\n")
    report = run(root)
    assert report["error"] is None, report.get("traceback")
    assert report["requests"] == [(RELAY, HOLYSHEEP_KEY)] * 2


# -- item 8 ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "use"),
    [
        ('client = OpenAI(webhook_secret="whsec_x")', ""),
        ("client = OpenAI()", "    assert client.fine_tuning is not None\n"),
        ("client = OpenAI()", "    assert client.vector_stores is not None\n"),
        ("client = OpenAI()", "    assert client.beta.assistants is not None\n"),
    ],
    ids=["webhook-secret", "fine-tuning", "vector-stores", "beta-assistants"],
)
def test_sdk_keeps_code_using_what_holyclient_lacks_on_openai_and_it_runs(
    tmp_path: Path, body: str, use: str
) -> None:
    src = f"from openai import OpenAI\n\n{body}\n\n\ndef run():\n{use}    client{CALL}\n"
    code, root = migrated(tmp_path, {"app.py": src}, "--sdk")
    assert code == 0
    assert "from openai import OpenAI" in text(root)
    report = run(root)
    assert report["error"] is None, report.get("traceback")
    assert report["requests"] == [(RELAY, HOLYSHEEP_KEY)]


# -- item 9: in each framework's own venv ----------------------------------------------------------------------
HANDOFFS = {
    "instructor": (
        "instructor",
        "import instructor\nfrom openai import OpenAI\n\nclient = OpenAI()\ntyped = instructor.from_openai(client)\n\n\n"
        f"def run():\n    typed.client{CALL}\n",
    ),
    "langchain": (
        "openai3",
        "from langchain_openai import ChatOpenAI\nfrom openai import OpenAI\n\nroot = OpenAI()\n"
        'llm = ChatOpenAI(model="gpt-4o-mini", root_client=root, api_key="unused", base_url="https://api.holysheep.ai/v1")\n\n\n'
        'def run():\n    root.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])\n',
    ),
    "pydantic-ai": (
        "openai3",
        "from openai import AsyncOpenAI\nfrom pydantic_ai import Agent\nfrom pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n\nclient = AsyncOpenAI()\n"
        'agent = Agent(OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client)))\n\n\n'
        'def run():\n    agent.run_sync("hi")\n',
    ),
    "agents": (
        "openai3",
        "from agents import Agent, Runner, set_default_openai_client, set_tracing_disabled\n"
        "from openai import AsyncOpenAI\n\nset_tracing_disabled(True)\nset_default_openai_client(AsyncOpenAI())\n"
        'agent = Agent(name="a", instructions="be brief", model="gpt-4o-mini")\n\n\n'
        'def run():\n    Runner.run_sync(agent, "hi")\n',
    ),
}


def _venv_python(venv: str) -> str:
    python = ROOT / ".ci" / "frameworks" / venv / "bin" / "python"
    if not python.exists():
        message = (
            f"no framework venv {python.parent.parent}: make it with `bash .ci/install-frameworks {venv}`"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return str(python)


def run_in_venv(venv: str, apps: list[dict[str, object]]) -> list[dict[str, object]]:
    """``recording.py`` in the framework's venv, with this checkout's ``src`` first on the path."""
    python = _venv_python(venv)
    listing = Path(str(apps[0]["root"])).parent / f"{venv}-apps.json"
    listing.write_text(json.dumps(apps))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(Path(__file__).parent)])
    out = subprocess.run(
        [python, str(Path(__file__).parent / "recording.py"), str(listing)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(HANDOFFS))
def test_sdk_keeps_a_client_handed_to_a_framework_a_genuine_openai_client(tmp_path: Path, name: str) -> None:
    venv, src = HANDOFFS[name]
    code, root = migrated(tmp_path, {"app.py": src}, "--sdk")
    assert code == 0
    assert "from openai import" in text(root) and "holyclient" not in text(root)
    env = {
        "OPENAI_API_KEY": OPENAI_KEY,
        "HOLYSHEEP_API_KEY": HOLYSHEEP_KEY,
        "PATH": os.environ.get("PATH", ""),
    }
    [report] = run_in_venv(venv, [{"root": str(root), "module": "app", "env": env}])
    assert report["error"] is None, report.get("traceback")
    requests = [tuple(r) for r in report["requests"]]  # type: ignore[union-attr]
    assert requests and all(host == RELAY and key == HOLYSHEEP_KEY for host, key in requests), requests
    assert sys.executable  # the test process itself never sent anything
