"""The post-condition: after the rewriters have run, read the result and prove every site.

For every sink (``_facts.Sink``) of every file, as rewritten, the proof resolves where its base URL
and its key come from through the whole run (env files, other modules, config files) and asks
:func:`._provenance.verdict`: every key that can reach the relay is HolySheep's, no HolySheep key can
reach OpenAI or another host, and the site reaches the relay at all. Each file's own scope is checked
too (a raw URL beside the keys the file reads), so are the environment files (a HolySheep variable fed
from an OpenAI secret), the agreement of code and its environment (the key name the code reads is one
the app's env files set), and ``--sdk`` (a client handed to a framework is a genuine openai client).

What cannot be proven is an incomplete site. When the run itself made a site unprovable (its pairing
differs from before the run), the files it depends on go back to how they were -- the pairing is kept,
not half-migrated -- or, for ``--sdk``, are rewritten without it; then the run is proven again, until
nothing changes. What is still unprovable then is reported. ``--check`` and a rerun run this same proof
over the files as they are, so a rerun cannot forget a site.

The rewriters' findings are never read here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._facts import Facts
from ._report import Finding
from ._runwide import agents, consistency, env_file, handoffs, module_client, scope
from ._sinkcheck import Eval, judge_sink
from ._world import Extra, World


@dataclass
class FileState:
    """One file of the run: its facts before and after the rewrite, and what the proof decided."""

    path: str
    before: Facts
    after: Facts | None  # None: the rewrite changed nothing
    pinned: bool = False  # cannot be written (a git-ignored file without --force): stays as it is
    sdk: bool = False  # rewritten with --sdk
    reverted: bool = False
    hints: frozenset[str] = frozenset()  # what the file was last rewritten with (see _python.rewrite)
    #: rewrite the file again (with --sdk or not, with these hints); its after-facts. None: not ours
    rerun: Callable[[bool, frozenset[str]], Facts | None] | None = None

    @property
    def changed(self) -> bool:
        return self.after is not None and not self.reverted and not self.pinned

    def current(self) -> Facts:
        return self.after if self.changed and self.after is not None else self.before


def settle(
    states: list[FileState], declared: frozenset[str] = frozenset(), extra: Extra | None = None
) -> dict[str, list[Finding]]:
    """Prove the run, taking back what the run made unprovable; the proof's findings per file.
    ``extra``: files nothing rewrote that a name may lead into (read when one does)."""
    by_path = {s.path: s for s in states}
    before = {e.ident: e.sig for e in evaluate(World({s.path: s.before for s in states}, declared, extra))}
    kept: dict[tuple[object, ...], Eval] = {}
    first_ok: set[tuple[object, ...]] | None = None
    for _ in range(2 * len(states) + 2):
        world = World({s.path: s.current() for s in states}, declared, extra)
        evals = evaluate(world)
        if first_ok is None:  # as rewritten: sites that only fail because their file was taken back
            first_ok = {e.ident for e in evals if not e.bad}
        induced = [e for e in evals if e.bad and before.get(e.ident) != e.sig]
        acts: dict[str, bool] = {}  # path -> withdraw --sdk only (else: take the file back)
        repairs: dict[str, set[str]] = {}
        for e in induced:
            if e.repair is not None:
                path, hint = e.repair
                state = by_path.get(path)
                usable = state is not None and state.rerun is not None and not state.reverted
                if usable and state is not None and not state.pinned and hint not in state.hints:
                    repairs.setdefault(path, set()).add(hint)
                    continue
            paths = [p for p in sorted(e.files | {e.path}) if p in by_path and by_path[p].changed]
            if paths:
                kept.setdefault(e.ident, e)
            for path in paths:
                state = by_path[path]
                sdk_only = e.sdk and state.sdk and state.rerun is not None
                acts[path] = acts.get(path, True) and sdk_only
        for path, hints in repairs.items():
            state = by_path[path]
            state.hints = state.hints | hints
            if state.rerun is not None:
                state.after = state.rerun(state.sdk, state.hints)
        for path, sdk_only in acts.items():
            if path in repairs:
                continue  # its second pass is proven first
            state = by_path[path]
            if sdk_only and state.rerun is not None:
                state.sdk = False
                state.after = state.rerun(False, state.hints)
            else:
                state.reverted = True
        acted = bool(acts or repairs)
        if not acted:
            break
    out: dict[str, list[Finding]] = {}
    for e in evals:
        if e.bad and e.ident in kept:
            continue  # reported as the violation that made the run keep the pairing
        if e.bad and e.kind == "still-openai" and e.ident in (first_ok or set()) and by_path[e.path].reverted:
            continue  # proven as rewritten; its file waits on the site that made the run take it back
        if e.kind == "agents-tracing" and not e.bad and not any(s.changed for s in states):
            continue  # said where migrate touches an Agents app
        if e.bad or e.action == "review":
            out.setdefault(e.path, []).append(e.finding())
    for e in kept.values():
        note = "; nothing of this pairing was rewritten (it stays as it was), so the run is not complete"
        if e.sdk:
            note = "; kept on openai's client there (not switched to holyclient's)"
            out.setdefault(e.path, []).append((e.line, e.kind, "review", e.message + note))
            continue
        out.setdefault(e.path, []).append((e.line, e.kind, "incomplete", e.message + note))
    return {p: _once(f) for p, f in out.items()}


def _once(findings: list[Finding]) -> list[Finding]:
    """One site per line and kind (a sink and its file's scope can fail on the same line)."""
    seen: set[tuple[int, str]] = set()
    out = []
    for f in sorted(set(findings)):
        if (f[0], f[1]) not in seen:
            seen.add((f[0], f[1]))
            out.append(f)
    return out


# -- evaluating one state of the run -----------------------------------------------------------------
def evaluate(world: World) -> list[Eval]:
    out: list[Eval] = []
    for path, facts in list(world.facts.items()):
        for sink in facts.sinks:
            out.append(judge_sink(world, path, facts, sink))
        out.extend(scope(world, path, facts))
        out.extend(env_file(world, path, facts))
        out.extend(handoffs(world, path, facts))
    out.extend(module_client(world))
    out.extend(agents(world))
    out.extend(consistency(world))
    return out
