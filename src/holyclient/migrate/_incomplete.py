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
        f"{name}(**...) builds the client from a dict migrate cannot read, so its base URL and key stay "
        f"whatever the dict holds (api.openai.com and OPENAI_API_KEY when it has none){ignored}; fix: set "
        f"base_url={BASE_URL!r} and a HolySheep api_key in the dict, then mark the line `# {MARK}`"
    )
