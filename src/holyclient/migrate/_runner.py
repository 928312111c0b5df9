"""One run: walk and prefilter, rewrite each matching file (in parallel when there is enough work),
validate, then write atomically or just report."""

from __future__ import annotations

import ast
import codecs
import io
import json
import multiprocessing
import os
import sys
import threading
import time
import tokenize
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from . import _guard, _notebook, _python, _sdk, _settle, _text, _walk, _writer
from ._edits import Edit, UnsafeEditError, splice, to_bytes
from ._guard import DirtyTreeError, MigrateError
from ._pysource import UnsupportedSourceError
from ._report import FileResult, Finding, Report, Site, Skipped
from ._rules import KeyMode

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
#: below this many candidate bytes a process pool costs more than it saves (ast.parse ~5 MB/s)
PARALLEL_BYTES = 2_000_000


def _python_edits(
    data: bytes, keys: KeyMode, realtime: bool, base_url_env: str | None, sdk: bool, hints: frozenset[str]
) -> tuple[list[Edit[bytes]], list[Finding], str]:
    skip = 3 if data.startswith(codecs.BOM_UTF8) else 0
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    text = data[skip:].decode(encoding)
    edits, findings = _python.rewrite(
        text, keys=keys, rewrite_realtime=realtime, base_url_env=base_url_env, sdk=sdk, hints=hints
    )
    return to_bytes(data, skip, text, encoding, edits), findings, encoding


def process(
    path: str,
    data: bytes,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    sdk: bool = False,
) -> FileResult:
    """Rewrite one file's bytes in memory and prove the result, the file being the whole run; never
    raises for bad input, reports it instead.

    ``base_url_env``: write the base URL as a read of this environment variable, defaulting to
    HolySheep's, wherever the file's language has a way to say so. ``sdk``: construct holyclient's
    client instead of openai's (Python).
    """
    job = _settle.job((path, data, keys, rewrite_realtime, base_url_env, sdk, frozenset()), rewrite)
    return _settle.settle([job], rewrite, declared=_declared(base_url_env))[0]


def _declared(base_url_env: str | None) -> frozenset[str]:
    return frozenset({base_url_env}) if base_url_env else frozenset()


def rewrite(
    path: str,
    data: bytes,
    keys: KeyMode,
    rewrite_realtime: bool,
    base_url_env: str | None,
    sdk: bool,
    hints: frozenset[str] = frozenset(),
) -> tuple[FileResult, list[Edit[bytes]]]:
    """The rewriters' result for one file, and the edits that make it (the proof has not run yet).
    ``hints``: what the proof asked of a second pass (see ``_python.rewrite`` and ``_text.rewrite``)."""
    low = path.lower()
    edits: list[Edit[bytes]] = []
    try:
        if low.endswith(PYTHON_SUFFIXES):
            edits, findings, encoding = _python_edits(data, keys, rewrite_realtime, base_url_env, sdk, hints)
            after = splice(data, edits)
            if after != data:
                skip = 3 if after.startswith(codecs.BOM_UTF8) else 0
                try:
                    ast.parse(after[skip:].decode(encoding))
                except SyntaxError as exc:
                    raise UnsafeEditError(
                        f"the rewritten file would not parse ({exc.msg}, line {exc.lineno})"
                    ) from exc
        elif low.endswith(".ipynb"):
            skip = 3 if data.startswith(codecs.BOM_UTF8) else 0
            text = data[skip:].decode("utf-8")
            str_edits, findings = _notebook.rewrite(
                text, keys=keys, rewrite_realtime=rewrite_realtime, base_url_env=base_url_env, sdk=sdk
            )
            edits = to_bytes(data, skip, text, "utf-8", str_edits)
            after = splice(data, edits)
            if after != data:
                _notebook.validate(text, after[skip:].decode("utf-8"))
        else:
            edits, findings = _text.rewrite(
                path,
                data,
                keys=keys,
                rewrite_realtime=rewrite_realtime,
                base_url_env=base_url_env,
                hints=hints,
            )
            after = splice(data, edits)
    except SyntaxError as exc:
        return _failed(path, data, exc.lineno or 1, "parse-error", f"does not parse, skipped: {exc.msg}"), []
    except UnicodeDecodeError as exc:
        return _failed(path, data, 1, "decode-error", f"cannot decode as {exc.encoding}, skipped"), []
    except (
        UnsafeEditError,
        UnsupportedSourceError,
        _notebook.NotebookError,
        LookupError,
        ValueError,
        RecursionError,
    ) as exc:
        kind = (
            "parse-error"
            if isinstance(exc, (_notebook.NotebookError, json.JSONDecodeError, RecursionError))
            else "unsafe-edit"
        )
        return _failed(path, data, 1, kind, f"skipped: {exc}"), []
    except Exception as exc:  # a bug of ours must cost one file, not the run (and never a half-written file)
        return _failed(
            path, data, 1, "internal-error", f"skipped after an internal error: {type(exc).__name__}"
        ), []
    sites = [Site(path, line, kind, action, message) for line, kind, action, message in findings]
    return FileResult(path, "changed" if after != data else "unchanged", sites, data, after), edits


