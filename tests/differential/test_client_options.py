"""What an app reads of its client's options, through openai 3.63 and holyclient: ``timeout`` as given
(``with_options(timeout=5).timeout`` is ``5``), the default ``Timeout`` printed as openai's, and
``base_url`` as a URL ending in ``/v1/``, assignable."""

from __future__ import annotations

from typing import Any

from differential.conftest import Differential


def options(c: Any) -> None:
    print(c.timeout, repr(c.timeout), c.max_retries)
    print(
        c.with_options(timeout=5).timeout,
        c.with_options(timeout=2.5).timeout,
        c.with_options(max_retries=4).max_retries,
    )
    print(type(c.base_url).__name__, c.base_url, repr(c.base_url), c.base_url.path, c.base_url.host)
    print(c.with_options(base_url=str(c.base_url) + "v2").base_url)


def test_client_options_read_as_openais(differential: Differential) -> None:
    def script(c: Any) -> None:
        options(c)
        c.timeout = 30
        print(c.timeout)
        c.base_url = str(c.base_url).replace("/v1/", "/v1")  # assigned without the slash: openai adds it
        print(c.base_url, c.models.list().data[0].object)

    theirs, _ours = differential.check_script(script)
    assert "Timeout(connect=5.0, read=600, write=600, pool=600)" in theirs.result


async def test_async_client_options_read_as_openais(differential: Differential) -> None:
    async def script(c: Any) -> None:
        options(c)
        print((await c.models.list()).data[0].object)

    await differential.acheck_script(script)


def test_a_given_timeout_reads_back_as_given(differential: Differential) -> None:
    def script(c: Any) -> None:
        print(c.timeout, c.with_options(timeout=9.5).timeout)

    differential.check_script(script, timeout=7)
    # on purpose (README, "Switching"): ``timeout=None`` is the default timeout, never none at all
    with differential.holyclient_client(timeout=7) as client:
        assert client.with_options(timeout=None).timeout.read == 600
