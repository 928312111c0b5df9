"""The observability guide's zero-code recipe, run as written: its ``app.py`` under its
``opentelemetry-instrument`` commands (docs/guides/observability.md), with the collector's address
swapped for an OTLP receiver on 127.0.0.1 that decodes what it gets."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from holyclient.testing import LocalServer

from .conftest import KEY
from .receiver import Receiver, attributes

ROOT = Path(__file__).resolve().parents[2]
GUIDE = "docs/guides/observability.md"
COLLECTOR = "http://localhost:4318"  # what the guide points the exporter at


def _recipe() -> tuple[list[str], str, str]:
    """The section's ``pip install`` arguments, its ``app.py`` and its shell commands."""
    text = (ROOT / GUIDE).read_text(encoding="utf-8")
    start = text.index("## Without changing the code")
    section = text[start : text.index("\n## ", start + 1)]
    pip = re.search(r"^pip install ((?:.*\\\n)*.*)$", section, re.M)
    app = re.search(r"^```python\n(# app\.py\n.*?)^```$", section, re.M | re.S)
    commands = re.search(
        r"<!-- run by tests/otel/test_otel_guide_recipe\.py[^>]*-->\n```bash\n(.*?)^```$",
        section,
        re.M | re.S,
    )
    assert pip and app and commands, "the recipe's section lost one of its three blocks"
    return shlex.split(pip.group(1).replace("\\\n", " ")), app.group(1), commands.group(1)


def test_every_package_the_recipe_installs_is_installed_here():
    """The test below runs with what the recipe's ``pip install`` line names (the dev extra has them)."""
    packages, _, _ = _recipe()
    assert "opentelemetry-distro" in packages  # opentelemetry-instrument comes with it
    for package in map(Requirement, packages):
        metadata.version(package.name)  # raises PackageNotFoundError
        declared = [Requirement(line) for line in metadata.requires(package.name) or []]
        for extra in package.extras:
            needs = [r for r in declared if r.marker is not None and r.marker.evaluate({"extra": extra})]
            assert needs, f"{package.name} has no [{extra}] extra"
            for requirement in needs:
                metadata.version(requirement.name)


@pytest.mark.slow
def test_the_zero_code_recipe_sends_genai_spans_and_metrics_to_the_collector(
    server: LocalServer, receiver: Receiver, tmp_path: Path
):
    _, app, commands = _recipe()
    assert commands.count(COLLECTOR) == 1
    (tmp_path / "app.py").write_text(app, encoding="utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_", "OTEL_"))},
        "HOLYSHEEP_API_KEY": KEY,
        "HOLYSHEEP_BASE_URL": server.base_url,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands.replace(COLLECTOR, receiver.endpoint)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    assert "Failed to auto initialize" not in result.stderr, result.stderr
    assert result.stdout.strip() == "Echo: Say hi"  # what the local server answers

    spans = [(resource, span) for resource, span in receiver.spans() if span.name == "chat gpt-4.1"]
    assert len(spans) == 1, [span.name for _, span in receiver.spans()]
    ((resource, span),) = spans
    assert resource["service.name"] == "my-app"
    assert span.kind == span.SPAN_KIND_CLIENT
    found = attributes(span.attributes)
    assert found["gen_ai.operation.name"] == "chat"
    assert found["gen_ai.request.model"] == "gpt-4.1"
    assert found["gen_ai.usage.output_tokens"] > 0
    assert {"gen_ai.client.operation.duration", "gen_ai.client.token.usage"} <= set(receiver.metrics())
    assert not any(KEY.encode() in body for bodies in receiver.bodies.values() for body in bodies)
