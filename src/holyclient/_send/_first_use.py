"""What a call's attempts load on first use, loaded before its span opens (:meth:`~._pipeline.Pipeline.ready`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._http import ready as ready_transport
from ..pricing import charging_for, counts_tokens

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ._steps import PipelineClient


def load_first_use(client: PipelineClient, options: RequestOptions, model: str | None) -> None:
    """Load the HTTP client (its library, its TLS context), the price table the answer is charged with
    and, when the call's tokens are counted (held against a budget before sending, or a model counted
    with a stand-in tokenizer learning from its answer), the model's tokenizer.

    Raises:
        Exception: whatever loading raised (an HTTP client that cannot be made, a price table that
            cannot be read): the caller logs it, and the attempt fails the same way inside its span.
    """
    ready_transport(client._http)
    prices = client._usage.prices
    charging = charging_for(options.method, options.path)
    if model and counts_tokens(charging, options.body, client._budget_usd is not None):
        from ..tokens import count_tokens

        info = prices.get(model)
        if info is not None:
            count_tokens("", info.name)  # the model's tokenizer, and its ranges for a stand-in
