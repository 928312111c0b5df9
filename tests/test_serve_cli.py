"""``holyclient serve`` from the shell: the recipe it prints and the key it can refuse."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

HELLO = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]}


@contextmanager
def _serve(*args: str) -> Iterator[list[str]]:
    """Start ``holyclient serve`` as a user would and yield its first three stdout lines."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "holyclient", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        seen: queue.Queue[str] = queue.Queue()
        stdout = proc.stdout
        threading.Thread(target=lambda: [seen.put(line) for line in stdout], daemon=True).start()
        lines: list[str] = []
        for _ in range(3):  # a server that prints fewer lines must fail the test, not hang it
            try:
                lines.append(seen.get(timeout=10).rstrip("\n"))
            except queue.Empty:
                raise AssertionError(f"serve printed only {lines}") from None
        yield lines
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


def test_serve_prints_the_url_then_both_export_lines() -> None:
    with _serve() as (url, base_line, key_line):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        assert base_line == f"export HOLYSHEEP_BASE_URL={url}"
        assert key_line == "export HOLYSHEEP_API_KEY=sk-local"
        key = key_line.partition("=")[2]
        reply = httpx.post(url + "/chat/completions", json=HELLO, headers={"Authorization": f"Bearer {key}"})
        assert reply.status_code == 200


def test_serve_api_key_refuses_every_other_key_and_is_never_printed() -> None:
    secret = "sk-only-this-one-4711"
    with _serve("--api-key", secret) as lines:
        url = lines[0]
        assert all(secret not in line for line in lines)
        assert lines[2].startswith("export HOLYSHEEP_API_KEY=")
        wrong = httpx.post(
            url + "/chat/completions", json=HELLO, headers={"Authorization": "Bearer sk-wrong"}
        )
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "invalid_api_key"
        right = httpx.post(
            url + "/chat/completions", json=HELLO, headers={"Authorization": f"Bearer {secret}"}
        )
        assert right.status_code == 200
