"""The wording of a site migrate cannot complete because it cannot see a client's options
(``OpenAI(**kwargs)``); the proof (``_proof``) decides which sites those are."""

from __future__ import annotations

from ._rules import BASE_URL, MARK


def kwargs_message(name: str, base_url_env: str | None, url_why: str, key_why: str) -> str:
    ignored = (
        f"; --base-url-env {base_url_env} could not be applied here (a keyword added beside **kwargs "
        "would clash when they carry base_url)"
        if base_url_env
        else ""
    )
    return (
        f"{name}(**...) takes its base URL and key from a dict -- the base URL from {url_why}, the key from "
        f"{key_why} -- which migrate cannot prove reach only the relay with a HolySheep key{ignored}; fix: set "
        f"base_url={BASE_URL!r} and a HolySheep api_key in the dict, then mark the line `# {MARK}`"
    )
