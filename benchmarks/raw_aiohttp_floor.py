"""The floor for ``bench_batch.py fast``: a plain aiohttp loop posting a batch input's bodies.

No validation, retries, rate limits or output file: read each Batch API input line, POST its body to
its url with at most CONCURRENCY in flight, parse the JSON answer. Whatever ``holyclient batch`` spends
beyond this per request is its own overhead.

    python benchmarks/raw_aiohttp_floor.py INPUT.jsonl BASE_URL CONCURRENCY
"""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp


async def main(source: str, base_url: str, concurrency: int) -> None:
    with open(source, "rb") as file:
        lines = [json.loads(raw) for raw in file if raw.strip()]
    queue = iter(lines)
    failed = 0
    headers = {"Authorization": "Bearer sk-bench-local", "Content-Type": "application/json"}
    root = base_url.removesuffix("/v1")

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal failed
        for line in queue:
            async with session.post(
                root + line["url"], data=json.dumps(line["body"]), headers=headers
            ) as response:
                answer = json.loads(await response.read())
                failed += response.status != 200 or "error" in answer

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    print(json.dumps({"requests": len(lines), "failed": failed}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
