"""What ``with_options`` sets on the copy, each setting on its own (the copy's organization, project,
retries and permission to send over plain HTTP), and that the original keeps its own.

Written against mutants of ``_send/_base_client.py`` that survived ``benchmarks/mutation.sh send``.
"""

from __future__ import annotations

import httpx2
import pytest

from holyclient import Client, ConfigurationError
from support import KEY


def test_a_copy_takes_an_organization_and_a_project_the_original_does_not_have() -> None:
    client = Client(api_key=KEY)
    copy = client.with_options(organization="org-1", project="proj-1")
    assert (copy.organization, copy.project) == ("org-1", "proj-1")
    assert (client.organization, client.project) == (None, None)


def test_a_copy_takes_its_own_retry_count() -> None:
    client = Client(api_key=KEY, max_retries=2)
    assert client.with_options(max_retries=5).max_retries == 5
    assert client.max_retries == 2


def test_a_copy_allowed_plain_http_may_then_be_pointed_at_a_plain_http_host() -> None:
    client = Client(api_key=KEY)
    with pytest.raises(ConfigurationError):
        client.with_options(base_url="http://example.test/v1")
    allowed = client.with_options(allow_insecure_http=True)
    assert allowed.with_options(base_url="http://example.test/v1").base_url == httpx2.URL(
        "http://example.test/v1/"
    )
