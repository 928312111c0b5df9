"""``audio``: text to speech (binary answer) and speech to text (multipart upload), sync and async.

``response_format`` decides what ``transcriptions.create`` / ``translations.create`` return, as in
openai: a model for ``json``/``verbose_json``, a ``str`` for ``text``/``srt``/``vtt``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN, AsyncStreamedBinaryContext, HttpxBinaryResponseContent, StreamedBinaryResponse
from ..types._audio import (
    Transcription,
    TranscriptionDiarized,
    TranscriptionStreamEvent,
    TranscriptionVerbose,
    Translation,
    TranslationVerbose,
    transcription_type,
    translation_type,
)
from ._operation import AsyncAPIResource, SyncAPIResource
from ._uploads import HeaderOperation, MultipartOperation

if TYPE_CHECKING:
    from .._core import FileTypes
    from .._send import AsyncCallSite, AsyncStream, Stream, SyncCallSite

SPEECH = HeaderOperation(
    "POST", "/audio/speech", HttpxBinaryResponseContent, headers={"Accept": "application/octet-stream"}
)
TRANSCRIBE = MultipartOperation("POST", "/audio/transcriptions", Transcription)
TRANSLATE = MultipartOperation("POST", "/audio/translations", Translation)


class Speech(SyncAPIResource):
    @property
    def with_streaming_response(self) -> SpeechWithStreamingResponse:
        """``with ....with_streaming_response.create(...) as r: r.stream_to_file(path)``: audio written as it arrives."""
        return SpeechWithStreamingResponse(self._client)

    def create(
        self,
        *,
        input: str,
        model: str,
        voice: str | Mapping[str, Any],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> HttpxBinaryResponseContent:
        """Speak ``input``; the audio bytes, with ``.content`` and ``.write_to_file(path)``."""
        return self._client._request(SPEECH.build(locals()), SPEECH.cast_to)  # type: ignore[type-var]


class AsyncSpeech(AsyncAPIResource):
    @property
    def with_streaming_response(self) -> AsyncSpeechWithStreamingResponse:
        """``async with ....with_streaming_response.create(...) as r: await r.stream_to_file(path)``."""
        return AsyncSpeechWithStreamingResponse(self._client)

    async def create(
        self,
        *,
        input: str,
        model: str,
        voice: str | Mapping[str, Any],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> HttpxBinaryResponseContent:
        """Async twin of :meth:`Speech.create`."""
        return await self._client._request(SPEECH.build(locals()), SPEECH.cast_to)  # type: ignore[type-var]


class SpeechWithStreamingResponse(SyncAPIResource):
    def create(
        self,
        *,
        input: str,
        model: str,
        voice: str | Mapping[str, Any],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> StreamedBinaryResponse:
        """:meth:`Speech.create` with the audio left on the wire: a context manager to read it in chunks."""
        return self._client._open_binary(SPEECH.build(locals()))


class AsyncSpeechWithStreamingResponse(AsyncAPIResource):
    def create(
        self,
        *,
        input: str,
        model: str,
        voice: str | Mapping[str, Any],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncStreamedBinaryContext:
        """Async twin of :meth:`SpeechWithStreamingResponse.create` (``async with``)."""
        return AsyncStreamedBinaryContext(self._client._open_binary(SPEECH.build(locals())))


Transcribed = Transcription | TranscriptionVerbose | TranscriptionDiarized | str
Translated = Translation | TranslationVerbose | str


class Transcriptions(SyncAPIResource):
    def create(
        self,
        *,
        file: FileTypes,
        model: str,
        response_format: str = NOT_GIVEN,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Transcribed | Stream[TranscriptionStreamEvent]:
        """Transcribe ``file`` (a ``pathlib.Path``, bytes, a binary file object or a ``(name, bytes)`` tuple).

        Raises:
            TypeError: ``file`` is none of those (a ``str`` is refused: pass ``pathlib.Path(name)``).
        """
        options = TRANSCRIBE.build(locals())
        if stream:
            return self._client._stream(options, TranscriptionStreamEvent)
        return self._client._request(options, transcription_type(response_format))  # type: ignore[no-any-return]


class AsyncTranscriptions(AsyncAPIResource):
    async def create(
        self,
        *,
        file: FileTypes,
        model: str,
        response_format: str = NOT_GIVEN,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Transcribed | AsyncStream[TranscriptionStreamEvent]:
        """Async twin of :meth:`Transcriptions.create`."""
        options = TRANSCRIBE.build(locals())
        if stream:
            return await self._client._stream(options, TranscriptionStreamEvent)
        return await self._client._request(options, transcription_type(response_format))  # type: ignore[no-any-return]


class Translations(SyncAPIResource):
    def create(
        self,
        *,
        file: FileTypes,
        model: str,
        response_format: str = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Translated:
        """Translate the speech in ``file`` into English text (same ``file`` forms as transcriptions)."""
        options = TRANSLATE.build(locals())
        return self._client._request(options, translation_type(response_format))  # type: ignore[no-any-return]


class AsyncTranslations(AsyncAPIResource):
    async def create(
        self,
        *,
        file: FileTypes,
        model: str,
        response_format: str = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Translated:
        """Async twin of :meth:`Translations.create`."""
        options = TRANSLATE.build(locals())
        return await self._client._request(options, translation_type(response_format))  # type: ignore[no-any-return]


class Audio(SyncAPIResource):
    """``client.audio``: ``speech``, ``transcriptions`` and ``translations``."""

    def __init__(self, client: SyncCallSite) -> None:
        super().__init__(client)
        self.speech = Speech(client)
        self.transcriptions = Transcriptions(client)
        self.translations = Translations(client)


class AsyncAudio(AsyncAPIResource):
    """``client.audio`` of the async client."""

    def __init__(self, client: AsyncCallSite) -> None:
        super().__init__(client)
        self.speech = AsyncSpeech(client)
        self.transcriptions = AsyncTranscriptions(client)
        self.translations = AsyncTranslations(client)
