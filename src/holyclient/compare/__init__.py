"""``holyclient compare``'s engine: replay a sample on two endpoints and judge the difference.

Small modules, one concern each: ``_similarity`` (how alike two answers are), ``_embeddings``
(the same by embedding cosine), ``_stats`` (percentiles, bootstrap), ``_gates`` (``p95_ratio<=1.3``),
``_report`` (the data of a report), ``_text`` and ``_html`` (rendering it), ``_sample`` (reading the
sample), ``_streams`` (streams folded into completions), ``_state`` (``--state``: resuming after a
crash), ``_passes`` (old and new at once, then the repeats) and ``_run``, the only one that sends
(through :class:`~holyclient.batch.BatchRunner`). This package's import is
light (stdlib only); the report and the runner are imported where they are used.
"""

from ._gates import METRICS, Gate, GateError, GateResult, evaluate, parse_gate
from ._similarity import Output, Similarity, output_of, similarity

__all__ = [
    "METRICS",
    "Gate",
    "GateError",
    "GateResult",
    "Output",
    "Similarity",
    "evaluate",
    "output_of",
    "parse_gate",
    "similarity",
]
