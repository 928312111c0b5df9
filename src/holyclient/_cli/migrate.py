"""`holyclient migrate`: rewrite a code base from the OpenAI API to HolySheep (see holyclient.migrate)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ._argtypes import positive_int

#: the exit code of a run that left a site migrate could not complete (ruff's 0/1/2, plus this one)
INCOMPLETE = 3

DESCRIPTION = """\
Rewrite code that talks to the OpenAI API so it talks to https://api.holysheep.ai/v1:
URL literals (Python, notebooks, JS/TS, .env, YAML, TOML, JSON, shell, Dockerfiles, docs), OpenAI /
LangChain / LlamaIndex / JS client constructors without a base URL, the frameworks' own clients
(pydantic-ai, the Agents SDK, DSPy, Haystack and its YAML, CrewAI, AutoGen and OAI_CONFIG_LIST, Semantic
Kernel, Mem0), openai<1.0 module config, and OPENAI_API_KEY names in every spelling (renamed to
HOLYSHEEP_API_KEY; values are never touched or printed, and a value that may be a real key keeps its
name). Azure OpenAI, other vendors and docs links are left alone. Edits are spliced into the original
bytes and written atomically. After rewriting, migrate proves the result: every client's base URL and key
are traced to where they come from (literals, environment variables and the env files that set them,
constants of other modules, config files), and exit 0 means every client reaches the relay with a
HolySheep key and no HolySheep key can reach another host. Sites it cannot prove (OpenAI(**kwargs), a base
URL built at run time, a key it cannot follow, an OpenAI key beside an OpenAI URL) are listed first with the
fix and their file's key/URL pairing is kept as it was; realtime endpoints, a bare api.openai.com host in prose or a comment
and retired or unserved model names (with the closest model the relay serves) are reported for review.
Skipped paths (symlinks, unreadable or binary files, ignored and vendored trees) are named with the
reason."""

EPILOG = """\
exit codes: 0 nothing to change, or every change written and nothing failed;
1 --check/--diff found changes, or a file could not be parsed/written;
2 bad usage, missing path, or files to rewrite that git could not restore: uncommitted,
  untracked or ignored files, files not under git, or git failing (review with --diff, then --force);
3 a site migrate could not complete (listed first with file:line and the fix: a constructor whose
  base URL it cannot see or set, a base URL computed at run time, a key it cannot prove is HolySheep's
  where it reaches the relay, an OpenAI key beside an OpenAI URL), whatever else happened; mark a site
  finished by hand with a `holyclient-migrate: ok` comment.

Sites needing review are listed on stderr but do not change the exit code.

examples:
    holyclient migrate ./src --check
    holyclient migrate ./src --diff > move.patch
    holyclient migrate ./src
    holyclient migrate ./src --base-url-env HOLYSHEEP_BASE_URL
    holyclient migrate ./src --sdk"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="rewrite OpenAI API usage to HolySheep (codemod)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", default=["."], help="files and directories (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if anything would change, 3 if a site cannot be completed",
    )
    mode.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff (applies with `git apply`) to stdout; write nothing",
    )
    parser.add_argument("--json", action="store_true", help="print the full report (file:line:kind) as JSON")
    parser.add_argument(
        "--keys",
        choices=("rename", "report"),
        default="rename",
        help="OPENAI_API_KEY names: rename to HOLYSHEEP_API_KEY (default) or only report them",
    )
    parser.add_argument(
        "--rewrite-realtime",
        action="store_true",
        help="also rewrite /v1/realtime endpoints (reported for review by default)",
    )
    parser.add_argument(
        "--base-url-env",
        metavar="NAME",
        help="write the base URL as a read of $NAME defaulting to HolySheep's (os.environ.get in Python, "
        "process.env.NAME ?? in JS/TS, ${NAME:-...} in shell, Dockerfiles and compose files), so the "
        "migrated app can be pointed at a local or staging server; a site it cannot apply to (OpenAI(**kwargs)) "
        "is listed as incomplete",
    )
    parser.add_argument(
        "--sdk",
        action="store_true",
        help="construct holyclient's client instead of openai's: `from openai import OpenAI, AsyncOpenAI` "
        "and `openai.OpenAI(...)` become holyclient's (errors too; AzureOpenAI stays), which read "
        "HOLYSHEEP_API_KEY / HOLYSHEEP_BASE_URL themselves; a file using what holyclient's client lacks, or "
        "handing its client to a framework, stays on openai's; the report lists what differs from openai",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="write files git could not restore (uncommitted, untracked, ignored, or not under git); a "
        "git-ignored file is kept as it was under .git/holyclient-migrate/ first",
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="worker processes for parsing (default: up to 4 cores when there is enough work)",
    )
    parser.set_defaults(func=run)


def _progress(message: str) -> None:
    print(f"holyclient migrate: {message}...", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from ..migrate import DirtyTreeError, GitError, MigrateError, migrate, unified_diff

    if args.json and args.diff:
        print("holyclient migrate: --json and --diff both write to stdout; pick one", file=sys.stderr)
        return 2
    from ..migrate import ENV_NAME

    if args.base_url_env is not None and not ENV_NAME.fullmatch(args.base_url_env):
        print(
            f"holyclient migrate: --base-url-env: {args.base_url_env!r} is not an environment variable name "
            "(letters, digits and _, not starting with a digit)",
            file=sys.stderr,
        )
        return 2
    dry = args.check or args.diff
    try:
        report = migrate(
            args.paths,
            write=not dry,
            keys=args.keys,
            rewrite_realtime=args.rewrite_realtime,
            base_url_env=args.base_url_env,
            sdk=args.sdk,
            force=args.force,
            jobs=args.jobs,
            progress=_progress if sys.stderr.isatty() else None,
        )
    except DirtyTreeError as exc:
        print(f"holyclient migrate: refusing to write: {exc}", file=sys.stderr)
        for path, why in exc.reasons.items():
            print(f"  {path}: {why}", file=sys.stderr)
        if exc.outside_git:
            advice = "run with --diff first to review the changes, then pass --force to write them"
        else:
            advice = "commit them (review the changes with --diff), or pass --force to write anyway"
        print(f"nothing was written; {advice}", file=sys.stderr)
        return 2
    except GitError as exc:
        print(
            f"holyclient migrate: refusing to write: {exc}; nothing was written "
            "(fix git, or pass --force to write anyway)",
            file=sys.stderr,
        )
        return 2
    except MigrateError as exc:
        print(f"holyclient migrate: {exc}", file=sys.stderr)
        return 2
    if args.diff:
        # paths relative to the working directory, so `git apply` / `patch -p1` work from where we ran
        out = b"".join(unified_diff(os.path.relpath(f.path), f.before, f.after) for f in report.changed)
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            sys.stdout.flush()
            buffer.write(out)
            buffer.flush()
        else:
            sys.stdout.write(out.decode("utf-8", "surrogateescape"))
    elif args.json:
        print(report.dumps())
    for line in report.summary_lines():
        print(line, file=sys.stderr)
    if args.check:  # which files, not only how many: the list a reviewer acts on
        for result in report.changed:
            print(f"  would change: {os.path.relpath(result.path)}", file=sys.stderr)
    if report.incomplete:
        return INCOMPLETE
    if report.failed or (dry and report.changed):
        return 1
    return 0
