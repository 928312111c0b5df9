"""Issue 39, the key sent to the wrong host: each shape the rules used to miss, migrated and then run
with both keys set -- an OpenAI key never reaches the relay, the HolySheep key never reaches OpenAI, and
a site migrate cannot prove keeps its file's key/URL pairing as it was and makes the run exit 3.
Items 1, 2, 3, 4, 5, 5a, 5b and 6; each test failed on the code before the provenance model."""

from __future__ import annotations

from pathlib import Path

import pytest
from issue39_support import OPENAI, RELAY, migrated, run, text, wrong_pairs
from recording import HOLYSHEEP_KEY

SECRET = "sk-proj-" + "Zm9yIHRlc3RzIG9ubHkgbm90IGEga2V5" + "0a1b2c3d"
CHAT = 'client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])'


def app(body: str, imports: str = "import os\nfrom openai import OpenAI\n") -> str:
    return f"{imports}\n{body}\n\ndef run():\n    {CHAT}\n"


# -- item 1: a base URL without a key -----------------------------------------------------------------
def test_a_literal_openai_base_url_without_a_key_gets_the_holysheep_key(tmp_path: Path) -> None:
    code, root = migrated(tmp_path, {"app.py": app('client = OpenAI(base_url="https://api.openai.com/v1")')})
    assert code == 0
    assert 'api_key=os.environ["HOLYSHEEP_API_KEY"]' in text(root)
    report = run(root)
    assert report["error"] is None and report["requests"] == [(RELAY, HOLYSHEEP_KEY)]


@pytest.mark.parametrize("exported", [None, "https://api.openai.com/v1"])
def test_a_base_url_read_from_openai_base_url_is_not_proven_and_sends_no_key_astray(
    tmp_path: Path, exported: str | None
) -> None:
    body = 'client = OpenAI(base_url=os.getenv("OPENAI_BASE_URL", "https://api.openai.com/v1"))'
    code, root = migrated(tmp_path, {"app.py": app(body)})
    assert code == 3  # the environment decides where it goes: OpenAI's URL by its name
    assert text(root) == app(body)  # the pairing stays as it was
    env = {"OPENAI_BASE_URL": exported} if exported else {}
    report = run(root, **env)
    assert report["error"] is None and wrong_pairs(report["requests"]) == []


def test_langchain_chat_openai_given_only_a_base_url_gets_the_holysheep_key(tmp_path: Path) -> None:
    body = 'llm = ChatOpenAI(model="gpt-4o", base_url="https://api.openai.com/v1")'
    code, root = migrated(tmp_path, {"app.py": f"from langchain_openai import ChatOpenAI\n\n{body}\n"})
    assert code == 0
    assert 'base_url="https://api.holysheep.ai/v1", api_key=os.environ["HOLYSHEEP_API_KEY"]' in text(root)


# -- item 2: openai's module-level client ---------------------------------------------------------------
def test_the_module_client_given_a_base_url_gets_the_holysheep_key(tmp_path: Path) -> None:
    src = 'import openai\n\nopenai.base_url = "https://api.openai.com/v1/"\n\n\ndef run():\n    '
    src += CHAT.replace("client.", "openai.") + "\n"
    code, root = migrated(tmp_path, {"app.py": src})
    assert code == 0
    assert 'openai.api_key = os.environ["HOLYSHEEP_API_KEY"]' in text(root)
    report = run(root)
    assert report["error"] is None and report["requests"] == [(RELAY, HOLYSHEEP_KEY)]


# -- item 3: a literal key spelled some other way -----------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("config.yaml", f"llm:\n  base_url: https://api.openai.com/v1\n  api_key: {SECRET}\n"),
        ("config.json", f'{{"base_url": "https://api.openai.com/v1", "api_key": "{SECRET}"}}\n'),
        ("settings.toml", f'[llm]\nbase_url = "https://api.openai.com/v1"\napi_key = "{SECRET}"\n'),
        (".env", f"LLM_API_KEY={SECRET}\nLLM_BASE_URL=https://api.openai.com/v1\n"),
    ],
    ids=["yaml", "json", "toml", "env-other-name"],
)
def test_a_literal_key_under_any_name_keeps_its_file_on_openai(
    tmp_path: Path, name: str, content: str
) -> None:
    code, root = migrated(tmp_path, {name: content})
    assert code == 3
    assert (root / name).read_text() == content


def test_a_literal_key_bound_to_a_constant_keeps_the_client_on_openai(tmp_path: Path) -> None:
    body = f'KEY = "{SECRET}"\nclient = OpenAI(api_key=KEY)'
    code, root = migrated(tmp_path, {"app.py": app(body)})
    assert code == 3
    assert text(root) == app(body)
    assert wrong_pairs(run(root)["requests"]) == []


