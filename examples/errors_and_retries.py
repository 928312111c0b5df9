"""Retries and errors, shown against the embedded test server with injected faults (no key, no network).

python examples/errors_and_retries.py
"""

import logging

from holyclient import Client, RateLimitError
from holyclient.testing import Fault, LocalServer

logging.basicConfig(level=logging.DEBUG, format="%(name)s %(levelname)s %(message)s")
logging.getLogger("httpcore2").setLevel(logging.WARNING)
logging.getLogger("httpx2").setLevel(logging.WARNING)

with LocalServer() as server, Client(api_key="sk-demo", base_url=server.base_url) as client:
    # Two transient failures, then success: the client retries with backoff and honours Retry-After.
    server.enqueue(Fault.status(503), Fault.status(429, retry_after=0.2))
    reply = client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
    print("after retries:", reply.choices[0].message.content)

    # Out of credit is not a rate limit: it fails at once, with the server's code.
    server.enqueue(Fault.insufficient_quota())
    try:
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
    except RateLimitError as exc:
        print(f"not retried: {exc.code} after {exc.attempts} attempt(s), request id {exc.request_id}")
