"""``migrate --sdk``: openai's client names switched to holyclient's, byte-exact elsewhere and idempotent;
a ``**kwargs``-built client (shell_gpt's shape) is proven by the same rules as any other (its dict may carry
OpenAI's key), and once reviewed reaches ``HOLYSHEEP_BASE_URL``, run against the local server; the report
lists what differs from openai, tied to the README's "Switching from openai"."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import openai
import pytest
from sample_apps import SGPT, write_app

import holyclient
from holyclient._cli import main
from holyclient.migrate import migrate, process
from holyclient.migrate._sdk import DIFFERENCES, SDK_NAMES, SHARED_KWARGS, UNSUPPORTED_ATTRS, UNSUPPORTED_BETA

ROOT = Path(__file__).resolve().parents[2]

BEFORE = b"""\
import openai
from openai import AsyncOpenAI, OpenAI
from openai import AzureOpenAI, RateLimitError, types


def build(options, azure):
    if azure:
        return AzureOpenAI(api_version="2024-06-01", **options)
    client = OpenAI(timeout=options["timeout"])
    again = openai.OpenAI(timeout=3)
    try:
        return client, again, AsyncOpenAI()
    except (RateLimitError, openai.APIStatusError):
        raise
"""
AFTER = b"""\
import openai
import holyclient
from holyclient import AsyncOpenAI, OpenAI
from holyclient import RateLimitError
from openai import AzureOpenAI, types


def build(options, azure):
    if azure:
        return AzureOpenAI(api_version="2024-06-01", **options)
    client = OpenAI(timeout=options["timeout"])
    again = holyclient.OpenAI(timeout=3)
    try:
        return client, again, AsyncOpenAI()
    except (RateLimitError, holyclient.APIStatusError):
        raise
"""


def test_sdk_switches_the_client_and_its_errors_and_leaves_azure_alone() -> None:
    result = process("app.py", BEFORE, sdk=True)
    assert result.after == AFTER
    assert not [s for s in result.sites if s.action == "incomplete"]
    assert sorted({s.line for s in result.sites if s.kind == "sdk"}) == [2, 3, 10, 13]


def test_sdk_does_not_complete_a_client_built_from_a_dict_it_cannot_read() -> None:
    """holyclient's client sends to HOLYSHEEP_BASE_URL when the dict has no base_url: a dict that may hold
    OpenAI's api_key (shell_gpt's does) would then give it to the relay; the file stays as it was."""
    src = b"from openai import OpenAI\n\n\ndef build(kwargs):\n    return OpenAI(**kwargs)\n"
    result = process("app.py", src, sdk=True)
    assert result.after == src
    assert [(s.line, s.kind) for s in result.sites if s.action == "incomplete"] == [(5, "kwargs-constructor")]


def test_sdk_second_run_changes_nothing() -> None:
    again = process("app.py", AFTER, sdk=True)
    assert again.status == "unchanged" and again.sites == []


@pytest.mark.parametrize("variant", ["crlf", "bom"])
def test_sdk_keeps_line_breaks_and_bom(variant: str) -> None:
    if variant == "crlf":
        assert process("app.py", BEFORE.replace(b"\n", b"\r\n"), sdk=True).after == AFTER.replace(
            b"\n", b"\r\n"
        )
    else:
        assert process("app.py", b"\xef\xbb\xbf" + BEFORE, sdk=True).after == b"\xef\xbb\xbf" + AFTER


def test_an_import_with_a_comment_inside_is_listed_not_split() -> None:
    src = b"from openai import (\n    OpenAI,  # the client\n    AzureOpenAI,\n)\n"
    result = process("c.py", src, sdk=True)
    assert result.after == src
    assert [(s.line, s.kind, s.action) for s in result.sites] == [(1, "sdk", "review")]


def test_without_sdk_nothing_is_switched() -> None:
    assert b"holyclient" not in process("app.py", BEFORE).after


def test_every_switched_name_is_exported_by_both_packages() -> None:
    assert set(holyclient.__all__) >= SDK_NAMES
    assert all(hasattr(openai, name) for name in SDK_NAMES)


def test_every_difference_the_readme_lists_is_in_the_report() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Switching from openai") :]
    section = section[: section.index("\n#", 10)]
    leads = [re.sub(r"[`*]", "", m) for m in re.findall(r"^- \*\*(.+?)\*\*", section, re.M)]
    listed = [d.replace("`", "") for d in DIFFERENCES]
    missing = [lead for lead in leads if lead != "Additions" and not any(d.startswith(lead) for d in listed)]
    assert leads and not missing


def test_the_report_lists_the_differences_once_when_code_was_switched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "app.py").write_bytes(BEFORE)
    report = migrate([tmp_path], write=False, sdk=True)
    assert report.sdk_notes == list(DIFFERENCES)
    assert main(["migrate", "--check", "--sdk", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("what differs from openai") == 1
    assert migrate([tmp_path], write=False).sdk_notes == []


@pytest.mark.slow
@pytest.mark.parametrize("local_server", [{"api_key": "hs-test-key"}], indirect=True)
def test_sdk_moves_a_kwargs_built_client_to_holysheep_base_url(tmp_path: Path, local_server) -> None:
    app = write_app(tmp_path, SGPT)
    assert main(["migrate", "--force", str(app)]) == 3  # without --sdk: OpenAI(**kwargs) stays incomplete
    app = write_app(tmp_path / "fresh", SGPT)
    # with --sdk too: API_BASE_URL (no file sets it) decides where the dict's key goes, so the user looks
    assert main(["migrate", "--sdk", "--force", str(app)]) == 3
    assert (app / "sgpt/handler.py").read_text() == SGPT["sgpt/handler.py"]
    handler = app / "sgpt/handler.py"
    handler.write_text(
        handler.read_text().replace("OpenAI(**kwargs)", "OpenAI(**kwargs)  # holyclient-migrate: ok")
    )
    assert main(["migrate", "--sdk", "--force", str(app)]) == 0
    assert handler.read_text().startswith("from holyclient import OpenAI\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_"))}
    env.update(HOLYSHEEP_API_KEY="hs-test-key", HOLYSHEEP_BASE_URL=local_server.base_url, PYTHONPATH=str(app))
    code = "from sgpt.handler import ask; print(ask('hello'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert [r.path for r in local_server.requests] == ["/v1/chat/completions"]
    assert local_server.requests[0].body["messages"][0]["content"] == "hello"


def test_the_unsupported_lists_match_both_packages() -> None:
    theirs = openai.OpenAI(api_key="x")
    ours = holyclient.OpenAI(api_key="x")
    for name in UNSUPPORTED_ATTRS:
        assert hasattr(theirs, name) and not hasattr(ours, name), name
    for name in UNSUPPORTED_BETA:
        assert hasattr(theirs.beta, name) and not hasattr(ours.beta, name), name
    resources = {n for n in dir(theirs) if not n.startswith("_") and hasattr(type(theirs), n)}
    shared = {n for n in resources if hasattr(ours, n)}
    assert resources - shared - UNSUPPORTED_ATTRS <= {
        "admin_api_key", "auth_headers", "custom_auth", "get_api_list", "is_closed", "platform_headers", "qs",
        "user_agent", "webhook_secret", "websocket_base_url", "workload_identity",
    }  # fmt: skip
    accepted = set(inspect.signature(holyclient.OpenAI.__init__).parameters)
    assert (
        accepted >= SHARED_KWARGS
        and set(inspect.signature(openai.OpenAI.__init__).parameters) >= SHARED_KWARGS
    )
