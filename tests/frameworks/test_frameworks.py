"""holyclient inside the real frameworks, installed from PyPI: each framework's docs recipe, run through
``as_openai()`` against the local server in the framework's own venv (``.ci/frameworks/<venv>``, made by
``.ci/install-frameworks``, which ``.ci/run`` runs), by ``harness.py``.

For each framework: a call works; holyclient counted and priced every request the server answered; a
stream works, no chunk the framework did not ask for reached it, and it was charged with the server's
usage; a structured output or tool call works; one 429 gives exactly two requests and the call
succeeds; a spent budget sends nothing and raises an error that names the budget and is openai's own
``APIStatusError`` (or the framework's wrapping of it).

A missing venv fails the test in CI (``CI`` set) and skips it elsewhere, saying how to make it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermetic import leaky_variables

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).parent / "harness.py"
DOCS = ROOT / "docs" / "frameworks"

#: recipe -> (venv under .ci/frameworks, or None for this interpreter; its docs page)
FRAMEWORKS: dict[str, tuple[str | None, str]] = {
    "plain_openai": (None, "index.md"),
    "plain_openai_2": ("llamaindex", "index.md"),  # the same recipe on openai 2.x (httpx)
    "langchain": ("openai3", "langchain.md"),
    "pydantic_ai": ("openai3", "pydantic-ai.md"),
    "openai_agents": ("openai3", "openai-agents.md"),
    "llamaindex": ("llamaindex", "llamaindex.md"),
    "instructor": ("instructor", "instructor.md"),
    "crewai": ("crewai", "crewai.md"),
    "dspy": ("dspy", "dspy.md"),
}


#: The frameworks' own reporting home, off: nothing at test time leaves the machine (CrewAI's telemetry
#: would try, and wait on a network there is none of).
OFFLINE = {"CREWAI_DISABLE_TELEMETRY": "true"}

#: The frameworks whose recipe defines ``traced`` (the others trace to systems of their own, or not at all).
TRACED_WITH_OPENTELEMETRY = {"pydantic_ai"}


def _python(venv: str | None) -> str:
    if venv is None:
        return sys.executable
    python = ROOT / ".ci" / "frameworks" / venv / "bin" / "python"
    if not python.exists():
        message = (
            f"no framework venv {python.parent.parent}: make it with `bash .ci/install-frameworks {venv}`"
        )
        if os.environ.get("CI"):
            pytest.fail(message + " (.ci/run does)")
        pytest.skip(message)
    return str(python)


@pytest.fixture(scope="module", params=sorted(FRAMEWORKS))
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    name = request.param
    recipe = "fw_plain_openai" if name == "plain_openai_2" else f"fw_{name}"
    python = _python(FRAMEWORKS[name][0])
    # as hermetic as the tests' own environment: no key, base URL or proxy of the shell (this fixture is
    # module-scoped, so the per-test clean-up of os.environ has not run yet)
    leaky = set(leaky_variables(os.environ))
    env = {k: v for k, v in os.environ.items() if k not in leaky}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])  # this checkout's code
    env |= OFFLINE
    done = subprocess.run(
        [python, str(HARNESS), recipe], capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    assert Path(result["versions"]["holyclient"]).is_relative_to(ROOT / "src"), result["versions"]
    result["name"] = name
    return result


def _ok(scenario: dict[str, Any]) -> None:
    assert "error" not in scenario, scenario["error"]["traceback"]
    server, usage = scenario["server"], scenario["usage"]
    assert server["ok"] >= 1
    assert usage["requests"] == server["ok"], (usage, server)  # every answered request counted
    assert usage["cost_usd"] > 0 and usage["unpriced"] == []  # and priced
    assert usage["approximate"] == 0  # with the usage the server reported


@pytest.mark.slow
def test_a_call_works_and_every_request_is_counted_and_priced(report: dict[str, Any]) -> None:
    call = report["call"]
    _ok(call)
    assert call["server"]["requests"] == 1
    assert call["result"]


@pytest.mark.slow
def test_a_stream_works_shows_no_chunk_not_asked_for_and_is_charged(report: dict[str, Any]) -> None:
    stream = report["stream"]
    if stream is None:  # DSPy streams through its own engines (dspy.streamify), never a custom BaseLM
        pytest.skip(f"{report['name']}: its recipe has no stream")
    _ok(stream)
    assert "".join(stream["result"])
    streams = [seen for seen in stream["seen"] if seen["stream"]]
    assert streams, "the framework did not stream"
    for seen in streams:
        usage_only = [frame for frame in seen["frames"] if frame.get("choices") == []]
        if seen["asked"] is None:  # holyclient asked for usage: the caller must not see its chunk
            assert usage_only == []
        else:  # the framework asked (pydantic-ai does): it gets the chunk
            assert len(usage_only) == 1


@pytest.mark.slow
def test_a_structured_output_or_tool_call_works(report: dict[str, Any]) -> None:
    _ok(report["structured"])


def _persons(result: Any) -> list[Any]:
    """The objects a structured-output scenario returned (one, or one per mode / sync and async)."""
    if isinstance(result, dict) and "name" not in result:
        return [person for value in result.values() for person in _persons(value)]
    return [result]


@pytest.mark.slow
def test_the_default_structured_output_gives_a_valid_object_on_every_relay_model(
    report: dict[str, Any],
) -> None:
    """The framework's default structured-output call on gpt-4.1 (takes a JSON schema), claude-sonnet-4.5
    (ignores one) and deepseek-v3.2 (refuses one), against the relay profile: a valid object, every
    answered attempt counted and priced with the server's usage."""
    runs = report["structured_on"]
    assert sorted(runs) == ["claude-sonnet-4.5", "deepseek-v3.2", "gpt-4.1"]
    for model, run in runs.items():
        assert "error" not in run, (model, run["error"]["traceback"])
        for person in _persons(run["result"]):
            assert isinstance(person, dict) and isinstance(person.get("name"), str) and person["name"], (
                model,
                run,
            )
        server, usage = run["server"], run["usage"]
        assert server["ok"] >= 1 and server["statuses"].count(200) == server["ok"]
        assert usage["requests"] == server["ok"], (model, usage, server)  # every answered attempt counted
        assert usage["cost_usd"] > 0 and usage["unpriced"] == [] and usage["approximate"] == 0, (model, usage)


