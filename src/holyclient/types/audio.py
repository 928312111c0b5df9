"""Speech to text (``client.audio.transcriptions`` / ``translations``).

Text to speech (``client.audio.speech``) answers with bytes, see :mod:`holyclient._core._binary`.
``response_format`` picks the return type as in openai: ``json`` (default) a :class:`Transcription`,
``verbose_json`` a :class:`TranscriptionVerbose`, ``diarized_json`` a :class:`TranscriptionDiarized`, ``text`` / ``srt`` / ``vtt`` a plain ``str``.
"""

from __future__ import annotations

from typing import Any

from ._model import BaseModel


class TranscriptionWord(BaseModel):
    word: str = ""
    start: float = 0.0
    end: float = 0.0


class TranscriptionSegment(BaseModel):
    id: int = 0
    start: float = 0.0
    end: float = 0.0
    text: str = ""
    avg_logprob: float | None = None
    compression_ratio: float | None = None
    no_speech_prob: float | None = None
    seek: int | None = None
    temperature: float | None = None
    tokens: list[int] | None = None


class TranscriptionUsage(BaseModel):
    """Tokens (``type="tokens"``) or seconds of audio (``type="duration"``) billed."""

    type: str = "tokens"
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    seconds: float | None = None


class Transcription(BaseModel):
    text: str
    logprobs: list[Any] | None = None
    usage: TranscriptionUsage | None = None


class TranscriptionVerbose(BaseModel):
    text: str
    language: str = ""
    duration: float = 0.0
    segments: list[TranscriptionSegment] | None = None
    words: list[TranscriptionWord] | None = None
    usage: TranscriptionUsage | None = None


class TranscriptionDiarizedSegment(BaseModel):
    id: str = ""
    speaker: str = ""
    start: float = 0.0
    end: float = 0.0
    text: str = ""
    type: str = "transcript.text.segment"


class TranscriptionDiarized(BaseModel):
    """``response_format="diarized_json"`` (``gpt-4o-transcribe-diarize``): segments labelled by speaker."""

    text: str
    duration: float = 0.0
    segments: list[TranscriptionDiarizedSegment] | None = None
    task: str | None = None
    usage: TranscriptionUsage | None = None


class TranscriptionStreamEvent(BaseModel):
    """One event of a streamed transcription: ``transcript.text.delta`` (``delta``) or ``transcript.text.done``
    (``text`` and ``usage``)."""

    type: str
    delta: str | None = None
    text: str | None = None
    logprobs: list[Any] | None = None
    usage: TranscriptionUsage | None = None
    model: str | None = None


class Translation(BaseModel):
    text: str


class TranslationVerbose(BaseModel):
    text: str
    language: str = ""
    duration: float = 0.0
    segments: list[TranscriptionSegment] | None = None


_TEXT_FORMATS = ("text", "srt", "vtt")


def transcription_type(response_format: object) -> Any:
    """The return type of ``transcriptions.create`` for a ``response_format`` (openai's rule)."""
    if response_format in _TEXT_FORMATS:
        return str
    if response_format == "diarized_json":
        return TranscriptionDiarized
    return TranscriptionVerbose if response_format == "verbose_json" else Transcription


def translation_type(response_format: object) -> Any:
    """The return type of ``translations.create`` for a ``response_format``."""
    if response_format in _TEXT_FORMATS:
        return str
    return TranslationVerbose if response_format == "verbose_json" else Translation
