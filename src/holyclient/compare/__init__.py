"""``holyclient compare``'s engine: replay a sample on two endpoints and judge the difference.

Small modules, one concern each: ``_similarity`` (how alike two answers are), ``_embeddings``
(the same by embedding cosine), ``_stats`` (percentiles, bootstrap), ``_gates`` (``p95_ratio<=1.3``),
``_report`` (the data of a report), ``_text`` and ``_html`` (rendering it), ``_sample`` (reading the
sample), ``_streams`` (streams folded into completions), ``_state`` (``--state``: resuming after a
crash), ``_passes`` (old and new at once, then the repeats) and ``_run``, the only one that sends
(through :class:`~holyclient.batch.BatchRunner`). The face is lazy: a
name's module is imported on its first use, so that the command line (which lists ``METRICS`` in
``compare --help``) does not import the runner, the batch package and pydantic for every command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
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

#: Each public name and the module that holds it (imported on first use).
_LAZY = {
    "Endpoint": "._passes",
    "Gate": "._gates",
    "GateError": "._gates",
    "GateResult": "._gates",
    "METRICS": "._gates",
    "Output": "._similarity",
    "SampleError": "._sample",
    "Similarity": "._similarity",
    "StateError": "._state",
    "build_pairs": "._report",
    "chunk_has_output": "._streams",
    "embed_texts": "._passes",
    "endpoint_of": "._state",
    "evaluate": "._gates",
    "fingerprint": "._run",
    "load_state": "._state",
    "make_report": "._report",
    "output_of": "._similarity",
    "parse_gate": "._gates",
    "prose_texts": "._embeddings",
    "read_sample": "._sample",
    "render_html": "._html",
    "render_text": "._text",
    "run_passes": "._passes",
    "similarity": "._similarity",
}


__getattr__ = _lazy_names(__name__, _LAZY, globals())


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
