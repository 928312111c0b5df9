"""The frameworks' own spellings (issue 31 item 7): small apps in the shape of each framework
(``fixtures_frameworks/``) rewritten to their after files byte for byte, a second run that changes
nothing, and the sites migrate cannot complete listed with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_apps import write_app

from holyclient.migrate import migrate, process

FIXTURES = Path(__file__).parent / "fixtures_frameworks"
NAMES = sorted(p.name.removesuffix(".before") for p in FIXTURES.glob("*.before"))


def _pair(name: str) -> tuple[bytes, bytes]:
    return (FIXTURES / f"{name}.before").read_bytes(), (FIXTURES / f"{name}.after").read_bytes()


#: what stays incomplete in a fixture alone (none: each one's clients are completed in the file itself)
INCOMPLETE: dict[str, list[str]] = {}


@pytest.mark.parametrize("name", NAMES)
def test_framework_app_is_rewritten_to_its_after_file(name: str) -> None:
    before, after = _pair(name)
    result = process(name, before)
    assert result.after == after
    assert [s.kind for s in result.sites if s.action in ("error", "incomplete")] == INCOMPLETE.get(name, [])


@pytest.mark.parametrize("name", NAMES)
def test_framework_app_second_run_changes_nothing(name: str) -> None:
    again = process(name, _pair(name)[1])
    assert again.status == "unchanged"
    assert [s.kind for s in again.sites if s.action != "review"] == INCOMPLETE.get(name, [])


@pytest.mark.parametrize("name", NAMES)
def test_framework_app_keeps_crlf(name: str) -> None:
    before, after = _pair(name)
    assert process(name, before.replace(b"\n", b"\r\n")).after == after.replace(b"\n", b"\r\n")


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith(".py")])
def test_framework_app_results_compile(name: str) -> None:
    compile(process(name, _pair(name)[0]).after, name, "exec", dont_inherit=True)


def test_every_framework_of_the_issue_has_an_app() -> None:
    wanted = {
        "pydantic_ai",
        "agents",
        "dspy",
        "haystack",
        "crewai",
        "autogen",
        "autogen02",
        "semantic_kernel",
        "mem0",
    }
    assert wanted <= {n.removesuffix("_app.py") for n in NAMES}
    assert {"OAI_CONFIG_LIST", "pipeline.yaml", "app.env", "llamaindex.env"} <= set(NAMES)


AGENT = 'from agents import Agent, Runner\n\nagent = Agent(name="a", model="gpt-4o-mini")\n'


def test_an_agent_on_the_default_client_is_incomplete(tmp_path: Path) -> None:
    write_app(tmp_path, {"bot.py": AGENT})
    sites = migrate([tmp_path], write=False).sites
    assert [(s.line, s.kind, s.action) for s in sites] == [(3, "agents-default-client", "incomplete")]
    assert "set_default_openai_client" in sites[0].message


def test_an_agent_is_complete_when_another_file_sets_the_default_client(tmp_path: Path) -> None:
    start = "from agents import set_default_openai_client\nfrom openai import AsyncOpenAI\n"
    start += 'set_default_openai_client(AsyncOpenAI(base_url="https://api.holysheep.ai/v1"))\n'
    write_app(tmp_path, {"bot.py": AGENT, "main.py": start})
    report = migrate([tmp_path], write=False)
    assert report.incomplete == []
    main = next(r for r in report.files if r.path.endswith("main.py")).after.decode()
    # the client it sets would have read OPENAI_API_KEY: it gets HolySheep's key (issue 39 item 1)
    assert 'api_key=os.environ["HOLYSHEEP_API_KEY"]' in main and "use_for_tracing=False" in main


@pytest.mark.parametrize(
    ("src", "kind", "action"),
    [
        (b"import dspy\nlm = dspy.LM(MODEL)\n", "framework", "review"),
        (b"from crewai import LLM\nllm = LLM(**settings)\n", "kwargs-constructor", "incomplete"),
        (
            b"from crewai import LLM\nllm = LLM(model='gpt-4o', base_url=cfg.url)\n",
            "runtime-url",
            "incomplete",
        ),
    ],
)
def test_what_migrate_cannot_see_is_listed(src: bytes, kind: str, action: str) -> None:
    result = process("app.py", src)
    assert result.after == src
    assert [(s.line, s.kind, s.action) for s in result.sites] == [(2, kind, action)]


def test_a_literal_key_in_oai_config_list_keeps_the_file_away_from_the_relay() -> None:
    src = b'[{"model": "gpt-4", "api_key": "sk-proj-a1b2c3d4e5f6g7h8"}]\n'
    result = process("OAI_CONFIG_LIST", src)
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites] == [(1, "openai-key-beside-url")]


def test_a_client_handed_in_is_configured_where_it_is_built() -> None:
    src = (
        b"from pydantic_ai.providers.openai import OpenAIProvider\np = OpenAIProvider(openai_client=client)\n"
    )
    assert process("p.py", src).sites == []


CREW = {
    "crew.py": 'import os\nfrom crewai import LLM\nllm = LLM(model="gpt-4o", base_url=os.getenv("BASE_URL"))\n',
    ".env": "BASE_URL=https://api.openai.com/v1\nAPI_BASE=https://api.openai.com/v1\n",
}


def test_crewai_bare_variables_in_the_env_file_complete_a_base_url_read_from_them(tmp_path: Path) -> None:
    app = write_app(tmp_path, CREW)
    report = migrate([app], write=False)
    assert (app / ".env").read_bytes() != next(r.after for r in report.files if r.path.endswith(".env"))
    assert report.incomplete == []
    # BASE_URL now points at the relay: the LLM, which would read OPENAI_API_KEY, gets HolySheep's key
    assert [(s.kind, s.action) for s in report.sites if s.path.endswith("crew.py")] == [
        ("framework", "rewrite")
    ]
    crew = next(r for r in report.files if r.path.endswith("crew.py")).after.decode()
    assert 'api_key=os.environ["HOLYSHEEP_API_KEY"]' in crew
    alone = write_app(tmp_path / "alone", {"crew.py": CREW["crew.py"]})
    assert [(s.line, s.kind) for s in migrate([alone], write=False).incomplete] == [(3, "runtime-url")]


def test_an_apps_own_agents_package_is_not_the_agents_sdk() -> None:
    src = b'from agents import Agent\n\nbot = Agent(name="mine", model="gpt-4o")\n'
    assert [s for s in process("bot.py", src).sites if s.action == "incomplete"] == []


def test_the_done_mark_never_silences_a_literal_key() -> None:
    src = b"OPENAI_API_KEY=sk-proj-a1b2c3d4e5f6g7h8  # holyclient-migrate: ok\nOPENAI_BASE_URL=https://api.openai.com/v1\n"
    result = process(".env", src)
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites] == [(1, "openai-key-beside-url")]
