"""Speech to text (``client.audio.transcriptions`` / ``translations``).

Text to speech (``client.audio.speech``) answers with bytes, see :mod:`holyclient._core._binary`.
``response_format`` picks the return type as in openai: ``json`` (default) a :class:`Transcription`,
``verbose_json`` a :class:`TranscriptionVerbose`, ``diarized_json`` a :class:`TranscriptionDiarized`, ``text`` / ``srt`` / ``vtt`` a plain ``str``.
"""

from __future__ import annotations

from typing import Any

from ._model import BaseModel

# Fields in openai's order, so that results print and dump as openai's do.


class TranscriptionWord(BaseModel):
    end: float = 0.0
    start: float = 0.0
    word: str = ""


class TranscriptionSegment(BaseModel):
    id: int = 0
    avg_logprob: float | None = None
    compression_ratio: float | None = None
    end: float = 0.0
    no_speech_prob: float | None = None
    seek: int | None = None
    start: float = 0.0
    temperature: float | None = None
    text: str = ""
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
    languages: list[str] | None = None
    logprobs: list[Any] | None = None
    usage: TranscriptionUsage | None = None


class TranscriptionVerbose(BaseModel):
    duration: float = 0.0
    language: str = ""
    text: str
    segments: list[TranscriptionSegment] | None = None
    usage: TranscriptionUsage | None = None
    words: list[TranscriptionWord] | None = None


class TranscriptionDiarizedSegment(BaseModel):
    id: str = ""
    end: float = 0.0
    speaker: str = ""
    start: float = 0.0
    text: str = ""
    type: str = "transcript.text.segment"


class TranscriptionDiarized(BaseModel):
    """``response_format="diarized_json"`` (``gpt-4o-transcribe-diarize``): segments labelled by speaker."""

    duration: float = 0.0
    segments: list[TranscriptionDiarizedSegment] | None = None
    task: str | None = None
    text: str
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
    duration: float = 0.0
    language: str = ""
    text: str
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
