"""Helpers for the issue 39 tests: lay an app out, migrate it through the CLI, run the result with both
keys set (``recording.run_app``) and check the one invariant that holds whatever the exit code: an
OpenAI key never reaches the relay, a HolySheep key never reaches anything but the relay (or loopback)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from recording import HOLYSHEEP_KEY, OPENAI_KEY, run_app
from sample_apps import write_app

from holyclient._cli import main

RELAY = "api.holysheep.ai"
OPENAI = "api.openai.com"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def migrated(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[int, Path]:
    """Write the app, run ``holyclient migrate --force ARGS APP``; the exit code and the app."""
    app = write_app(tmp_path, files)
    return main(["migrate", "--force", *args, str(app)]), app


def run(app: Path, module: str = "app", **env: str) -> dict[str, Any]:
    """Run ``module.run()`` with both keys in the environment (plus ``env``)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOLYSHEEP_"))}
    base.update(OPENAI_API_KEY=OPENAI_KEY, HOLYSHEEP_API_KEY=HOLYSHEEP_KEY, **env)
    return run_app(str(app), module, base)


def wrong_pairs(requests: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Requests that break the invariant (the key's value replaced by whose it is)."""
    bad = []
    for host, key in requests:
        if host == RELAY and key != HOLYSHEEP_KEY:
            bad.append((host, "the OpenAI key" if key == OPENAI_KEY else "another key"))
        elif key == HOLYSHEEP_KEY and host != RELAY and host not in LOOPBACK:
            bad.append((host, "the HolySheep key"))
    return bad


def text(app: Path, name: str = "app.py") -> str:
    return (app / name).read_text()
