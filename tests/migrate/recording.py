"""Run a migrated app and record which key reached which host, with no network.

Every request the app's HTTP clients send (httpx2 and httpx transports, sync and async; aiohttp for
holyclient's async client) is recorded as ``(host, key)`` and then answered by a
:class:`holyclient.testing.LocalServer` on 127.0.0.1 -- the request is redirected there, so each
framework gets a real answer for the endpoint it called. Any other socket connection off loopback is
refused, so a transport this module does not know about fails loudly instead of reaching the internet.

Used in-process by the tests (:func:`recorded`) and as a script in the frameworks' venvs (``python
recording.py APPS.json``: runs each app, prints one JSON report per app).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import gc
import importlib
import inspect
import json
import os
import runpy
import socket
import sys
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from holyclient.testing import LocalServer

OPENAI_KEY = "sk-openai-REAL-0123456789abcdef"
HOLYSHEEP_KEY = "hs-holysheep-REAL-9876543210"


@dataclass
class Seen:
    requests: list[tuple[str, str]] = field(default_factory=list)  # (host, key or "")

    def hosts(self) -> set[str]:
        return {h for h, _ in self.requests}

    def keys_to(self, host: str) -> set[str]:
        return {k for h, k in self.requests if h == host}


def _key(headers: Any) -> str:
    auth = headers.get("authorization") or headers.get("Authorization") or ""
    return auth[7:] if auth.lower().startswith("bearer ") else (headers.get("api-key") or "")


_SERVER: list[LocalServer] = []
_SSL: list[Any] = []


def _no_ssl_context(original: Any) -> Any:
    def create(*args: Any, **kwargs: Any) -> Any:
        if not _SSL:
            _SSL.append(original())
        return _SSL[0]

    return create


def _server() -> LocalServer:
    """One local server for the process (started once: a run is many apps)."""
    if not _SERVER:
        server = LocalServer(require_key=False, log_requests=False).start()
        atexit.register(server.stop)
        _SERVER.append(server)
    return _SERVER[0]


@contextlib.contextmanager
def recorded() -> Iterator[Seen]:
    """Patch the HTTP transports for the duration; yields what was sent."""
    seen = Seen()
    with contextlib.nullcontext(_server()) as server:
        port = server.port
        patches: list[tuple[Any, str, Any]] = []

        def patch(owner: Any, name: str, make: Any) -> None:
            original = getattr(owner, name)
            patches.append((owner, name, original))
            setattr(owner, name, make(original))

        for lib in ("httpx2", "httpx"):
            try:
                mod = importlib.import_module(lib)
            except ImportError:
                continue

            def sync_make(original: Any, mod: Any = mod) -> Any:
                def handle(self: Any, request: Any) -> Any:
                    seen.requests.append((request.url.host, _key(request.headers)))
                    request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=port)
                    request.headers["host"] = f"127.0.0.1:{port}"
                    return original(self, request)

                return handle

            def async_make(original: Any, mod: Any = mod) -> Any:
                async def handle(self: Any, request: Any) -> Any:
                    seen.requests.append((request.url.host, _key(request.headers)))
                    request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=port)
                    request.headers["host"] = f"127.0.0.1:{port}"
                    return await original(self, request)

                return handle

            patch(mod.HTTPTransport, "handle_request", sync_make)
            patch(mod.AsyncHTTPTransport, "handle_async_request", async_make)
            # every request goes to plain http on loopback: no client needs to load the CA bundle
            transports = importlib.import_module(f"{lib}._transports.default")
            patch(transports, "create_ssl_context", lambda original: _no_ssl_context(original))
        with contextlib.suppress(ImportError):
            import aiohttp
            from yarl import URL

            def aio_make(original: Any) -> Any:
                async def request(self: Any, method: str, str_or_url: Any, **kwargs: Any) -> Any:
                    url = URL(str(str_or_url))
                    headers = kwargs.get("headers") or {}
                    merged = {**dict(self.headers or {}), **dict(headers)}
                    seen.requests.append((url.host or "", _key({k.lower(): v for k, v in merged.items()})))
                    local = url.with_scheme("http").with_host("127.0.0.1").with_port(port)
                    return await original(self, method, local, **kwargs)

                return request

            patch(aiohttp.ClientSession, "_request", aio_make)
        real_connect = socket.socket.connect

        def guarded(self: socket.socket, address: Any) -> Any:
            host = address[0] if isinstance(address, tuple) else address
            if (
                isinstance(host, str)
                and host not in ("127.0.0.1", "::1", "localhost")
                and not host.startswith("/")
            ):
                raise OSError(f"recording: a connection to {host} left loopback")
            return real_connect(self, address)

        patches.append((socket.socket, "connect", real_connect))
        socket.socket.connect = guarded  # type: ignore[method-assign]
        try:
            yield seen
        finally:
            for owner, name, original in reversed(patches):
                setattr(owner, name, original)


def reset_openai_module() -> None:
    """openai's module-level client is process state: forget what the previous app configured."""
    with contextlib.suppress(ImportError):
        import openai

        for attr in ("api_key", "base_url", "organization", "project"):
            if hasattr(openai, attr):
                setattr(openai, attr, None)
        reset = getattr(openai, "_reset_client", None)
        if reset is not None:
            reset()


def run_app(root: str, module: str, env: dict[str, str], collect: bool = True) -> dict[str, Any]:
    """Import ``module`` from ``root`` (its ``run()``, awaited if async) with ``env`` as the environment;
    the requests it sent and the error it raised, if any."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    sys.path.insert(0, root)
    before = set(sys.modules)
    reset_openai_module()
    report: dict[str, Any] = {"error": None}
    namespace: dict[str, Any] = {}
    with recorded() as seen:
        try:
            namespace = runpy.run_path(os.path.join(root, module + ".py"), run_name="migrated_app")
            result = namespace["run"]()
            if inspect.iscoroutine(result):
                asyncio.run(result)
        except BaseException as exc:  # the test decides whether it was expected
            report["error"] = f"{type(exc).__name__}: {exc}"[:300]
            report["traceback"] = traceback.format_exc()[-2000:]
        namespace = {}
        if collect:
            quiet_collect()
    report["requests"] = seen.requests
    os.environ.clear()
    os.environ.update(saved)
    sys.path.remove(root)
    for name in set(sys.modules) - before:
        mod = sys.modules.get(name)
        if getattr(mod, "__file__", None) and str(getattr(mod, "__file__", "")).startswith(root):
            del sys.modules[name]
    reset_openai_module()
    return report


def quiet_collect() -> None:
    """The apps' clients are never closed: let their sockets go without a ResourceWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def main(path: str) -> int:
    """Run each app listed in ``path`` (JSON: ``[{"root", "module", "env"}...]``); print the reports."""
    with open(path) as f:
        apps = json.load(f)
    out = [run_app(a["root"], a["module"], a["env"]) for a in apps]
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
