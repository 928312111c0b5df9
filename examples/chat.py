"""A chat completion and a streamed one: the one-line switch from the official SDK.

    export HOLYSHEEP_API_KEY=...            # your HolySheep key
    python examples/chat.py

Before: ``from openai import OpenAI; client = OpenAI()``. After: the two lines below.
"""

from holyclient import Client

client = Client()  # HOLYSHEEP_API_KEY / HOLYSHEEP_BASE_URL, default https://api.holysheep.ai/v1

completion = client.chat.completions.create(
    model="gpt-4.1",
    messages=[
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Name one reason to stream responses."},
    ],
    max_tokens=50,
)
print(completion.choices[0].message.content)
if completion.usage:
    print(
        f"[{completion.usage.prompt_tokens} prompt + {completion.usage.completion_tokens} completion tokens]"
    )

with client.chat.completions.create(
    model="claude-sonnet-4.5",
    messages=[{"role": "user", "content": "Count to five."}],
    stream=True,
) as stream:
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            print(chunk.choices[0].delta.content, end="", flush=True)
print()
client.close()
