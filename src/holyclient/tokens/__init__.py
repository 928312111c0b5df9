"""Offline token counting for chat requests, the way OpenAI bills them (see :mod:`holyclient.tokens._count`)."""

from __future__ import annotations

from ._calibration import Calibration, CalibrationFileError, ModelFit, OnlineCalibration, Sample, fit
from ._count import (
    DEFAULT_IMAGE_SIZE,
    TokenCount,
    count_messages,
    count_tokens,
    encoding_for_model,
    encoding_name_for_model,
    image_tokens,
    qualify,
    qualify_profile,
)
from ._ranges import CountMethod, family_for
from ._request_bodies import Shape, count_request, profile_request, shape_of
from ._tokenizer import preload, warm_up, without_waiting

__all__ = [
    "DEFAULT_IMAGE_SIZE",
    "Calibration",
    "CalibrationFileError",
    "CountMethod",
    "ModelFit",
    "OnlineCalibration",
    "Sample",
    "Shape",
    "TokenCount",
    "count_messages",
    "count_request",
    "count_tokens",
    "encoding_for_model",
    "encoding_name_for_model",
    "family_for",
    "fit",
    "image_tokens",
    "preload",
    "profile_request",
    "qualify",
    "qualify_profile",
    "shape_of",
    "warm_up",
    "without_waiting",
]
