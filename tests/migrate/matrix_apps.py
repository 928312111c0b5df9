"""The generated matrix of issue 39: small apps crossing how the base URL is given, how the key is given,
the client spelling and the file kind, each with the exit code a user should get, derived here from the
shapes alone (not from migrate's code).

Python apps are run after migrating (``test_migrate_matrix.py``); the other file kinds are checked on the
text migrate wrote. The expectation rules, in a user's words:

* migrate completes a site (exit 0) when, after its edits, the base URL can only be the relay's and the key
  only HolySheep's: a literal URL it rewrites (in the call, a constant, another module, a config file, a dict
  literal, an env file of the app), no URL at all (it adds one), and a key it can name (none given: it adds
  one; ``OPENAI_API_KEY`` read by name: it renames the read and the env files; ``HOLYSHEEP_API_KEY``).
* it cannot complete one (exit 3) when the base URL comes from somewhere it cannot see or that may stay
  OpenAI's (``OPENAI_BASE_URL`` from the environment, a variable no file sets, a parameter), or the key is a
  literal (an OpenAI key: never sent to the relay) or read under a name that does not say whose it is, or
  the client is built from a dict that leaves the key to the client's default (no keyword can be added
  beside ``**kwargs``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECRET = "sk-proj-" + "bWF0cml4IHRlc3Qga2V5IG9ubHk" + "7c6b5a49"
OPENAI_URL = "https://api.openai.com/v1"
RELAY_URL = "https://api.holysheep.ai/v1"


@dataclass(frozen=True)
class Way:
    """One way of giving the base URL or the key: the expression, the files it needs, and whether migrate
    can complete it (``None``: it depends on the other dimension)."""

    name: str
    expr: str | None  # None: not given at all
    files: dict[str, str] = field(default_factory=dict)
    completes: bool = True
    imports: str = ""


URLS = [
    Way("none", None),
    Way("literal-openai", f'"{OPENAI_URL}"'),
    Way("literal-relay", f'"{RELAY_URL}"'),
    Way("env-openai-base-url", f'os.getenv("OPENAI_BASE_URL", "{OPENAI_URL}")', completes=False),
    Way("env-var-set-by-dotenv", 'os.environ["LLM_BASE_URL"]', {".env": f"LLM_BASE_URL={OPENAI_URL}\n"}),
    Way("env-var-unset", 'os.environ["LLM_BASE_URL"]', completes=False),
    # the environment a container or a CI job gets (set, not beneath the shell as a .env is)
    Way(
        "env-var-set-by-compose",
        'os.environ["LLM_BASE_URL"]',
        {
            "docker-compose.yml": "services:\n  app:\n    build: .\n    environment:\n"
            f"      LLM_BASE_URL: {OPENAI_URL}\n"
        },
    ),
    Way(
        "env-var-set-by-workflow",
        'os.environ["LLM_BASE_URL"]',
        {
            ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n"
            f"      LLM_BASE_URL: {OPENAI_URL}\n    steps:\n      - run: python -m app\n"
        },
    ),
    Way("module-constant", "BASE_URL", imports=f'BASE_URL = "{OPENAI_URL}"\n'),
    Way(
        "imported-constant",
        "settings.BASE_URL",
        {"settings.py": f'# openai settings\nBASE_URL = "{OPENAI_URL}"\n'},
        imports="import settings\n",
    ),
    Way(
        "config-json",
        'CONFIG["llm"]["base_url"]',
        {"config.json": f'{{"llm": {{"base_url": "{OPENAI_URL}"}}}}\n'},
        imports='import json\nwith open(os.path.join(os.path.dirname(__file__), "config.json")) as f:\n'
        "    CONFIG = json.load(f)\n",
    ),
    Way("parameter", "url", completes=False),
]
KEYS = [
    Way("none", None),
    Way("env-openai-api-key", 'os.environ["OPENAI_API_KEY"]'),
    Way("getenv-openai-api-key", 'os.getenv("OPENAI_API_KEY")'),
    Way("env-holysheep-api-key", 'os.environ["HOLYSHEEP_API_KEY"]'),
    Way("literal-secret", f'"{SECRET}"', completes=False),
    Way("env-unnamed", 'os.environ["LLM_API_KEY"]', completes=False),
    Way(
        "imported-constant",
        "settings.OPENAI_KEY",
        {"settings.py": '# openai settings\nimport os\nOPENAI_KEY = os.environ["OPENAI_API_KEY"]\n'},
        imports="import settings\n",
    ),
    Way("module-literal", "OPENAI_KEY", completes=False, imports=f'OPENAI_KEY = "{SECRET}"\n'),
    Way(
        "imported-literal",
        "settings.OPENAI_KEY",
        {"settings.py": f'# openai settings\nOPENAI_KEY = "{SECRET}"\n'},
        completes=False,
        imports="import settings\n",
    ),
    Way(
        "dotenv-placeholder",
        'os.environ["OPENAI_API_KEY"]',
        {".env": "OPENAI_API_KEY=your-key-here\n"},
    ),
]

CALL = 'client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])'
ACALL = f"await {CALL}"


@dataclass(frozen=True)
class Spelling:
    """A client spelling: how to build it from a URL and a key expression, and how to call it."""

    name: str
    venv: str | None  # None: this interpreter
    imports: str
    build: str  # format with {kwargs}; `client` is the object `call` uses
    call: str
    url_kw: str = "base_url"
    key_kw: str = "api_key"
    kwargs_dict: bool = True  # also built from a dict literal (**kwargs)
    asynchronous: bool = False


SPELLINGS = [
    Spelling("openai", None, "from openai import OpenAI\n", "client = OpenAI({kwargs})", CALL),
    Spelling(
        "openai-async",
        None,
        "from openai import AsyncOpenAI\n",
        "client = AsyncOpenAI({kwargs})",
        ACALL,
        asynchronous=True,
    ),
    Spelling(
        "partial",
        None,
        "import functools\nfrom openai import OpenAI\n",
        "factory = functools.partial(OpenAI, {kwargs})\nclient = factory()",
        CALL,
        kwargs_dict=False,
    ),
    Spelling(
        "subclass",
        None,
        "from openai import OpenAI\n\n\nclass Mine(OpenAI):\n    pass\n",
        "client = Mine({kwargs})",
        CALL,
        kwargs_dict=False,
    ),
    Spelling(
        "module-client",
        None,
        "import openai\n",
        "{assignments}",
        CALL.replace("client.", "openai."),
        kwargs_dict=False,
    ),
    Spelling(
        "langchain",
        "openai3",
        "from langchain_openai import ChatOpenAI\n",
        'client = ChatOpenAI(model="gpt-4o-mini", {kwargs})',
        'client.invoke("hi")',
        kwargs_dict=False,
    ),
    Spelling(
        "llamaindex",
        "llamaindex",
        "from llama_index.llms.openai import OpenAI\n",
        'client = OpenAI(model="gpt-4o-mini", {kwargs})',
        'client.complete("hi")',
        url_kw="api_base",
        kwargs_dict=False,
    ),
    Spelling(
        "pydantic-ai",
        "openai3",
        "from pydantic_ai import Agent\nfrom pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n",
        'client = Agent(OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider({kwargs})))',
        'client.run_sync("hi")',
        kwargs_dict=False,
    ),
    Spelling(
        "crewai",
        "crewai",
        "from crewai import LLM\n",
        'client = LLM(model="gpt-4o-mini", {kwargs})',
        'client.call("hi")',
        kwargs_dict=False,
    ),
    Spelling(
        "agents",
        "openai3",
        "from agents import Agent, RunConfig, Runner, set_tracing_disabled\nfrom agents import OpenAIProvider\n\n"
        "set_tracing_disabled(True)\n",
        "provider = OpenAIProvider({kwargs})\n"
        'client = Agent(name="a", instructions="be brief", model="gpt-4o-mini")',
        'Runner.run_sync(client, "hi", run_config=RunConfig(model_provider=provider))',
        kwargs_dict=False,
    ),
]


@dataclass(frozen=True)
class PyApp:
    spelling: Spelling
    url: Way
    key: Way
    shape: str  # "kwargs" (keywords in the call) or "dict" (**kwargs from a dict literal)
    files: dict[str, str]
    expected: int
    sdk: bool = False  # migrated with --sdk

    @property
    def id(self) -> str:
        sdk = "sdk-" if self.sdk else ""
        return f"{sdk}{self.spelling.name}-{self.shape}-url:{self.url.name}-key:{self.key.name}"


def _expected(spelling: Spelling, url: Way, key: Way, shape: str, sdk: bool) -> int:
    if not (url.completes and key.completes):
        return 3
    holyclient = sdk and spelling.name != "module-client"  # --sdk leaves openai's module client alone
    if shape == "dict" and (key.expr is None or url.expr is None) and not holyclient:
        return 3  # nothing can be added beside **kwargs: openai's client would read its defaults
    return 0


def _kwargs(spelling: Spelling, url: Way, key: Way) -> list[tuple[str, str]]:
    out = []
    if url.expr is not None:
        out.append((spelling.url_kw, url.expr))
    if key.expr is not None:
        out.append((spelling.key_kw, key.expr))
    return out


def python_app(spelling: Spelling, url: Way, key: Way, shape: str, sdk: bool = False) -> PyApp:
    files: dict[str, str] = {}
    for way in (url, key):
        for name, content in way.files.items():
            files[name] = files.get(name, "") + content
    imports = (
        "import os\n" + spelling.imports + url.imports + (key.imports if key.imports != url.imports else "")
    )
    pairs = _kwargs(spelling, url, key)
    if spelling.name == "module-client":
        assigns = [f"openai.{'base_url' if k == 'base_url' else 'api_key'} = {v}" for k, v in pairs]
        body = "\n".join(assigns) if assigns else "pass"
        build = spelling.build.format(assignments=body)
    elif shape == "dict":
        items = ", ".join(f'"{k}": {v}' for k, v in pairs)
        build = f"kwargs = {{{items}}}\n" + spelling.build.format(kwargs="**kwargs")
    else:
        build = spelling.build.format(kwargs=", ".join(f"{k}={v}" for k, v in pairs))
    if url.name == "parameter":
        inner = build.replace("\n", "\n    ")
        factory = f"def make(url):\n    {inner}\n    return client\n\n\nclient = make({OPENAI_URL!r})"
        if spelling.name == "agents":
            factory = factory.replace("return client", "return provider, client").replace(
                "client = make(", "provider, client = make("
            )
        build = factory
    run = (
        f"async def run():\n    {spelling.call}\n"
        if spelling.asynchronous
        else f"def run():\n    {spelling.call}\n"
    )
    files["app.py"] = f"{imports}\n{build}\n\n\n{run}"
    return PyApp(spelling, url, key, shape, files, _expected(spelling, url, key, shape, sdk), sdk)


#: base URLs set by a compose file or a CI workflow (the app runs with what they set)
PROVIDED_URLS = {"env-var-set-by-compose", "env-var-set-by-workflow"}
#: a framework's own venv runs a subset (each of its runs imports the framework): every URL and key kind
FRAMEWORK_URLS = {
    "none",
    "literal-openai",
    "literal-relay",
    "env-openai-base-url",
    "module-constant",
    "imported-constant",
}
FRAMEWORK_KEYS = {"none", "env-openai-api-key", "env-holysheep-api-key", "literal-secret", "env-unnamed"}


def python_apps() -> list[PyApp]:
    apps = []
    for spelling in SPELLINGS:
        for url in URLS:
            for key in KEYS:
                if spelling.venv and (url.name not in FRAMEWORK_URLS or key.name not in FRAMEWORK_KEYS):
                    continue
                if spelling.name == "module-client" and url.name == "parameter":
                    continue  # a module attribute set in a function is the same as one set at import
                if url.name in PROVIDED_URLS and spelling.name != "openai":
                    continue  # the file kinds that set the environment, crossed with openai's client only
                for sdk in (False, True) if spelling.venv is None else (False,):
                    apps.append(python_app(spelling, url, key, "kwargs", sdk))
                    if spelling.kwargs_dict and url.name not in ("parameter",):
                        apps.append(python_app(spelling, url, key, "dict", sdk))
    return apps


# -- the other file kinds -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileApp:
    kind: str
    url: str
    key: str
    files: dict[str, str]
    expected: int
    main: str

    @property
    def id(self) -> str:
        return f"{self.kind}-url:{self.url}-key:{self.key}"


#: (name, value as the file writes it, completes): the key an env-like file sets under OPENAI_API_KEY
ENV_KEYS = [
    ("placeholder", "your-key-here", True),
    ("empty", "", True),
    ("literal-secret", SECRET, False),
    ("reference", "${OPENAI_API_KEY}", True),
    ("holysheep-placeholder", None, True),  # HOLYSHEEP_API_KEY=your-key-here instead
    ("unnamed-secret", None, False),  # LLM_API_KEY=<secret> instead
]
ENV_URLS = [
    ("none", None),
    ("literal-openai", OPENAI_URL),
    ("literal-relay", RELAY_URL),
    ("reference", "${LLM_URL}"),
]


def _env_lines(url: str | None, key: tuple[str, str | None, bool], sep: str) -> list[str]:
    name, value, _ = key
    lines = []
    if name == "holysheep-placeholder":
        lines.append(f"HOLYSHEEP_API_KEY{sep}your-key-here")
    elif name == "unnamed-secret":
        lines.append(f"LLM_API_KEY{sep}{SECRET}")
    else:
        lines.append(f"OPENAI_API_KEY{sep}{value}")
    if url is not None:
        lines.append(f"OPENAI_BASE_URL{sep}{url}")
    return lines


def file_apps() -> list[FileApp]:
    apps = []
    for url_name, url in ENV_URLS:
        for key in ENV_KEYS:
            # a literal key beside a URL migrate points at the relay: never written; beside no URL (or the
            # relay's already) the file is left as it is and is complete when nothing in it reaches OpenAI
            touches = url_name == "literal-openai"
            complete = key[2] or not touches
            if url_name == "reference" and key[0] not in ("literal-secret", "unnamed-secret"):
                complete = True
            expected = 0 if complete else 3
            if key[0] in ("literal-secret", "unnamed-secret") and url_name == "literal-relay":
                expected = 3  # the relay beside a literal key: the pair is already wrong
            kinds = {
                ".env": ("\n".join(_env_lines(url, key, "=")) + "\n", ".env"),
                "compose": (
                    "services:\n  app:\n    image: app\n    environment:\n"
                    + "".join(f"      - {line}\n" for line in _env_lines(url, key, "=")),
                    "docker-compose.yml",
                ),
                "workflow": (
                    "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n"
                    + "".join(f"      {line}\n" for line in _env_lines(url, key, ": "))
                    + "    steps:\n      - run: pytest\n",
                    ".github/workflows/ci.yml",
                ),
            }
            for kind, (content, path) in kinds.items():
                if kind == "workflow" and key[0] == "reference":
                    content = content.replace("${OPENAI_API_KEY}", "${{ secrets.OPENAI_API_KEY }}")
                apps.append(FileApp(kind, url_name, key[0], {path: content}, expected, path))
    # config files: a base URL and a key under config keys
    for url_name, url in (("literal-openai", OPENAI_URL), ("literal-relay", RELAY_URL)):
        for key_name, key_value, completes in (
            ("placeholder", "changeme", True),
            ("literal-secret", SECRET, False),
            ("reference", "${OPENAI_API_KEY}", True),
        ):
            expected = 0 if completes else 3
            contents = {
                "yaml": (f"llm:\n  base_url: {url}\n  api_key: {key_value}\n", "config.yaml"),
                "json": (f'{{"llm": {{"base_url": "{url}", "api_key": "{key_value}"}}}}\n', "config.json"),
                "toml": (f'[llm]\nbase_url = "{url}"\napi_key = "{key_value}"\n', "config.toml"),
            }
            for kind, (content, path) in contents.items():
                apps.append(FileApp(kind, url_name, key_name, {path: content}, expected, path))
    # CI secrets feeding the key (item 5b)
    for secret, expected in (("OPENAI_API_KEY", 0), ("OPENAI_KEY", 3), ("HOLYSHEEP_API_KEY", 0)):
        content = (
            "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n"
            f"      OPENAI_API_KEY: ${{{{ secrets.{secret} }}}}\n      OPENAI_BASE_URL: {OPENAI_URL}\n"
            "    steps:\n      - run: pytest\n"
        )
        apps.append(
            FileApp(
                "workflow-secret",
                "literal-openai",
                secret,
                {".github/workflows/ci.yml": content},
                expected,
                ".github/workflows/ci.yml",
            )
        )
    return apps


# -- TypeScript -------------------------------------------------------------------------------------------
TS_URLS = [
    ("none", None, True),
    ("literal-openai", f'"{OPENAI_URL}"', True),
    ("literal-relay", f'"{RELAY_URL}"', True),
    ("env-openai-base-url", "process.env.OPENAI_BASE_URL", False),
    ("env-with-default", f'process.env.LLM_URL ?? "{OPENAI_URL}"', False),
]
TS_KEYS = [
    ("none", None, True),
    ("env-openai-api-key", "process.env.OPENAI_API_KEY", True),
    ("env-holysheep-api-key", "process.env.HOLYSHEEP_API_KEY", True),
    ("literal-secret", f'"{SECRET}"', False),
    ("env-unnamed", "process.env.LLM_API_KEY", False),
]


#: the .env a Node app keeps beside its code (dotenv): the key's name, and OpenAI's URL
TS_ENV = f"OPENAI_API_KEY=\nOPENAI_BASE_URL={OPENAI_URL}\n"


def ts_apps() -> list[FileApp]:
    """Each TS client alone, and beside the app's ``.env`` (migrated together: the names the code reads
    and the names the file sets must still agree)."""
    apps = []
    for url_name, url, url_ok in TS_URLS:
        for key_name, key, key_ok in TS_KEYS:
            props = [
                p for p in ((f"baseURL: {url}" if url else None), (f"apiKey: {key}" if key else None)) if p
            ]
            obj = "{ " + ", ".join(props) + " }" if props else ""
            src = f'import OpenAI from "openai";\n\nexport const client = new OpenAI({obj});\n'
            expected = 0 if url_ok and key_ok else 3
            apps.append(FileApp("ts", url_name, key_name, {"client.ts": src}, expected, "client.ts"))
            files = {"client.ts": src, ".env": TS_ENV}
            apps.append(FileApp("ts+env", url_name, key_name, files, expected, "client.ts"))
    return apps


# -- the issue's own cases, each an app of the matrix --------------------------------------------------------
@dataclass(frozen=True)
class IssueApp:
    item: str
    files: dict[str, str]
    expected: int
    flags: tuple[str, ...] = ()
    venv: str | None = None  # run in this framework venv; "" for this interpreter; None: not runnable here
    module: str = "app"
    listed: str = ""  # a kind of site the run must list (what the user is told)

    @property
    def id(self) -> str:
        return self.item


_RUN_CHAT = 'def run():\n    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])\n'


def issue_apps() -> list[IssueApp]:
    """Items 1-14 and 5a-5d of issue 39 as apps (the ones the dimensions above do not already cross)."""
    return [
        IssueApp(
            "item-3-constant",
            {
                "app.py": f'import os\nfrom openai import OpenAI\n\nKEY = "{SECRET}"\nclient = OpenAI(api_key=KEY)\n\n\n{_RUN_CHAT}'
            },
            3,
            venv="",
        ),
        IssueApp(
            "item-4-haystack",
            {
                "app.py": "from haystack.components.generators.chat import OpenAIChatGenerator\n"
                f'from haystack.utils import Secret\n\ngen = OpenAIChatGenerator(api_key=Secret.from_token("{SECRET}"))\n'
            },
            3,
        ),
        IssueApp(
            "item-4-mem0",
            {
                "app.py": "from mem0 import Memory\n\n"
                f'memory = Memory.from_config({{"llm": {{"provider": "openai", "config": {{"api_key": "{SECRET}"}}}}}})\n'
            },
            3,
        ),
        IssueApp(
            "item-4-autogen",
            {
                "app.py": "import autogen\n\n"
                f'config_list = [{{"model": "gpt-4o", "api_key": "{SECRET}"}}]\n'
                'assistant = autogen.AssistantAgent("a", llm_config={"config_list": config_list})\n'
            },
            3,
        ),
        IssueApp(
            "item-5-subclass-init",
            {
                "app.py": "import os\nfrom openai import OpenAI\n\n\nclass Mine(OpenAI):\n    def __init__(self):\n"
                f"        super().__init__(timeout=30)\n\n\nclient = Mine()\n\n\n{_RUN_CHAT}"
            },
            0,
            venv="",
        ),
        IssueApp(
            "item-5b-workflow-and-app",
            {
                ".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    env:\n      OPENAI_API_KEY: ${{ secrets.OPENAI_KEY }}\n",
                "app.py": f"import os\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n\n{_RUN_CHAT}",
            },
            3,
            venv="",
        ),
        IssueApp(
            "item-5d-agents-tracing",
            {
                "app.py": "from agents import Agent, set_default_openai_client\nfrom openai import AsyncOpenAI\n\n"
                "set_default_openai_client(AsyncOpenAI())\nagent = Agent(name='a')\n"
            },
            0,
            listed="agents-tracing",
        ),
        IssueApp(
            "item-6-set-default-openai-key",
            {
                "app.py": "import os\nfrom agents import Agent, Runner, set_default_openai_key, set_tracing_disabled\n\n"
                'set_tracing_disabled(True)\nset_default_openai_key(os.environ["OPENAI_API_KEY"])\n'
                'agent = Agent(name="a", instructions="be brief", model="gpt-4o-mini")\n\n\n'
                'def run():\n    Runner.run_sync(agent, "hi")\n'
            },
            3,
            venv="openai3",
        ),
        IssueApp(
            "item-7-sdk-import-scope",
            {
                "app.py": "import openai\n\n\ndef helper():\n    import openai\n\n    return openai.OpenAI()\n\n\n"
                f"client = openai.OpenAI()\n\n\n{_RUN_CHAT}"
            },
            0,
            ("--sdk",),
            venv="",
        ),
        IssueApp(
            "item-8-sdk-fine-tuning",
            {
                "app.py": f"from openai import OpenAI\n\nclient = OpenAI()\nJOBS = client.fine_tuning\n\n\n{_RUN_CHAT}"
            },
            0,
            ("--sdk",),
            venv="",
        ),
        IssueApp(
            "item-9-sdk-instructor",
            {
                "app.py": "import instructor\nfrom openai import OpenAI\n\nclient = OpenAI()\n"
                f"typed = instructor.from_openai(client)\n\n\n{_RUN_CHAT}"
            },
            0,
            ("--sdk",),
            venv="instructor",
        ),
        IssueApp(
            # the first run exits 3 and leaves the default literal as it was: the rerun (--check) still does
            "item-10-runtime-url-rerun",
            {
                "app.py": "import os\nfrom openai import OpenAI\n\n"
                f'client = OpenAI(base_url=os.getenv("LLM_URL", "{OPENAI_URL}"))\n\n\n{_RUN_CHAT}'
            },
            3,
            venv="",
        ),
        IssueApp(
            "item-11-own-provider",
            {
                "app.py": "from openai import OpenAI\n\n\ndef for_row(row):\n"
                "    return OpenAI(base_url=row.base_url, api_key=row.api_key)\n"
            },
            0,
        ),
        IssueApp(
            "item-13-compose-and-app",
            {
                "docker-compose.yml": f"services:\n  app:\n    environment:\n      OPENAI_API_KEY: {SECRET}\n",
                "app.py": f"import os\nfrom openai import OpenAI\n\nclient = OpenAI(api_key=os.environ['OPENAI_API_KEY'])\n\n\n{_RUN_CHAT}",
            },
            3,
            venv="",
        ),
        IssueApp(
            "item-14-env-and-pydantic-ai",
            {
                ".env": "OPENAI_API_KEY=your-key-here\nOPENAI_BASE_URL=https://api.openai.com/v1\n",
                "app.py": 'from pydantic_ai import Agent\n\nagent = Agent("openai:gpt-4o-mini")\n\n\n'
                'def run():\n    agent.run_sync("hi")\n',
            },
            0,
            venv="openai3",
        ),
    ]