def _failed(path: str, data: bytes, line: int, kind: str, message: str) -> FileResult:
    return FileResult(path, "failed", [Site(path, line, kind, "error", message)], data, data)


def _job_args(args: _settle.Args) -> _settle.Job:
    return _settle.job(args, rewrite)


def _pool_context() -> Any:
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")  # no re-import of the package in workers
    return multiprocessing.get_context()


def migrate(
    paths: Sequence[str | os.PathLike[str]] = (".",),
    *,
    write: bool = True,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    sdk: bool = False,
    force: bool = False,
    jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Move a code base from the OpenAI API to HolySheep.

    Args:
        paths: files and directories to migrate.
        write: write changed files in place (atomically); False only reports (``--check``/``--diff``).
        keys: ``"rename"`` turns ``OPENAI_API_KEY`` names into ``HOLYSHEEP_API_KEY`` (never values);
            ``"report"`` leaves them and reports each site.
        rewrite_realtime: also rewrite ``/v1/realtime`` endpoints instead of reporting them.
        base_url_env: read the base URL from this environment variable, HolySheep's as the default
            (Python ``os.environ.get``, JS/TS ``process.env.NAME ??``, shell, compose and Dockerfiles
            ``${NAME:-...}``), so a migrated app can be pointed at a local or staging server.
        sdk: construct holyclient's client instead of openai's: ``from openai import OpenAI`` becomes
            ``from holyclient import OpenAI`` (errors and the other names holyclient offers too;
            ``AzureOpenAI`` stays); the report lists what differs from openai.
        force: write even files git could not restore (uncommitted, untracked, ignored, not under git).
        jobs: worker processes for the parse phase (None: both cores when the work is large enough).
        progress: called with a short status line between phases (the CLI shows it on a terminal).

    Returns:
        The :class:`Report`; ``FileResult.before/after`` hold the bytes of every matching file.

    Raises:
        MigrateError: a path does not exist.
        DirtyTreeError: ``write`` and files to change could not be restored by git: uncommitted
            changes, untracked, ignored, or not under git (nothing written).
        GitError: ``write`` and git failed, so nothing tells which files are committed (nothing written).
    """
    roots = [os.fspath(p) for p in paths]
    missing = [p for p in roots if not os.path.lexists(p)]
    if missing:
        raise MigrateError(f"no such file or directory: {', '.join(p or repr(p) for p in missing)}")
    counts = _walk.Counts()
    work = [
        (os.path.normpath(p), data, keys, rewrite_realtime, base_url_env, sdk, frozenset[str]())
        for p, data in _walk.candidates(roots, counts)
    ]
    if progress is not None:
        progress(f"scanned {counts.scanned} files, {len(work)} mention OpenAI; rewriting")
    workers = jobs if jobs is not None else min(os.cpu_count() or 1, 4)
    if workers > 1 and len(work) > 1 and sum(len(w[1]) for w in work) >= PARALLEL_BYTES:
        with ProcessPoolExecutor(workers, mp_context=_pool_context()) as pool:
            done = list(pool.map(_job_args, work, chunksize=max(1, len(work) // (workers * 8))))
    else:
        done = [_job_args(w) for w in work]
    ignored = {os.path.normpath(p) for p in counts.ignored}
    results = _settle.settle(
        done,
        rewrite,
        declared=_declared(base_url_env),
        pinned=set() if force else ignored,
        ignored=ignored,
        others=[os.path.normpath(p) for p in counts.others],
    )
    report = Report(
        counts.scanned,
        len(results),
        len(counts.skipped),
        sorted(results, key=lambda r: r.path),
        skipped=[Skipped(os.path.normpath(path), why) for path, why in counts.skipped],
    )
    if any(s.kind == "sdk" and s.action == "rewrite" for s in report.sites):
        report.sdk_notes = list(_sdk.DIFFERENCES)
    if write:
        _write(report, force)
    return report


def _write(report: Report, force: bool) -> None:
    changed = report.changed
    if not force:
        refused = _guard.unrecoverable([f.path for f in changed])
        if refused:
            raise DirtyTreeError(refused)
    report.wrote = True
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for result in changed:
        try:
            if result.ignored:  # git cannot undo this one: keep the file as it was
                where = _writer.backup(result.path, result.before, stamp)
                result.sites.append(
                    Site(
                        result.path,
                        1,
                        "backup",
                        "review",
                        f"git-ignored, written; the file as it was is kept at {where}",
                    )
                )
            _writer.atomic_write(result.path, result.before, result.after)
            result.written = True
        except _writer.NotWrittenError as exc:
            result.status = "failed"
            result.sites.append(Site(result.path, 1, exc.kind, "error", str(exc)))
        except OSError as exc:
            result.status = "failed"
            result.sites.append(Site(result.path, 1, "write-error", "error", f"not written: {exc}"))