@pytest.mark.slow
def test_one_429_gives_exactly_two_requests_and_the_call_succeeds(report: dict[str, Any]) -> None:
    limited = report["rate_limited"]
    _ok(limited)
    assert limited["server"]["requests"] == 2 and limited["server"]["ok"] == 1
    assert limited["server"]["retry_counts"] == ["0", "1"]  # holyclient's attempts, numbered by it


@pytest.mark.slow
def test_a_spent_budget_sends_nothing_and_raises_an_openai_error_naming_the_budget(
    report: dict[str, Any],
) -> None:
    spent = report["budget_spent"]
    assert spent["server"]["requests"] == 0
    assert "error" in spent
    assert "budget" in spent["error"]["message"]
    assert "openai.APIStatusError" in spent["error"]["chain"], spent["error"]["chain"]


def _recipe_block(path: Path) -> list[str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    start, end = lines.index("# recipe"), lines.index("# end recipe")
    return [line for line in lines[start + 1 : end] if line]


@pytest.mark.parametrize("name", sorted(set(FRAMEWORKS) - {"plain_openai_2"}))
def test_the_docs_page_shows_the_recipe_the_tests_run(name: str) -> None:
    """The page's recipe is the one proven here: its lines appear in the page, in order, unchanged (the
    page's script may indent them, inside ``async def main()``)."""
    block = _recipe_block(Path(__file__).parent / "recipes" / f"fw_{name}.py")
    page = (DOCS / FRAMEWORKS[name][1]).read_text()
    lines = [line.strip() for line in page.splitlines()]
    at = 0
    for line in block:
        assert line in lines[at:], f"{FRAMEWORKS[name][1]} lacks the recipe line {line!r}"
        at = lines.index(line, at) + 1


@pytest.mark.slow
@pytest.mark.parametrize("report", sorted(TRACED_WITH_OPENTELEMETRY), indirect=True)
def test_holyclient_s_span_is_a_child_of_the_framework_s_span(report: dict[str, Any]) -> None:
    """Where the framework traces with OpenTelemetry (pydantic-ai), holyclient's span for each request sits
    inside the framework's model request span."""
    spans = report["traced"]["spans"]
    ours = [span for span in spans if span["scope"] == "holyclient"]
    assert len(ours) == 1, spans  # one span for the one request
    assert ours[0]["parent_scope"] not in (None, "holyclient"), spans  # the framework's own span


@pytest.mark.slow
@pytest.mark.parametrize("report", ["openai_agents"], indirect=True)
def test_the_agents_sdk_would_export_its_traces_with_the_placeholder_never_holyclient_s_key(
    report: dict[str, Any],
) -> None:
    """The Agents SDK posts traces to api.openai.com with its default client's key: from ``as_openai()``
    that is the placeholder."""
    from holyclient.openai_compat import PLACEHOLDER_KEY

    assert report["trace_export"] == {"is_holyclient_key": False, "key": PLACEHOLDER_KEY}
