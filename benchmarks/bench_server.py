"""How fast is the local server? Requests/s at a given concurrency, plus the server's own CPU per request.

Starts ``holyclient serve --no-log`` in a subprocess and drives it from this process, so client
and server never share a GIL: first with a minimal raw-socket keep-alive client (the server's
capacity, close to its ceiling), then with an async HTTP client (httpx2 if installed, else httpx).
The figure that matters for other benchmarks is the server's CPU time per request: as long as it is
a small fraction of the client's, the server is not the bottleneck.

    .venv/bin/python benchmarks/bench_server.py [--requests 5000] [--concurrency 64] [--client httpx2|httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "benchmark the local server please"}],
}
HEADERS = {"Authorization": "Bearer bench"}


def load_client_module(name: str) -> Any:
    if name == "auto":
        try:
            import httpx2

            return httpx2
        except ImportError:
            name = "httpx"
    return __import__(name)


def server_cpu_seconds(pid: int) -> float | None:
    """utime + stime of a child process, from /proc (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(http: Any, url: str, requests: int, concurrency: int, stream: bool) -> tuple[float, int]:
    """Send ``requests`` chat requests over ``concurrency`` workers; return (seconds, SSE events read)."""
    limits = http.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    body = {**BODY, "stream": True} if stream else BODY
    events = 0
    remaining = requests

    async with http.AsyncClient(base_url=url, headers=HEADERS, limits=limits, timeout=30) as client:

        async def worker() -> None:
            nonlocal remaining, events
            while remaining > 0:
                remaining -= 1
                if stream:
                    async with client.stream("POST", "/chat/completions", json=body) as response:
                        async for line in response.aiter_lines():
                            events += line.startswith("data: ")
                else:
                    response = await client.post("/chat/completions", json=body)
                    response.json()
                if response.status_code != 200:
                    raise RuntimeError(f"unexpected status {response.status_code}")

        warm = remaining
        remaining = min(concurrency * 4, requests)
        await asyncio.gather(*(worker() for _ in range(concurrency)))  # warm-up: open the connections
        remaining, events = warm, 0
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, events


async def drive_raw(url: str, requests: int, concurrency: int, stream: bool) -> tuple[float, int]:
    """The same load through bare asyncio streams: the cheapest possible HTTP/1.1 keep-alive client."""
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    body = json.dumps({**BODY, "stream": stream}).encode()
    request = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {HEADERS['Authorization']}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    events = 0

    async def connection(count: int) -> None:
        nonlocal events
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(count):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"unexpected response {head[:40]!r}")
            if stream:
                events += (await reader.readuntil(b"\r\n0\r\n\r\n")).count(b"data: ")
            else:
                length = int(head.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
                json.loads(await reader.readexactly(length))
        writer.close()
        await writer.wait_closed()

    started = time.perf_counter()
    share, extra = divmod(requests, concurrency)
    await asyncio.gather(*(connection(share + (i < extra)) for i in range(concurrency)))
    return time.perf_counter() - started, events


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--client", choices=("auto", "httpx2", "httpx"), default="auto")
    args = parser.parse_args()
    http = load_client_module(args.client)

    proc = subprocess.Popen(
        [sys.executable, "-m", "holyclient", "serve", "--port", "0", "--no-log"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        print(
            f"server {url}  client {http.__name__}  requests {args.requests}  concurrency {args.concurrency}"
        )
        print(
            f"{'client':<10}{'mode':<8}{'req/s':>10}{'events/s':>12}{'server CPU/req':>17}{'server busy':>13}"
        )
        for client_name in ("raw", http.__name__):
            for stream in (False, True):
                cpu_before = server_cpu_seconds(proc.pid)
                if client_name == "raw":
                    seconds, events = asyncio.run(drive_raw(url, args.requests, args.concurrency, stream))
                    sent = args.requests
                else:
                    seconds, events = asyncio.run(drive(http, url, args.requests, args.concurrency, stream))
                    sent = args.requests + min(args.concurrency * 4, args.requests)  # with the warm-up
                cpu_after = server_cpu_seconds(proc.pid)
                if cpu_before is None or cpu_after is None:
                    cpu_text, busy_text = "n/a", "n/a"
                else:
                    # Warm-up requests are inside the CPU delta but not the timed window: an upper bound.
                    cpu_text = f"{(cpu_after - cpu_before) / sent * 1e6:.0f} us"
                    busy_text = f"{(cpu_after - cpu_before) / seconds * 100 * args.requests / sent:.0f}%"
                print(
                    f"{client_name:<10}{'stream' if stream else 'json':<8}{args.requests / seconds:>10.0f}"
                    f"{(events / seconds) if stream else 0:>12.0f}{cpu_text:>17}{busy_text:>13}"
                )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
