"""The OpenAI Batch API through holyclient: upload a JSONL file, start a batch, poll it, read the results.

    export HOLYSHEEP_API_KEY=...            # your HolySheep key
    python examples/batch_api.py

The same code runs on ``openai`` after changing the import. For sending requests yourself with
bounded concurrency instead, see ``batch_library.py``.
"""

import json
import time
from pathlib import Path

from holyclient import OpenAI

client = OpenAI()  # HOLYSHEEP_API_KEY / HOLYSHEEP_BASE_URL

requests = Path("requests.jsonl")
requests.write_text(
    "".join(
        json.dumps(
            {
                "custom_id": f"q{i}",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": question}]},
            }
        )
        + "\n"
        for i, question in enumerate(["What is a batch?", "Why is it cheaper?"])
    )
)

upload = client.files.create(file=requests, purpose="batch")
batch = client.batches.create(
    input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
)
polls = 0
while batch.status not in ("completed", "failed", "expired", "cancelled"):
    time.sleep(min(60.0, 0.2 * polls))  # a real batch takes minutes to hours: poll less and less often
    polls += 1
    batch = client.batches.retrieve(batch.id)
print(f"batch {batch.id}: {batch.status}, {batch.request_counts}")

if batch.output_file_id:
    for line in client.files.content(batch.output_file_id).text.splitlines():
        result = json.loads(line)
        answer = result["response"]["body"]["choices"][0]["message"]["content"]
        print(f"{result['custom_id']}: {answer}")

print("batches so far:", [b.id for b in client.batches.list(limit=10)])
