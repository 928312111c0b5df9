"""``Client()`` / ``AsyncClient()`` are cheap: no connection pool and no resource module until first use."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from holyclient import AsyncClient, Client
from holyclient._send._base_client import _COPY_CHANGES, RESOURCE_NAMES, BaseClient
from holyclient._send._settings import ClientSettings
from holyclient.resources import ASYNC_RESOURCES, SYNC_RESOURCES


def test_the_lazily_bound_resources_are_exactly_the_registered_ones() -> None:
    assert RESOURCE_NAMES == set(SYNC_RESOURCES) == set(ASYNC_RESOURCES)


@pytest.mark.parametrize("cls", [Client, AsyncClient])
def test_every_setting_the_constructors_name_is_declared_once_and_reaches_the_client(cls: type) -> None:
    """The constructors name every setting explicitly (IDEs, docs, parity) and hand them all on: a
    parameter missing from ``ClientSettings`` would be dropped, one missing from the signature fails."""
    assert list(inspect.signature(cls.__init__).parameters)[1:] == list(ClientSettings.__annotations__)
    changed = list(inspect.signature(BaseClient.with_options).parameters)[1:]
    assert changed == list(_COPY_CHANGES)  # what with_options changes, each one applied
    client = cls(api_key="sk-settings-0123456789", organization="org-9", max_retries=7, record_rate=0.5)
    assert (client.organization, client.max_retries, client._recorder) == ("org-9", 7, None)


def test_constructing_a_client_makes_no_pool_and_imports_no_resource_module() -> None:
    code = (
        "import sys, holyclient\n"
        "c = holyclient.Client(api_key='k'); a = holyclient.AsyncClient(api_key='k')\n"
        "assert c._made_http() is None and a._made_http() is None\n"
        "assert not [m for m in sys.modules if m.startswith('holyclient.resources')], sorted(sys.modules)\n"
        "assert c.chat.completions is c.chat.completions  # bound once, on first access\n"
        "assert c._made_http() is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_resources_bind_to_the_client_they_are_read_from() -> None:
    client = Client(api_key="k", base_url="http://127.0.0.1:1/v1")
    chat = client.chat
    copy = client.with_options(max_retries=5)
    assert chat._client is client and copy.chat._client is copy
    assert copy._http is client._http  # a copy shares the pool (made once, for both)
    assert type(AsyncClient(api_key="k").models).__name__ == "AsyncModels"
    client.close()


def test_closing_a_client_that_never_sent_makes_no_pool() -> None:
    client = Client(api_key="k")
    client.close()
    assert client._made_http() is None


def test_constructing_a_client_imports_no_http_library_and_no_opentelemetry() -> None:
    """``Client()`` costs well under a millisecond: the HTTP library (for the default ``Timeout``) and
    OpenTelemetry (for the instruments) load on first use, not in the constructor."""
    code = (
        "import sys, holyclient\n"
        "before = set(sys.modules)\n"
        "c = holyclient.Client(api_key='k'); a = holyclient.AsyncClient(api_key='k', timeout=3)\n"
        "new = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in ('httpx2', 'opentelemetry'))\n"
        "assert not new, new\n"
        "assert c.timeout.read == 600.0 and c.timeout.connect == 5.0 and a.timeout == 3  # as given, as openai\n"
        "assert c.with_options(timeout=7).timeout == 7 and c.timeout.read == 600.0\n"
        "c.timeout = 1.5\n"
        "assert c.timeout == 1.5  # assigned as is, as openai's attribute\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