# -- item 4: the framework config rules --------------------------------------------------------------------
@pytest.mark.parametrize(
    "src",
    [
        "from haystack.components.generators.chat import OpenAIChatGenerator\n"
        "from haystack.utils import Secret\n\n"
        f'gen = OpenAIChatGenerator(api_key=Secret.from_token("{SECRET}"))\n',
        "from mem0 import Memory\n\n"
        f'config = {{"llm": {{"provider": "openai", "config": {{"model": "gpt-4o", "api_key": "{SECRET}"}}}}}}\n'
        "memory = Memory.from_config(config)\n",
        "import autogen\n\n"
        f'config_list = [{{"model": "gpt-4", "api_key": "{SECRET}"}}]\n'
        'assistant = autogen.AssistantAgent("a", llm_config={"config_list": config_list})\n',
    ],
    ids=["haystack-from-token", "mem0", "autogen-config-list"],
)
def test_framework_configs_never_put_the_relay_beside_a_literal_key(tmp_path: Path, src: str) -> None:
    code, root = migrated(tmp_path, {"app.py": src})
    assert code == 3
    assert text(root) == src


# -- item 5: functools.partial and subclasses ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "expect"),
    [
        (
            "import functools\nfactory = functools.partial(OpenAI, timeout=30)\nclient = factory()",
            'functools.partial(OpenAI, timeout=30, base_url="https://api.holysheep.ai/v1", api_key=',
        ),
        (
            "class Mine(OpenAI):\n    def hello(self):\n        return 1\n\n\nclient = Mine()",
            'client = Mine(base_url="https://api.holysheep.ai/v1", api_key=',
        ),
        (
            "class Mine(OpenAI):\n    def __init__(self, **kw):\n        super().__init__(timeout=30)\n\n\n"
            "client = Mine()",
            'super().__init__(timeout=30, base_url="https://api.holysheep.ai/v1", api_key=',
        ),
    ],
    ids=["partial", "subclass", "subclass-init"],
)
def test_partials_and_subclasses_of_openai_are_migrated(tmp_path: Path, body: str, expect: str) -> None:
    code, root = migrated(tmp_path, {"app.py": app(body)})
    assert code == 0
    assert expect in text(root)
    report = run(root)
    assert report["error"] is None and report["requests"] == [(RELAY, HOLYSHEEP_KEY)]


# -- item 5a: a key in another module ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("imports", "use", "settings"),
    [
        ("from settings import OPENAI_KEY\n", "OPENAI_KEY", f'OPENAI_KEY = "{SECRET}"\n'),
        ("import settings\n", "settings.OPENAI_KEY", f'OPENAI_KEY = "{SECRET}"\n'),
        # a module that never says "openai" is read only because a name leads there
        ("from conf.keys import LLM_KEY\n", "LLM_KEY", f'LLM_KEY = "{SECRET}"\n'),
    ],
    ids=["from-import", "module-attribute", "module-without-openai"],
)
def test_a_literal_key_imported_from_another_module_keeps_the_client_on_openai(
    tmp_path: Path, imports: str, use: str, settings: str
) -> None:
    src = app(f"client = OpenAI(api_key={use})", f"from openai import OpenAI\n{imports}")
    module = "conf/keys.py" if "conf" in imports else "settings.py"
    code, root = migrated(tmp_path, {"app.py": src, module: settings})
    assert code == 3
    assert text(root) == src
    assert wrong_pairs(run(root)["requests"]) == []


# -- item 5b: a CI secret is a key source too ---------------------------------------------------------------------
def test_a_workflow_secret_named_for_openai_never_feeds_the_holysheep_key(tmp_path: Path) -> None:
    workflow = "on: push\njobs:\n  t:\n    env:\n      OPENAI_API_KEY: ${{ secrets.OPENAI_KEY }}\n"
    workflow += "    steps:\n      - run: python app.py\n"
    files = {".github/workflows/ci.yml": workflow, "app.py": app("client = OpenAI()")}
    code, root = migrated(tmp_path, files)
    assert code == 3
    assert (
        "HOLYSHEEP_API_KEY: ${{ secrets.OPENAI_KEY }}" not in (root / ".github/workflows/ci.yml").read_text()
    )
    # the app reads what the workflow sets: both keep their pairing (OPENAI_API_KEY) until the secret is fixed
    assert "OPENAI_API_KEY" in text(root) or "HOLYSHEEP_API_KEY" not in text(root)


# -- item 6: the Agents SDK's default key -------------------------------------------------------------------------
def test_set_default_openai_key_is_not_renamed_while_the_default_client_calls_openai(tmp_path: Path) -> None:
    src = "import os\nfrom agents import Agent, Runner, set_default_openai_key\n\n"
    src += 'set_default_openai_key(os.environ["OPENAI_API_KEY"])\nagent = Agent(name="a", model="gpt-4o")\n'
    code, root = migrated(tmp_path, {"bot.py": src})
    assert code == 3
    assert 'set_default_openai_key(os.environ["OPENAI_API_KEY"])' in text(root, "bot.py")
    assert OPENAI  # the default client keeps OpenAI's key for OpenAI's URL
