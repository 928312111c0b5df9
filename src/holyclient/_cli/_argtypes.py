"""argparse ``type=`` callables shared by the subcommands: a nonsense number is a usage error that says
what was expected (``nan``, ``inf``, ``1e23`` and negatives included), never a traceback later on."""

from __future__ import annotations

import argparse
import math

#: No model writes more in one answer; a larger number is a typo.
MAX_TOKENS = 10_000_000


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def positive_float(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def probability(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def positive_int(text: str) -> int:
    value = non_negative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be >= 1, got 0")
    return value


def token_count(text: str) -> int:
    """A number of tokens: a whole number from 0 to :data:`MAX_TOKENS`."""
    value = non_negative_int(text)
    if value > MAX_TOKENS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TOKENS:,}, got {value:,}")
    return value


def port(text: str) -> int:
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be within 0..65535, got {value}")
    return value
