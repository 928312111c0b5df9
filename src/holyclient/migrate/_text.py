"""Every file that is neither Python nor a notebook: ``.env*``, YAML, TOML, JSON, INI, shell and
PowerShell, Dockerfiles, Markdown/RST docs, JS/TS... The file is decoded as latin-1, which maps
each byte to one character, so the ASCII rules match in any ASCII-compatible encoding and offsets
are byte offsets: edits go straight back into the original bytes.
"""

from __future__ import annotations

from . import _configs, _js
from ._edits import Edit, Lines
from ._envurl import env_hit, env_style
from ._models import model_finding, unserved
from ._report import Finding
from ._rules import KeyMode, in_comment, is_azure_text, key_hits, review_bare, url_hits

JS_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
#: documents: a bare host in them is a sentence, not configuration (URLs with a scheme are still rewritten)
PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".html", ".htm")


def rewrite(
    path: str,
    raw: bytes,
    *,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    hints: frozenset[str] = frozenset(),
) -> tuple[list[Edit[bytes]], list[Finding]]:
    """Edits and findings for one text file (``hints``: see ``_python.rewrite``; none apply here yet)."""
    text = raw.decode("latin-1")
    lines = Lines(text)
    edits: list[Edit[str]] = []
    findings: list[Finding] = []
    excluded: list[tuple[int, int]] = []
    if path.lower().endswith(JS_SUFFIXES):
        edits, findings, excluded = _js.rewrite(text, keys=keys, base_url_env=base_url_env)
    prose = path.lower().endswith(PROSE_SUFFIXES)
    style = env_style(path)
    hits = [
        review_bare(h)
        if h.bare and (prose or in_comment(text, h.start))
        else env_hit(text, h, style, base_url_env)
        for h in url_hits(text, rewrite_realtime=rewrite_realtime)
    ]
    azure = is_azure_text(text)
    for h in key_hits(text, mode=keys, check_value=True):
        if any(a <= h.start < b for a, b in excluded):
            continue
        if azure:
            findings.append(
                (
                    lines.line_of(h.start),
                    "key",
                    "review",
                    "OPENAI_API_KEY in a file configured for Azure OpenAI: left as is",
                )
            )
            continue
        hits.append(h)
    extra_edits, extra = _configs.rewrite(path, text, keys)
    edits.extend(extra_edits)
    findings.extend(extra)
    if not prose:
        findings.extend(
            model_finding(lines.line_of(at), name) for at, name in unserved(text) if not in_comment(text, at)
        )
    for h in hits:
        line = lines.line_of(h.start)
        if h.new is None:
            findings.append((line, h.kind, "review", h.message))
        elif text[h.start : h.end] != h.new:
            edits.append((h.start, h.end, h.new))
            findings.append((line, h.kind, "rewrite", h.message))
    return [(a, b, new.encode("latin-1")) for a, b, new in edits], sorted(findings)
