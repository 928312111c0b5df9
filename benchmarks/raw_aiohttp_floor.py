"""The floor for ``bench_batch.py fast`` and ``instructions.py batch``: a plain aiohttp loop posting a batch
input's bodies.

No validation, retries or rate limits: read each Batch API input line, POST its body to its url with at
most CONCURRENCY in flight, parse the JSON answer. Given OUTPUT, it also does what any run that can be
resumed after a crash must do per request: write the answer as one complete Batch API output line with
one ``write`` to a file opened for appending, unbuffered (a killed process leaves whole lines only) --
the answer's bytes as they came, between the line's other fields (the least a line costs: the answer is
not encoded again). Whatever ``holyclient batch`` spends beyond this per request is its own overhead.

    python benchmarks/raw_aiohttp_floor.py INPUT.jsonl BASE_URL CONCURRENCY [OUTPUT.jsonl]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

import aiohttp


async def main(source: str, base_url: str, concurrency: int, output: str | None = None) -> None:
    with open(source, "rb") as file:
        lines = [json.loads(raw) for raw in file if raw.strip()]
    queue = iter(lines)
    failed = 0
    headers = {"Authorization": "Bearer sk-bench-local", "Content-Type": "application/json"}
    root = base_url.removesuffix("/v1")
    fd = -1 if output is None else os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal failed
        for line in queue:
            async with session.post(
                root + line["url"], data=json.dumps(line["body"]), headers=headers
            ) as response:
                content = await response.read()
                answer = json.loads(content)
                failed += response.status != 200 or "error" in answer
                if fd >= 0:  # {"custom_id", "response": {"status_code", "request_id", "body"}}
                    custom_id, request_id = line["custom_id"], response.headers.get("x-request-id")
                    head = (
                        f'{{"custom_id":{json.dumps(custom_id)},"response":{{"status_code":{response.status},'
                    )
                    head += f'"request_id":{json.dumps(request_id)},"body":'
                    os.write(fd, head.encode() + content.strip() + b"}}\n")

    connector = aiohttp.TCPConnector(limit=concurrency)
    try:
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    finally:
        if fd >= 0:
            os.close(fd)
    print(json.dumps({"requests": len(lines), "failed": failed}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *sys.argv[4:5]))
