"""Self-hosting arithmetic, as pure functions of a :class:`Plan` (no table look-ups, no I/O).

Formulas (each appears in the report with the inputs it used):

* hours in a year = 8,760; a month = 730 hours (8,760 / 12);
* power per year = ``power_yearly`` if given, else watts x GPUs / 1000 x 8,760 x utilisation x kWh price;
* running per year = power + 12 x ops per month + API backup per year (+ rent: hourly x GPUs x 8,760);
* first year = capex + running per year; three years = capex + 3 x running per year;
* per month (for the per-token figure) = capex / amortisation months + running per year / 12;
* capacity per month = output tokens/s x utilisation x 730 x 3,600;
* cost per 1M tokens = per month / (capacity per month / 1e6);
* API per month = tokens per month / 1e6 x API price per 1M tokens; API per year = 12 x that;
* break-even volume = per month / API price per 1M tokens x 1e6 tokens per month (self-hosting is cheaper
  above it), reachable if it is within the capacity at 100 % utilisation;
* memory: weights = parameters x bytes per parameter; KV cache per token = 2 x layers x KV heads x
  head dim x 2 bytes; needed = weights + KV per token x context x sequences; usable = GPUs x memory x 0.9
  (vLLM's default ``gpu_memory_utilization``).
"""

from __future__ import annotations

from dataclasses import dataclass

HOURS_PER_YEAR = 8_760
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
SWEEP = (0.1, 0.3, 0.6, 0.9)
BYTES_PER_PARAM = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
KV_BYTES = 2.0  # bf16/fp16 KV cache
USABLE_MEMORY = 0.9


@dataclass(frozen=True)
class Plan:
    """Every input of a self-hosting estimate, in one currency (``--currency``)."""

    gpus: int
    capex: float
    months: int
    ops_monthly: float
    api_backup_yearly: float
    utilisation: float
    output_tokens_per_s: float  # at full use, all the plan's GPUs together
    power_yearly: float | None = None
    watts: float = 0.0  # per GPU, used when power_yearly is None
    kwh_price: float = 0.0
    gpu_hourly: float | None = None  # renting: price per GPU-hour (capex is then 0)


def power_per_year(plan: Plan, utilisation: float) -> float:
    if plan.power_yearly is not None:
        return plan.power_yearly
    return plan.watts * plan.gpus / 1000 * HOURS_PER_YEAR * utilisation * plan.kwh_price


def rent_per_year(plan: Plan) -> float:
    return 0.0 if plan.gpu_hourly is None else plan.gpu_hourly * plan.gpus * HOURS_PER_YEAR


def running_per_year(plan: Plan, utilisation: float) -> float:
    return (
        power_per_year(plan, utilisation)
        + 12 * plan.ops_monthly
        + plan.api_backup_yearly
        + rent_per_year(plan)
    )


def first_year(plan: Plan) -> float:
    return plan.capex + running_per_year(plan, plan.utilisation)


def years(plan: Plan, n: int) -> float:
    return plan.capex + n * running_per_year(plan, plan.utilisation)


def per_month(plan: Plan, utilisation: float) -> float:
    return plan.capex / plan.months + running_per_year(plan, utilisation) / 12


def capacity_per_month(plan: Plan, utilisation: float) -> float:
    """Output tokens the GPUs produce in a month at this utilisation."""
    return plan.output_tokens_per_s * utilisation * HOURS_PER_MONTH * 3_600


def cost_per_million(plan: Plan, utilisation: float) -> float:
    return per_month(plan, utilisation) / (capacity_per_month(plan, utilisation) / 1e6)


def break_even_tokens(plan: Plan, api_per_million: float) -> float:
    """Monthly volume above which owning is cheaper than the API (at the plan's utilisation costs)."""
    return per_month(plan, plan.utilisation) / api_per_million * 1e6


@dataclass(frozen=True)
class MemoryFit:
    weights_gb: float
    kv_bytes_per_token: float
    kv_gb: float
    needed_gb: float
    usable_gb: float
    max_sequences: int  # sequences of this context that fit beside the weights

    @property
    def fits(self) -> bool:
        return self.needed_gb <= self.usable_gb


def memory_fit(
    *,
    params_b: float,
    layers: int,
    kv_heads: int,
    head_dim: int,
    precision: str,
    context: int,
    sequences: int,
    gpus: int,
    memory_gb: float,
) -> MemoryFit:
    weights = params_b * BYTES_PER_PARAM[precision]
    kv_token = 2 * layers * kv_heads * head_dim * KV_BYTES
    kv_gb = kv_token * context * sequences / 1e9
    usable = gpus * memory_gb * USABLE_MEMORY
    per_sequence = kv_token * context / 1e9
    room = max(usable - weights, 0.0)
    return MemoryFit(weights, kv_token, kv_gb, weights + kv_gb, usable, int(room // per_sequence))
