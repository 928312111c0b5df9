"""Async client: embeddings and a few concurrent chats, then the models list.

    export HOLYSHEEP_API_KEY=...
    python examples/async_embeddings.py

For thousands of requests use the batch runner (``holyclient batch``): it bounds concurrency, respects
rate limits and resumes after a crash.
"""

import asyncio

from holyclient import AsyncClient


async def main() -> None:
    async with AsyncClient() as client:
        embeddings = await client.embeddings.create(model="text-embedding-3-small", input=["holy", "sheep"])
        print([len(item.embedding) for item in embeddings.data])

        questions = ["What is 2+2?", "Capital of France?", "Largest planet?"]
        answers = await asyncio.gather(
            *(
                client.chat.completions.create(
                    model="deepseek-v3.2", messages=[{"role": "user", "content": q}]
                )
                for q in questions
            )
        )
        for question, answer in zip(questions, answers, strict=True):
            print(f"{question} -> {answer.choices[0].message.content}")

        models = await client.models.list()
        print(f"{len(models)} models available")


asyncio.run(main())
