"""Speech to text (``client.audio.transcriptions`` / ``translations``).

Text to speech (``client.audio.speech``) answers with bytes, see :mod:`holyclient._core._binary`.
``response_format`` picks the return type as in openai: ``json`` (default) a :class:`Transcription`,
``verbose_json`` a :class:`TranscriptionVerbose`, ``diarized_json`` a :class:`TranscriptionDiarized`, ``text`` / ``srt`` / ``vtt`` a plain ``str``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import SerializeAsAny, field_validator

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
    """Tokens (:class:`UsageTokens`) or seconds of audio (:class:`UsageDuration`) billed, told apart by
    ``type`` as openai does; a kind this module does not know keeps its fields as extra fields."""

    if TYPE_CHECKING:
        type: str
        input_tokens: int | None
        output_tokens: int | None
        total_tokens: int | None
        seconds: float | None


class UsageTokensInputTokenDetails(BaseModel):
    audio_tokens: int | None = None
    text_tokens: int | None = None


class UsageTokens(TranscriptionUsage):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    type: str = "tokens"
    input_token_details: UsageTokensInputTokenDetails | None = None


class UsageDuration(TranscriptionUsage):
    seconds: float | None = None
    type: str = "duration"


class _VerboseUsage(UsageDuration):
    def __repr_name__(self) -> str:
        return "Usage"  # ``openai.types.audio.transcription_verbose.Usage``


def _usage(value: Any, duration: type[UsageDuration] = UsageDuration) -> Any:
    """A usage dict validated into the class its ``type`` names (the open base when unknown)."""
    if not isinstance(value, dict):
        return value
    kinds: dict[str, type[TranscriptionUsage]] = {"tokens": UsageTokens, "duration": duration}
    return kinds.get(str(value.get("type")), TranscriptionUsage).model_validate(value)


#: The usage field of a transcription: dumped as the class it is (the declared base has no fields).
Usage = SerializeAsAny[TranscriptionUsage]


class TranscriptionLanguage(BaseModel):
    """A language detected in the audio (``code``, as openai's ``TranscriptionLanguage``)."""

    code: str


class Transcription(BaseModel):
    text: str
    languages: list[TranscriptionLanguage] | None = None
    logprobs: list[Any] | None = None
    usage: Usage | None = None

    @field_validator("usage", mode="before")
    @classmethod
    def _usage_by_type(cls, value: Any) -> Any:
        return _usage(value)


class TranscriptionVerbose(BaseModel):
    duration: float = 0.0
    language: str = ""
    text: str
    segments: list[TranscriptionSegment] | None = None
    usage: Usage | None = None
    words: list[TranscriptionWord] | None = None

    @field_validator("usage", mode="before")
    @classmethod
    def _usage_by_type(cls, value: Any) -> Any:
        return _usage(value, _VerboseUsage)


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
    usage: Usage | None = None

    @field_validator("usage", mode="before")
    @classmethod
    def _usage_by_type(cls, value: Any) -> Any:
        return _usage(value)


class TranscriptionStreamEvent(BaseModel):
    """One event of a streamed transcription: ``transcript.text.delta`` (``delta``) or ``transcript.text.done``
    (``text`` and ``usage``)."""

    type: str
    delta: str | None = None
    text: str | None = None
    logprobs: list[Any] | None = None
    usage: Usage | None = None
    model: str | None = None

    @field_validator("usage", mode="before")
    @classmethod
    def _usage_by_type(cls, value: Any) -> Any:
        return _usage(value)


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
