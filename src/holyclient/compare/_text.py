"""The plain-text report that ``holyclient compare`` prints. No I/O.

Answers, errors and URLs come from servers and models: every line is passed through
:func:`~holyclient._core._printable.printable`, so none of them can drive the terminal.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .._core import printable
from ._report import Report, retry_summary

#: How many of the least similar requests the text report lists.
SHOWN_DIFFERENCES = 5


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.6f}"


def _token_note(report: Report) -> str | None:
    """Why the prompt tokens an endpoint bills can differ from holyclient's local count."""
    m = report.metrics
    local = m["local_prompt_tokens"]
    sides = [m["old_prompt_tokens"], m["new_prompt_tokens"]]
    if not local or all(side is None or abs(side - local) <= 0.1 * local for side in sides):
        return None
    note = "note: prompt tokens are what each endpoint bills; the local count is holyclient's (tiktoken)"
    if any(
        urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")
        for url in (report.old_url, report.new_url)
    ):
        note += "; holyclient's local server bills about 4 characters a token, not a real tokenizer's count"
    return note


def render_text(report: Report) -> str:
    m = report.metrics
    n = len(report.pairs)
    rows = [
        ("", "old", "new", "new/old"),
        ("ok", f"{n - int(m['old_errors'] or 0)}/{n}", f"{n - int(m['new_errors'] or 0)}/{n}", ""),
        ("latency p50", _ms(m["old_p50"]), _ms(m["new_p50"]), _ratio(m, "p50")),
        ("latency p95", _ms(m["old_p95"]), _ms(m["new_p95"]), _ratio(m, "p95")),
        ("ttft p95", _ms(m["old_ttft_p95"]), _ms(m["new_ttft_p95"]), _num(m["ttft_p95_ratio"], 2)),
        (
            "prompt tokens",
            _int(m["old_prompt_tokens"]),
            _int(m["new_prompt_tokens"]),
            f"{_num(m['token_ratio'], 2)} (local count {_int(m['local_prompt_tokens'])})",
        ),
        ("cost", _usd(m["old_cost_usd"]), _usd(m["new_cost_usd"]), _num(m["cost_ratio"], 2)),
        ("attempts", _int(m["old_attempts"]), _int(m["new_attempts"]), ""),
        ("retries", retry_summary(m, "old"), retry_summary(m, "new"), ""),
    ]
    lines = [f"old: {report.old_url}" + (f" ({report.old_model})" if report.old_model else "")]
    lines.append(f"new: {report.new_url}" + (f" ({report.new_model})" if report.new_model else ""))
    lines += [f"{a:<15} {b:>12} {c:>12}  {d}".rstrip() for a, b, c, d in rows]
    if (note := _token_note(report)) is not None:
        lines.append(note)
    noise = m["noise"]
    lines.append(
        f"similarity      {_num(m['similarity'])} old vs new; noise floor "
        + (f"{_num(noise)} old vs old" if noise is not None else "not measured (use --repeat 2)")
    )
    failed = [
        (p.custom_id, side, r.error)
        for p in report.pairs
        for side, r in (("old", p.old), ("new", p.new))
        if r.error
    ]
    if failed:
        lines.append(f"errors: {len(failed)}")
        for custom_id, side, error in failed[:SHOWN_DIFFERENCES]:
            lines.append(f"  {custom_id} ({side}): {error}")
    if m["embedding_similarity"] is not None:
        floor = m["embedding_noise"]
        lines.append(
            f"embedding       {_num(m['embedding_similarity'])} old vs new; noise floor "
            + (f"{_num(floor)} old vs old" if floor is not None else "not measured (use --repeat 2)")
        )
    differing = sorted(
        (p for p in report.pairs if p.similarity.score < 1.0), key=lambda p: p.similarity.score
    )
    if differing:
        lines.append(f"differing answers: {len(differing)} of {n}; least similar:")
        for pair in differing[:SHOWN_DIFFERENCES]:
            noise_text = "" if pair.noise is None else f", noise {pair.noise:.2f}"
            lines.append(
                f"  {pair.custom_id}: {pair.similarity.score:.2f} ({pair.similarity.method}{noise_text})"
            )
            lines.append(f"    old: {pair.old.output.display()[:100]}")
            lines.append(f"    new: {pair.new.output.display()[:100]}")
    if report.gates:
        lines.append("gates:")
        for gate in report.gates:
            lines.append(f"  {'PASS' if gate.passed else 'FAIL'} {gate.gate}: {gate.reason}")
    return "\n".join(printable(line) for line in lines) + "\n"


def _int(value: float | None) -> str:
    return "-" if value is None else str(int(value))


def _ratio(m: dict[str, float | None], q: str) -> str:
    value = m[f"{q}_ratio"]
    low, high = m[f"{q}_ratio_ci_low"], m[f"{q}_ratio_ci_high"]
    if value is None:
        return "-"
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    return f"{value:.2f}{interval}"
