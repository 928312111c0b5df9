"""Cost planning: what a measured workload costs on OpenAI, on HolySheep, and on self-hosted GPUs.

The pieces are kept apart so each can be read (and tested) on its own:

* :mod:`._usage_files` reads usage exports (OpenAI Usage API pages, holyclient's own export, a CSV)
  into :class:`UsageRow` rows;
* :mod:`._spend` prices those rows at list prices and projects them to a month;
* :mod:`._gpus` is the sourced GPU, throughput and model-shape table (``_data/gpus.json``);
* :mod:`._selfhost` is the self-hosting arithmetic, as pure functions;
* :mod:`._render` turns both reports into text.

Nothing here does I/O beyond reading the files it is given.
"""

from __future__ import annotations

from ..pricing import usage_export
from ._gpus import GpuTable, GpuTableError, Throughput, parse_spec, read_vllm_result
from ._plan_report import self_host_report
from ._render import render_self_host, render_spend
from ._spend import DEFAULT_FX_RATE, spend_report
from ._usage_files import UsageFileError, UsageRow, Workload, read_usage_files

__all__ = [
    "DEFAULT_FX_RATE",
    "GpuTable",
    "GpuTableError",
    "Throughput",
    "UsageFileError",
    "UsageRow",
    "Workload",
    "parse_spec",
    "read_usage_files",
    "read_vllm_result",
    "render_self_host",
    "render_spend",
    "self_host_report",
    "spend_report",
    "usage_export",
]
