"""What one file may hold together, judged after every rule has run on it.

* **A literal OpenAI key beside a HolySheep URL.** A file that sets a real-looking OpenAI key
  (``OPENAI_API_KEY=sk-...``, ``OpenAI(api_key="sk-...")``) and an OpenAI URL is one scope: whatever
  reads it (the openai SDK's defaults, ``OpenAI(**kwargs)``, litellm, a container's env file) sends that
  key wherever the URL points. Rewriting the URL alone would send the OpenAI secret to HolySheep, so
  such a file is left exactly as it is, and the key's line is listed as incomplete with the lines that
  wait on it.
* **Sites finished by hand.** A line holding ``holyclient-migrate: ok`` (in a comment) has its review
  and incomplete sites dropped, as a linter's ``noqa`` does; a literal key's site is never dropped.
"""

from __future__ import annotations

from ._report import Finding
from ._rules import MARK, NEW_KEY

#: findings that mean "a literal key is written here"
SECRET_KINDS = frozenset({"key-value", "hardcoded-key"})
PAIRED = "openai-key-beside-url"


def _lines(numbers: list[int]) -> str:
    unique = sorted(set(numbers))
    return ("line " if len(unique) == 1 else "lines ") + ", ".join(str(n) for n in unique)


def judge(data: bytes, changed: bool, findings: list[Finding]) -> tuple[bool, list[Finding]]:
    """``(keep_edits, findings)``: the edits are dropped when they would pair a key with HolySheep."""
    if MARK.encode() in data:
        marked = {i + 1 for i, line in enumerate(data.split(b"\n")) if MARK.encode() in line}
        # a literal key is never silenced: the mark must not let a URL be rewritten beside it
        findings = [f for f in findings if f[2] == "rewrite" or f[1] in SECRET_KINDS or f[0] not in marked]
    secrets = [f for f in findings if f[1] in SECRET_KINDS]
    relay = [f[0] for f in findings if f[2] == "rewrite" and f[1] != "key"]
    if not changed or not secrets or not relay:
        return True, findings
    message = (
        f"a literal OpenAI key is set here, and migrate would point {_lines(relay)} of this file at "
        f"HolySheep: nothing in this file was rewritten, so the key stays with OpenAI; fix: replace it "
        f"with a HolySheep key read from {NEW_KEY} (or delete it), then run migrate again"
    )
    out: list[Finding] = [(line, PAIRED, "incomplete", message) for line in sorted({f[0] for f in secrets})]
    out.extend(f for f in findings if f[2] != "rewrite" and f[1] not in SECRET_KINDS)
    return False, sorted(out)
