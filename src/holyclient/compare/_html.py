"""``-o report.html``: one self-contained page (inline CSS and SVG, no script, no network). No I/O.

Everything from the report is escaped: answers are untrusted text from two servers.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ._pairs import Pair
from ._report import Report, retry_summary

OLD_COLOUR, NEW_COLOUR, NOISE_COLOUR = "#4c72b0", "#dd8452", "#55a868"
_BINS = 20
_W, _H = 380, 160

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}
.sub{color:#5b6570;margin:0 0 16px;word-break:break-all}
.banner{padding:12px 16px;border-radius:8px;font-weight:600;margin:12px 0}
.pass{background:#e3f4e6;color:#17602a}.fail{background:#fbe4e2;color:#8c1d13}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(330px,1fr));gap:16px}
.card{background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:14px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e1e4e8;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:700}
.badge.pass{background:#2f9e44;color:#fff}.badge.fail{background:#e03131;color:#fff}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;border-radius:2px}
svg text{font:11px system-ui,sans-serif;fill:#5b6570}
"""


def _fmt(value: float | None, unit: str = "", digits: int = 3) -> str:
    if value is None:
        return "&ndash;"
    if unit == "ms":
        return f"{value * 1000:.1f}&nbsp;ms"
    if unit == "$":
        return f"${value:.6f}"
    return f"{value:.{digits}f}"


