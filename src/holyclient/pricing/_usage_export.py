"""The usage tracker's totals as an OpenAI Usage API page: the file ``holyclient estimate --usage`` reads
(:mod:`holyclient.costplan` is the reader; this module writes, so the tracker needs nothing above it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def usage_export(models: Mapping[str, Any], *, start_time: int, end_time: int) -> dict[str, Any]:
    """One Usage API page (one bucket, ``group_by=model``) from a usage snapshot's per-model totals.

    ``models`` maps a model name to an object with ``requests``, ``prompt_tokens``, ``cached_tokens``,
    ``cache_write_tokens``, ``cache_write_long_tokens`` and ``completion_tokens``
    (:class:`holyclient.UsageSnapshot` ``.models``); the cache writes are holyclient's own fields
    (``input_cache_write_tokens``, ``input_cache_write_long_tokens``: the Usage API has none). The page is what
    ``holyclient estimate --usage`` reads; embeddings models (no completion tokens) are written as
    completions results too, which prices them the same.
    """
    results = [
        {
            "object": "organization.usage.completions.result",
            "input_tokens": m.prompt_tokens,
            "input_cached_tokens": m.cached_tokens,
            # holyclient's own fields (the Usage API has none for cache writes): read back by estimate
            "input_cache_write_tokens": m.cache_write_tokens,
            "input_cache_write_long_tokens": m.cache_write_long_tokens,
            "output_tokens": m.completion_tokens,
            "num_model_requests": m.requests,
            "model": name,
        }
        for name, m in sorted(models.items())
    ]
    bucket = {
        "object": "bucket",
        "start_time": start_time,
        "end_time": max(end_time, start_time + 1),
        "results": results,
    }
    return {"object": "page", "data": [bucket], "has_more": False, "next_page": None}
