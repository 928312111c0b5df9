"""``holyclient compare``'s engine: replay a sample on two endpoints and judge the difference.

Small modules, one concern each: ``_similarity`` (how alike two answers are), ``_embeddings``
(the same by embedding cosine), ``_stats`` (percentiles, bootstrap), ``_gates`` (``p95_ratio<=1.3``),
``_report`` (the data of a report), ``_text`` and ``_html`` (rendering it), ``_sample`` (reading the
sample), ``_streams`` (streams folded into completions), ``_state`` (``--state``: resuming after a
crash), ``_passes`` (old and new at once, then the repeats) and ``_run``, the only one that sends
(through :class:`~holyclient.batch.BatchRunner`). This package's import is
light (stdlib only); the report and the runner are imported where they are used.
"""

from __future__ import annotations

from ._embeddings import prose_texts
from ._gates import METRICS, Gate, GateError, GateResult, evaluate, parse_gate
from ._html import render_html
from ._passes import Endpoint, embed_texts, run_passes
from ._report import build_pairs, make_report
from ._run import fingerprint
from ._sample import SampleError, read_sample
from ._similarity import Output, Similarity, output_of, similarity
from ._state import StateError, endpoint_of, load_state
from ._streams import chunk_has_output
from ._text import render_text

__all__ = [
    "METRICS",
    "Endpoint",
    "Gate",
    "GateError",
    "GateResult",
    "Output",
    "SampleError",
    "Similarity",
    "StateError",
    "build_pairs",
    "chunk_has_output",
    "embed_texts",
    "endpoint_of",
    "evaluate",
    "fingerprint",
    "load_state",
    "make_report",
    "output_of",
    "parse_gate",
    "prose_texts",
    "read_sample",
    "render_html",
    "render_text",
    "run_passes",
    "similarity",
]
