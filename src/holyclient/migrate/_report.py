"""Results of a migration run as small dataclasses: one :class:`Site` per finding, one
:class:`FileResult` per file that mentions OpenAI, one :class:`Report` for the run.

A site's action is ``rewrite`` (done), ``review`` (worth a look; does not change the exit code),
``incomplete`` (a site migrate could not finish: the app would still reach OpenAI, or a key would reach
the wrong host; the message ends with ``fix: ...`` and the CLI exits 3) or ``error`` (the file was skipped).

A site never carries a secret: messages name variables and describe code, they never quote a value.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["rewrite", "review", "incomplete", "error"]
Status = Literal["changed", "unchanged", "failed"]
Finding = tuple[int, str, Action, str]  # line, kind, action, message


@dataclass(frozen=True)
class Site:
    """One place in a file: rewritten, to review by hand, left incomplete (to finish by hand), or an
    error that made us skip the file."""

    path: str
    line: int
    kind: str
    action: Action
    message: str

    def format(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"


@dataclass(frozen=True)
class Skipped:
    """A path the run did not read or rewrite although it could have held code to migrate."""

    path: str
    reason: str

    def format(self) -> str:
        return f"{self.path}: skipped: {self.reason}"


@dataclass
class FileResult:
    """What the run found in (and would write to) one file that mentions OpenAI."""

    path: str
    status: Status
    sites: list[Site] = field(default_factory=list)
    before: bytes = field(default=b"", repr=False)
    after: bytes = field(default=b"", repr=False)
    written: bool = False
    #: git-ignored (read because environment files hold what matters); written only with ``force``
    ignored: bool = False


@dataclass
class Report:
    """The whole run. ``files`` lists only files that mentioned OpenAI (the others are just counted)."""

    files_scanned: int = 0
    files_matched: int = 0
    files_skipped: int = 0  # len(skipped): symlinks, unreadable, binary content, ignored or vendored paths
    files: list[FileResult] = field(default_factory=list)
    wrote: bool = False
    #: every skipped path with the reason (known binary suffixes and caches are not listed)
    skipped: list[Skipped] = field(default_factory=list)
    #: ``--sdk``: what differs from openai for the code switched to holyclient (empty otherwise)
    sdk_notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "changed"]

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def incomplete(self) -> list[Site]:
        """Sites migrate could not complete: the run is not done until each is finished by hand."""
        return [s for s in self.sites if s.action == "incomplete"]

    @property
    def sites(self) -> list[Site]:
        return [s for f in self.files for s in f.sites]

    def counts(self, action: Action) -> Counter[str]:
        return Counter(s.kind for s in self.sites if s.action == action)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "summary": {
                "files_scanned": self.files_scanned,
                "files_matched": self.files_matched,
                "files_changed": len(self.changed),
                "files_failed": len(self.failed),
                "files_skipped": self.files_skipped,
                "written": self.wrote,
                "rewritten": dict(sorted(self.counts("rewrite").items())),
                "review": dict(sorted(self.counts("review").items())),
                "incomplete": dict(sorted(self.counts("incomplete").items())),
                "errors": dict(sorted(self.counts("error").items())),
            },
            "sites": [
                {"path": s.path, "line": s.line, "kind": s.kind, "action": s.action, "message": s.message}
                for s in self.sites
            ],
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "sdk_differences": list(self.sdk_notes),
        }

    def summary_lines(self) -> list[str]:
        """Human summary for stderr: counts first, then every review item and error with file:line."""
        verb = "changed" if self.wrote else "would change"
        lines = [
            f"migrate: scanned {self.files_scanned} files, {self.files_matched} mention OpenAI, "
            f"{len(self.changed)} {verb}, {len(self.failed)} failed, {self.files_skipped} skipped"
        ]
        incomplete = self.incomplete
        if incomplete:  # first: what still reaches OpenAI, or would send a key to the wrong host
            lines.append(
                f"  incomplete: {len(incomplete)} site(s) migrate could not complete; finish each by hand "
                "(exit 3):"
            )
            lines.extend("    " + s.format() for s in incomplete)
        for action, title in (("rewrite", "rewritten"), ("review", "needs review"), ("error", "errors")):
            counts = self.counts(action)  # type: ignore[arg-type]
            if counts:
                detail = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
                lines.append(f"  {title}: {sum(counts.values())} ({detail})")
        lines.extend("  " + s.format() for s in self.sites if s.action in ("review", "error"))
        lines.extend("  " + s.format() for s in self.skipped)
        if self.sdk_notes:
            lines.append(
                '  switched to holyclient (--sdk); what differs from openai (README, "Switching from openai"):'
            )
            lines.extend("    - " + note for note in self.sdk_notes)
        return lines

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)
