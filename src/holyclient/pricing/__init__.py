"""The dated, sourced price table and what a request or a usage costs (see :mod:`holyclient.pricing._cost`)."""

from __future__ import annotations

from ._billed import BilledTokens, billed_figures, billed_tokens, billed_usage
from ._charging import (
    CHAT,
    ENDPOINTS,
    UNDECLARED,
    Charging,
    FailureKind,
    charging_for,
    routes,
)
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
from ._hold import BudgetPolicy, Reservation
from ._ledger import Ledger, counts_tokens, failure_kind, holds
from ._stream_usage import Outcome, StreamMeter, ask_for_usage
from ._tracker import UsageSnapshot, UsageTracker
from ._usage_export import usage_export

__all__ = [
    "CHAT",
    "DEFAULT_CNY_RATE",
    "DEFAULT_OUTPUT_TOKENS",
    "ENDPOINTS",
    "UNDECLARED",
    "BilledTokens",
    "BudgetPolicy",
    "Charging",
    "CostEstimate",
    "FailureKind",
    "Ledger",
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
    "billed_figures",
    "billed_tokens",
    "billed_usage",
    "charging_for",
    "cost_from_usage",
    "counts_tokens",
    "default_table",
    "estimate_cost",
    "estimate_request",
    "failure_kind",
    "holds",
    "lookup_model",
    "requested_output_tokens",
    "routes",
    "usage_export",
    "usage_tokens",
]