def _histogram(
    series: Sequence[tuple[str, str, Sequence[float]]], low: float, high: float, marker: float | None = None
) -> str:
    """Overlaid histograms as SVG bars (one colour a series), with an optional vertical marker line."""
    if high <= low:
        high = low + 1e-9
    width = (high - low) / _BINS
    plot_w, plot_h, left, bottom = _W - 40, _H - 30, 30, _H - 20
    counts = []
    for _, _, values in series:
        bins = [0] * _BINS
        for value in values:
            bins[min(int((value - low) / width), _BINS - 1)] += 1
        counts.append(bins)
    top = max((max(c) for c in counts if c), default=1) or 1
    bar = plot_w / _BINS / max(len(series), 1)
    parts = [f'<svg viewBox="0 0 {_W} {_H}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">']
    parts.append(f'<line x1="{left}" y1="{bottom}" x2="{left + plot_w}" y2="{bottom}" stroke="#8a939c"/>')
    for s, ((label, colour, _), bins) in enumerate(zip(series, counts, strict=True)):
        for i, count in enumerate(bins):
            if count:
                h = plot_h * count / top
                x = left + i * plot_w / _BINS + s * bar
                parts.append(
                    f'<rect x="{x:.1f}" y="{bottom - h:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" '
                    f'fill="{colour}"><title>{escape(label)}: {count}</title></rect>'
                )
    parts.append(f'<text x="{left}" y="{_H - 4}">{escape(_axis(low))}</text>')
    parts.append(f'<text x="{left + plot_w}" y="{_H - 4}" text-anchor="end">{escape(_axis(high))}</text>')
    parts.append(f'<text x="4" y="14">{top}</text>')
    if marker is not None and low <= marker <= high:
        x = left + plot_w * (marker - low) / (high - low)
        parts.append(
            f'<line x1="{x:.1f}" y1="8" x2="{x:.1f}" y2="{bottom}" stroke="{NOISE_COLOUR}" '
            'stroke-width="2" stroke-dasharray="5,3"/>'
        )
        label_x, anchor = (x - 4, "end") if x > left + plot_w * 0.6 else (x + 4, "start")
        parts.append(
            f'<text x="{label_x:.1f}" y="18" text-anchor="{anchor}" style="fill:{NOISE_COLOUR}">'
            f"noise floor {marker:.2f}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _axis(value: float) -> str:
    return f"{value:.3g}"


def _legend(*items: tuple[str, str]) -> str:
    return (
        '<div class="legend">'
        + "".join(f'<span style="background:{c}"></span>{escape(t)}' for t, c in items)
        + "</div>"
    )


def _bars(items: Sequence[tuple[str, str, float | None]], unit: str) -> str:
    known = [v for _, _, v in items if v is not None]
    top = max(known, default=0.0) or 1.0
    rows = []
    for i, (label, colour, value) in enumerate(items):
        w = 0.0 if value is None else 220 * value / top
        y = 10 + i * 34
        rows.append(
            f'<text x="0" y="{y + 16}">{escape(label)}</text><rect x="60" y="{y}" width="{w:.1f}" height="22" '
            f'fill="{colour}"/><text x="{66 + w:.1f}" y="{y + 16}">{_fmt(value, unit)}</text>'
        )
    return f'<svg viewBox="0 0 {_W} {20 + 34 * len(items)}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">{"".join(rows)}</svg>'


def _latency_card(report: Report, title: str, attr: str) -> str:
    pairs = [p for p in report.pairs if getattr(p.old, attr) is not None and getattr(p.new, attr) is not None]
    if not pairs:
        return f'<div class="card"><h3>{escape(title)}</h3><p>Not measured.</p></div>'
    old = [1000 * getattr(p.old, attr) for p in pairs]
    new = [1000 * getattr(p.new, attr) for p in pairs]
    chart = _histogram([("old", OLD_COLOUR, old), ("new", NEW_COLOUR, new)], 0.0, max(old + new))
    return (
        f'<div class="card"><h3>{escape(title)} (ms)</h3>{chart}'
        f"{_legend(('old', OLD_COLOUR), ('new', NEW_COLOUR))}</div>"
    )


def _pair_row(pair: Pair) -> str:
    noise = "&ndash;" if pair.noise is None else f"{pair.noise:.2f}"
    return (
        f"<tr><td>{escape(pair.custom_id)}</td><td class=num>{pair.similarity.score:.2f}"
        f"<br><small>{escape(pair.similarity.method)}</small></td><td class=num>{noise}</td>"
        f"<td><pre>{escape(pair.old.output.display()[:1500])}</pre></td>"
        f"<td><pre>{escape(pair.new.output.display()[:1500])}</pre></td></tr>"
    )


def render_html(report: Report) -> str:
    """The whole page as a string."""
    m = report.metrics
    status = "pass" if report.passed else "fail"
    if report.gates:
        verdict = (
            "All gates pass" if report.passed else f"{sum(not g.passed for g in report.gates)} gate(s) fail"
        )
    else:
        verdict = "No gates given"
        status = "pass"
    gates = "".join(
        f'<tr><td><span class="badge {"pass" if g.passed else "fail"}">{"PASS" if g.passed else "FAIL"}</span></td>'
        f"<td><code>{escape(g.gate)}</code></td><td>{escape(g.reason)}</td></tr>"
        for g in report.gates
    )
    rows = [
        ("latency p50", _fmt(m["old_p50"], "ms"), _fmt(m["new_p50"], "ms"), _ci(m, "p50")),
        ("latency p95", _fmt(m["old_p95"], "ms"), _fmt(m["new_p95"], "ms"), _ci(m, "p95")),
        (
            "time to first token p95",
            _fmt(m["old_ttft_p95"], "ms"),
            _fmt(m["new_ttft_p95"], "ms"),
            _fmt(m["ttft_p95_ratio"], digits=2),
        ),
        (
            "prompt tokens (local count " + _int(m["local_prompt_tokens"]) + ")",
            _int(m["old_prompt_tokens"]),
            _int(m["new_prompt_tokens"]),
            _fmt(m["token_ratio"], digits=2),
        ),
        (
            "cost USD",
            _fmt(m["old_cost_usd"], "$"),
            _fmt(m["new_cost_usd"], "$"),
            _fmt(m["cost_ratio"], digits=2),
        ),
        ("errors", _int(m["old_errors"]), _int(m["new_errors"]), ""),
        ("attempts", _int(m["old_attempts"]), _int(m["new_attempts"]), ""),
        (
            "retries (share of attempts)",
            retry_summary(m, "old", "&ndash;"),
            retry_summary(m, "new", "&ndash;"),
            "",
        ),
    ]
    if m["embedding_similarity"] is not None:
        rows.append(
            (
                "embedding cosine old vs new (noise floor)",
                "",
                "",
                f"{_fmt(m['embedding_similarity'])} ({_fmt(m['embedding_noise'])})",
            )
        )
    summary = "".join(
        f"<tr><td>{a}</td><td class=num>{b}</td><td class=num>{c}</td><td class=num>{d}</td></tr>"
        for a, b, c, d in rows
    )
    sims = [p.similarity.score for p in report.pairs]
    noises = [p.noise for p in report.pairs if p.noise is not None]
    series = [("old vs new", NEW_COLOUR, sims)] + ([("old vs old", NOISE_COLOUR, noises)] if noises else [])
    similarity = _histogram(series, 0.0, 1.0, m["noise"])
    cny = report.cny_rate
    cost = _bars([("old", OLD_COLOUR, m["old_cost_usd"]), ("new", NEW_COLOUR, m["new_cost_usd"])], "$")
    cny_text = " / ".join(
        f"{side}: CNY {value * cny:.6f}"
        for side, value in (("old", m["old_cost_usd"]), ("new", m["new_cost_usd"]))
        if value is not None
    )
    differing = sorted(
        (p for p in report.pairs if p.similarity.score < 1.0), key=lambda p: p.similarity.score
    )
    diff_rows = "".join(_pair_row(p) for p in differing[:100])
    diff_table = (
        "<table><tr><th>request</th><th>similarity</th><th>noise</th><th>old</th><th>new</th></tr>"
        f"{diff_rows}</table>"
        if differing
        else "<p>Every answer is the same on both sides.</p>"
    )
    old_label = escape(report.old_url) + (f" ({escape(report.old_model)})" if report.old_model else "")
    new_label = escape(report.new_url) + (f" ({escape(report.new_model)})" if report.new_model else "")
    noise_text = (
        f"noise floor (old vs old) {m['noise']:.3f}"
        if m["noise"] is not None
        else "no noise floor (run with --repeat 2)"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>holyclient compare</title><style>{_CSS}</style></head>
<body><main>
<h1>holyclient compare</h1>
<p class="sub">old: {old_label}<br>new: {new_label}<br>{len(report.pairs)} requests, old asked {report.repeat}&times;</p>
<div class="banner {status}">{verdict}</div>
<h2>Gates</h2>
{"<table><tr><th></th><th>gate</th><th>result</th></tr>" + gates + "</table>" if gates else "<p>No gates given.</p>"}
<h2>Summary</h2>
<table><tr><th></th><th>old</th><th>new</th><th>new/old (95% CI)</th></tr>{summary}</table>
<h2>Distributions</h2>
<div class="grid">
{_latency_card(report, "Latency", "latency")}
{_latency_card(report, "Time to first token", "ttft")}
<div class="card"><h3>Similarity: mean {_fmt(m["similarity"])}; {escape(noise_text)}</h3>{similarity}{_legend(*[(label, colour) for label, colour, _ in series])}</div>
<div class="card"><h3>Cost per side (USD)</h3>{cost}<p>{escape(cny_text)}</p></div>
</div>
<h2>Differing requests ({len(differing)} of {len(report.pairs)})</h2>
{diff_table}
</main></body></html>
"""


def _int(value: float | None) -> str:
    return "&ndash;" if value is None else str(int(value))


def _ci(m: dict[str, float | None], q: str) -> str:
    value, low, high = m[f"{q}_ratio"], m[f"{q}_ratio_ci_low"], m[f"{q}_ratio_ci_high"]
    if value is None:
        return "&ndash;"
    return f"{value:.2f}" + (f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else "")
