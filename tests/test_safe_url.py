"""URLs in messages and reports: no password, key or query, whatever characters the password holds, and
never an exception of their own (one helper for the limiter's messages and compare's report)."""

from __future__ import annotations

import pytest

from holyclient.compare._report import safe_url as report_url
from holyclient.ratelimit._redis import check_url
from holyclient.ratelimit._redis import safe_url as limiter_url

SECRET = "se#c/re?t@x"

LIMITER_URLS = {
    "hash": ("redis://:se#cret@h:6379/0", "redis://:***@h:6379/0"),
    "slash": ("redis://user:se/cret@h:6379/0", "redis://user:***@h:6379/0"),
    "question-mark": ("redis://:se?cret@h:6379/0", "redis://:***@h:6379/0"),
    "at-sign": ("redis://:se@cret@h:6379/0", "redis://:***@h:6379/0"),
    "all-of-them": (f"rediss://admin:{SECRET}@h:6380/2", "rediss://admin:***@h:6380/2"),
    "query-password": ("redis://h:6379/0?password=secret", "redis://h:6379/0"),
    "bad-port": ("redis://:secret@h:99999/0", "redis://:***@h:99999/0"),
    "port-not-a-number": ("redis://:secret@h:abc/0", "redis://:***@h:abc/0"),
    "user-only": ("redis://default@h:6379/0", "redis://default@h:6379/0"),
    "no-credentials": ("redis://h:6379/0", "redis://h:6379/0"),
}


@pytest.mark.parametrize(("url", "shown"), LIMITER_URLS.values(), ids=LIMITER_URLS.keys())
def test_the_limiter_shows_its_url_without_the_password_and_never_raises(url: str, shown: str) -> None:
    assert limiter_url(url) == shown


def test_a_bad_port_is_explained_without_quoting_the_password() -> None:
    problem = check_url("redis://:se#cret@h:6379/0")  # '#' starts a fragment: "se" is read as the port
    assert problem is not None and "percent-encoded" in problem and "'se'" not in problem
    assert "could not be cast" not in problem


def test_the_report_drops_user_info_query_and_fragment_and_never_raises() -> None:
    assert (
        report_url(f"https://{SECRET}@api.example.com:8443/v1?api-key=k#frag")
        == "https://api.example.com:8443/v1"
    )
    assert report_url("https://api.example.com:99999/v1") == "https://api.example.com:99999/v1"
    from holyclient._core._redact import safe_url

    assert report_url is safe_url  # one helper
