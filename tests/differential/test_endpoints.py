"""Each endpoint beyond chat, proven differentially against the local server: same app code through
``openai`` and ``holyclient``, same requests (method, path, query, body) and same results.

Apps return projections without server-generated ids where those ids are not normalised by the
fixture (``resp_...``, ``cmpl-...``); files and batches get the same ids on both runs (the server's
store is reset between them).
"""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

from differential.conftest import Differential

JSONL = (
    b'{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", '
    b'"body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "one"}]}}\n'
    b'{"custom_id": "b", "method": "POST", "url": "/v1/chat/completions", '
    b'"body": {"model": "gpt-4o-mini", "messages": []}}\n'
)


def timeless(value: Any) -> Any:
    """``value`` as plain data without the ``*_at`` timestamps, which differ between the two runs."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if not k.endswith("_at")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def test_responses_create_and_output_text_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        r = c.responses.create(
            model="gpt-4o-mini", input="hello", instructions="Be brief.", max_output_tokens=3
        )
        return {"text": r.output_text, "status": r.status, "usage": r.usage, "output": len(r.output)}

    differential.check(app)


def test_responses_stream_yields_the_same_typed_events(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.create(model="gpt-4o-mini", input="stream this please", stream=True) as stream:
            events = list(stream)
        final = events[-1].response
        return {
            "types": [(type(e).__name__, e.type) for e in events],
            "deltas": [e.delta for e in events if e.type == "response.output_text.delta"],
            "final": (final.output_text, final.usage),
        }

    differential.check(app)


async def test_async_responses_stream_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        stream = await c.responses.create(model="gpt-4o-mini", input="async stream", stream=True)
        return [(e.type, getattr(e, "delta", None)) async for e in stream]

    await differential.acheck(app)


def test_legacy_completions_json_and_stream_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        done = c.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say this is a test", max_tokens=3)
        chunks = c.completions.create(
            model="gpt-3.5-turbo-instruct",
            prompt="go on",
            stream=True,
            stream_options={"include_usage": True},
        )
        return {
            "text": [ch.text for ch in done.choices],
            "finish": done.choices[0].finish_reason,
            "usage": done.usage,
            "chunks": [([ch.text for ch in chunk.choices], chunk.usage) for chunk in chunks],
        }

    differential.check(app)


def test_moderations_and_images_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        moderation = c.moderations.create(input=["hello", "graphic violence"], model="omni-moderation-latest")
        images = c.images.generate(prompt="a red square", model="gpt-image-1", n=2, size="1024x1024")
        return {
            "moderation": (moderation.model, moderation.results),
            "violent": moderation.results[1].categories.violence_graphic,
            "images": images,
        }

    differential.check(app)


def test_speech_is_bytes_written_to_a_file_like_openai(
    differential: Differential, tmp_path: pathlib.Path
) -> None:
    def app(c: Any) -> Any:
        speech = c.audio.speech.create(
            model="gpt-4o-mini-tts", voice="alloy", input="Hi!", response_format="mp3"
        )
        target = tmp_path / "speech.mp3"
        speech.write_to_file(target)
        return {"content": speech.content.hex(), "file": target.read_bytes().hex()}

    differential.check(app, headers=("accept",))


def test_transcriptions_and_translations_upload_like_openai(
    differential: Differential, tmp_path: pathlib.Path
) -> None:
    audio = tmp_path / "hello.wav"
    audio.write_bytes(b"hello world")

    def app(c: Any) -> Any:
        verbose = c.audio.transcriptions.create(
            model="whisper-1", file=audio, response_format="verbose_json", timestamp_granularities=["segment"]
        )
        with audio.open("rb") as f, warnings.catch_warnings():
            # openai marks the text overload and the whole translations endpoint deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            text = c.audio.transcriptions.create(model="whisper-1", file=f, response_format="text")
            translated = c.audio.translations.create(model="whisper-1", file=("bonjour.mp3", b"bonjour"))
        return {"verbose": verbose, "text": text, "translated": translated}

    differential.check(app, headers=("accept",))


def test_files_lifecycle_and_auto_paging_match_openai(
    differential: Differential, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_bytes(JSONL)

    def app(c: Any) -> Any:
        created = [c.files.create(file=path, purpose="batch") for _ in range(3)]
        page = c.files.list(limit=2, purpose="batch")
        return timeless(
            {
                "created": created,
                "first_page": [f.id for f in page.data],
                "has_next": page.has_next_page(),
                "all": [f.id for f in page],
                "retrieved": c.files.retrieve(created[0].id),
                "content": c.files.content(created[0].id).text,
                "deleted": c.files.delete(created[0].id),
                "after_delete": [f.id for f in c.files.list()],
            }
        )

    differential.check(app)


def test_batch_api_workflow_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        upload = c.files.create(file=("in.jsonl", JSONL), purpose="batch")
        batch = c.batches.create(
            input_file_id=upload.id,
            endpoint="/v1/chat/completions",
            completion_window="24h",
            metadata={"k": "v"},
        )
        statuses = [batch.status]
        while batch.status not in ("completed", "failed", "cancelled"):
            batch = c.batches.retrieve(batch.id)
            statuses.append(batch.status)
        output = c.files.content(batch.output_file_id).text
        other = c.batches.create(input_file_id=upload.id, endpoint="/v1/embeddings", completion_window="24h")
        cancelled = c.batches.cancel(other.id)
        listed = [b.id for b in c.batches.list(limit=1)]
        try:
            c.batches.cancel(batch.id)
        except Exception as exc:  # both SDKs: ConflictError (409)
            refused = (type(exc).__name__, exc.status_code)
        return {
            "statuses": statuses,
            "counts": batch.request_counts,
            "output_lines": len(output.splitlines()),
            "cancelled": cancelled.status,
            "listed": listed,
            "refused": refused,
        }

    differential.check(app)


async def test_async_files_and_batches_lists_support_await_and_async_for(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        for _ in range(3):
            await c.files.create(file=("x.jsonl", JSONL), purpose="batch")
        page = await c.files.list(limit=2)
        every = [f.id async for f in c.files.list(limit=1)]
        batch = await c.batches.create(
            input_file_id=every[0], endpoint="/v1/embeddings", completion_window="24h"
        )
        batches = [b.id async for b in c.batches.list()]
        return {"page": [f.id for f in page.data], "every": every, "batch": batch.status, "batches": batches}

    await differential.acheck(app)


def test_embeddings_default_base64_decoded_and_escape_hatch_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        default = c.embeddings.create(model="text-embedding-3-small", input=["a", "b"], dimensions=8)
        explicit = c.embeddings.create(
            model="text-embedding-3-small", input="a", dimensions=8, encoding_format="base64"
        )
        raw = c.post(
            "/moderations", cast_to=object, body={"input": "violence"}, options={"params": {"trace": "1"}}
        )
        # openai's model types ``embedding`` as floats: dumping its base64 string would warn, so compare values.
        explicit_values = [e.embedding for e in explicit.data]
        return {"default": default, "explicit": explicit_values, "raw": raw["results"][0]["flagged"]}

    differential.check(app)


async def test_async_audio_and_uploads_match_openai(
    differential: Differential, tmp_path: pathlib.Path
) -> None:
    audio = tmp_path / "clip.wav"
    audio.write_bytes(b"async words")

    async def app(c: Any) -> Any:
        speech = await c.audio.speech.create(model="tts-1", voice="nova", input="async speech")
        transcript = await c.audio.transcriptions.create(model="whisper-1", file=audio, language="en")
        moderation = await c.moderations.create(input="self-harm talk")
        completion = await c.completions.create(model="gpt-3.5-turbo-instruct", prompt="x", max_tokens=2)
        return {
            "speech": speech.content.hex(),
            "transcript": transcript,
            "flagged": moderation.results[0].categories.self_harm,
            "completion": [ch.text for ch in completion.choices],
        }

    await differential.acheck(app, headers=("accept",))


def test_speech_streamed_to_a_file_matches_openai(differential: Differential, tmp_path: pathlib.Path) -> None:
    def app(c: Any) -> Any:
        target = tmp_path / "streamed.mp3"
        with c.audio.speech.with_streaming_response.create(
            model="tts-1", voice="echo", input="streamed"
        ) as r:
            r.stream_to_file(target)
            status = r.status_code
        return {"status": status, "file": target.read_bytes().hex()}

    differential.check(app, headers=("accept",))


async def test_async_speech_streamed_to_a_file_matches_openai(
    differential: Differential, tmp_path: pathlib.Path
) -> None:
    async def app(c: Any) -> Any:
        target = tmp_path / "streamed.mp3"
        async with c.audio.speech.with_streaming_response.create(
            model="tts-1", voice="echo", input="async"
        ) as r:
            await r.stream_to_file(target)
        return target.read_bytes().hex()

    await differential.acheck(app, headers=("accept",))


def test_stored_responses_retrieve_list_input_items_cancel_and_delete_like_openai(
    differential: Differential,
) -> None:
    def app(c: Any) -> Any:
        created = c.responses.create(model="gpt-4o-mini", input=[{"role": "user", "content": "remember me"}])
        background = c.responses.create(model="gpt-4o-mini", input="later", background=True)
        items = [(item.type, item.role) for item in c.responses.input_items.list(created.id, limit=1)]
        retrieved = c.responses.retrieve(created.id)
        cancelled = c.responses.cancel(background.id)
        outcomes = []
        for call in (lambda: c.responses.cancel(created.id), lambda: c.responses.retrieve("resp_missing")):
            try:
                call()
            except Exception as exc:  # BadRequestError, NotFoundError in both SDKs
                outcomes.append((type(exc).__name__, exc.status_code))
        deleted = c.responses.delete(created.id)
        return {
            "items": items,
            "same": retrieved.output_text == created.output_text,
            "cancelled": cancelled.id == background.id,
            "outcomes": outcomes,
            "deleted": deleted,
        }

    differential.check(app)
