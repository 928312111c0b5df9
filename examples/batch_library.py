"""The batch runner from Python: results as they complete, failures recorded instead of raised.

    export HOLYSHEEP_API_KEY=...
    python examples/batch_library.py

Each result is written to ``results.jsonl`` in the OpenAI Batch API output format the moment it arrives,
so nothing finished is lost if the process dies; ``holyclient batch`` does the same from the shell and
resumes from such a file. ``client.usage`` totals the tokens and cost afterwards.
"""

import asyncio
import json
from pathlib import Path

from holyclient import AsyncClient, BatchRequest, BatchRunner

QUESTIONS = [f"Give one fact about the number {n}." for n in range(1, 21)]


async def main() -> None:
    requests = (
        BatchRequest(f"q{i}", {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": text}]})
        for i, text in enumerate(QUESTIONS)
    )
    output = Path("results.jsonl")
    async with AsyncClient() as client:
        runner = BatchRunner(client, concurrency=8, rpm=600)
        with output.open("w") as file:
            async with runner.results(requests) as results:
                async for result in results:
                    file.write(json.dumps(result.output_line()) + "\n")
                    if not result.ok:
                        print(f"{result.custom_id} failed: {result.error or result.status_code}")
        stats = runner.stats
        print(f"{stats.succeeded} succeeded, {stats.failed} failed, {stats.retries} retries -> {output}")
        usage = client.usage.snapshot()
        for model, totals in usage.models.items():
            print(
                f"{model}: {totals.requests} requests, {totals.prompt_tokens} + {totals.completion_tokens} tokens"
            )
        print(f"cost: ${usage.total_cost_usd:.6f}")


asyncio.run(main())
