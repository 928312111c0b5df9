"""Retry-After values that must not mean "retry at once", dates without a zone, and the cap's edges."""

from __future__ import annotations

import email.utils
import time

import httpx2
import pytest

from holyclient import BadRequestError, RateLimitError
from holyclient._core._retry import retry_after_seconds
from support import Recorder, completion

MESSAGES = [{"role": "user", "content": "x"}]
NOW = 1_700_000_000.0


def ok() -> httpx2.Response:
    return httpx2.Response(200, json=completion())


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": "0"},
        {"retry-after": "-5"},
        {"retry-after": "nan"},
        {"retry-after": "inf"},
        {"retry-after-ms": "0"},
        {"retry-after-ms": "nan"},
        {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"},  # long past
    ],
    ids=lambda h: repr(h),
)
def test_a_zero_negative_or_non_number_retry_after_backs_off_as_usual(make_client, sleeps, headers):
    assert retry_after_seconds(headers) is None
    rec = Recorder(httpx2.Response(429, headers=headers, json={}), ok())
    make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert len(sleeps) == 1 and 0.375 <= sleeps[0] <= 0.5  # the first backoff, not 0


def _date(seconds_from_now: float, zone: str) -> str:
    stamp = email.utils.formatdate(NOW + seconds_from_now, usegmt=True)  # "..., 07:28:00 GMT"
    return stamp.removesuffix(" GMT") + zone


@pytest.mark.parametrize("zone", [" GMT", " +0000", " -0000", ""], ids=["GMT", "+0000", "-0000", "none"])
def test_an_http_date_without_a_real_zone_is_utc_even_in_new_york(monkeypatch, zone):
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert retry_after_seconds({"retry-after": _date(30, zone)}, now=NOW) == pytest.approx(30.0)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_an_http_date_with_another_zone_is_converted():
    # 08:28 at +0100 is 07:28 UTC: the wall-clock hour ahead is taken back out
    assert retry_after_seconds({"retry-after": _date(3630, " +0100")}, now=NOW) == pytest.approx(30.0)


def test_x_should_retry_true_still_respects_the_retry_after_cap(make_client, sleeps):
    headers = {"x-should-retry": "true", "retry-after": "3600"}
    rec = Recorder(httpx2.Response(429, headers=headers, json={"error": {"message": "later"}}), ok())
    with pytest.raises(RateLimitError) as info:
        make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.retry_after == 3600 and info.value.attempts == 1
    assert sleeps == [] and len(rec.requests) == 1

    rec = Recorder(httpx2.Response(400, headers=headers, json={}), ok())
    with pytest.raises(BadRequestError):
        make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert sleeps == []


def test_a_retry_after_exactly_at_the_cap_is_waited(make_client, sleeps):
    headers = {"x-should-retry": "true", "retry-after": "60"}
    rec = Recorder(httpx2.Response(429, headers=headers, json={}), ok())
    make_client(rec, max_retry_after=60).chat.completions.create(model="m", messages=MESSAGES)
    rec = Recorder(httpx2.Response(503, headers={"retry-after": "60"}, json={}), ok())
    make_client(rec, max_retry_after=60).chat.completions.create(model="m", messages=MESSAGES)
    assert sleeps == [60.0, 60.0]


def test_a_retry_after_just_above_the_cap_raises(make_client, sleeps):
    rec = Recorder(httpx2.Response(503, headers={"retry-after": "60.5"}, json={}), ok())
    with pytest.raises(Exception) as info:
        make_client(rec, max_retry_after=60).chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.retry_after == 60.5  # type: ignore[attr-defined]
    assert sleeps == []
