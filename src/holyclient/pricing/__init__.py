"""The dated, sourced price table and what a request or a usage costs (see :mod:`holyclient.pricing._cost`)."""

from __future__ import annotations

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
    cost_from_usage,
    default_table,
    estimate_cost,
    estimate_request,
    lookup_model,
    requested_output_tokens,
    usage_tokens,
)
from ._tracker import UsageSnapshot, UsageTracker
from ._usage_export import usage_export

__all__ = [
    "DEFAULT_CNY_RATE",
    "DEFAULT_OUTPUT_TOKENS",
    "CostEstimate",
    "ModelInfo",
    "Price",
    "PriceFileError",
    "PriceTable",
    "Tier",
    "UnknownModelError",
    "UsageSnapshot",
    "UsageTracker",
    "cost_from_usage",
    "default_table",
    "estimate_cost",
    "estimate_request",
    "lookup_model",
    "requested_output_tokens",
    "usage_export",
    "usage_tokens",
]
