"""The dated, sourced price table and what a request or a usage costs (see :mod:`holyclient.pricing._cost`)."""

from __future__ import annotations

from ._billed import BilledTokens, billed_tokens
from ._cost import (
    DEFAULT_CNY_RATE,
    DEFAULT_OUTPUT_TOKENS,
    CostEstimate,
    ModelInfo,
    Price,
    PriceFileError,
    PriceTable,
    Tier,
    UnknownModelError,
    billed_cost,
    cost_from_usage,
    default_table,
    estimate_cost,
    estimate_request,
    lookup_model,
    requested_output_tokens,
    usage_tokens,
)
from ._stream_usage import CHARGED_PATHS, Outcome, StreamMeter, ask_for_usage
from ._tracker import Reservation, UsageSnapshot, UsageTracker, billed_usage
from ._usage_export import usage_export

__all__ = [
    "CHARGED_PATHS",
    "DEFAULT_CNY_RATE",
    "DEFAULT_OUTPUT_TOKENS",
    "BilledTokens",
    "CostEstimate",
    "ModelInfo",
    "Outcome",
    "Price",
    "PriceFileError",
    "PriceTable",
    "Reservation",
    "StreamMeter",
    "Tier",
    "UnknownModelError",
    "UsageSnapshot",
    "UsageTracker",
    "ask_for_usage",
    "billed_cost",
    "billed_tokens",
    "billed_usage",
    "cost_from_usage",
    "default_table",
    "estimate_cost",
    "estimate_request",
    "lookup_model",
    "requested_output_tokens",
    "usage_export",
    "usage_tokens",
]
