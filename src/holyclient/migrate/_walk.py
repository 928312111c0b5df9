"""Which files a run looks at, and the cheap prefilter that decides which ones get parsed.

Inside a git work tree, ``git ls-files --cached --others --exclude-standard`` lists exactly the
tracked and not-ignored files (git applies every ``.gitignore``, ``info/exclude`` and global rule
better than we could). Elsewhere we walk with ``os.scandir`` and honour ``.gitignore`` files with a
simple matcher. Either way we skip ``.git``, ``node_modules``, virtual environments, caches,
symlinks (opened with ``O_NOFOLLOW``) and known binary suffixes, and read each remaining file once.

Every path skipped that could have held code to migrate is recorded with the reason, so the report
can name it: symlinks, unreadable and non-regular files, files with NUL bytes, ignored paths and
vendored trees. Two kinds are left out on purpose because no one migrates them by hand: known binary
suffixes (images, archives, ...) and version-control or cache directories (``.git``, ``__pycache__``...).
"""

from __future__ import annotations

import fnmatch
import os
import stat
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        "__pycache__",
        ".venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".hg",
        ".svn",
        ".eggs",
        "site-packages",
    }
)
#: generated or VCS metadata: skipped without a word (vendored trees are named in the report)
QUIET_DIRS = frozenset({".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hg", ".svn"})
SYMLINK = "symbolic link, not followed"
IGNORED = "ignored by .gitignore"
VENDORED = "vendored tree, virtual environment or package cache"
NOT_REGULAR = "not a regular file"
BINARY = "binary content (NUL bytes)"
BINARY_SUFFIXES = (
    ".pyc",
    ".pyo",
    ".so",
    ".dll",
    ".dylib",
    ".exe",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".ico",
    ".webp",
    ".pdf",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".whl",
    ".jar",
    ".class",
    ".o",
    ".a",
    ".woff",
    ".woff2",
    ".ttf",
    ".mp3",
    ".mp4",
    ".wav",
    ".sqlite",
    ".db",
    ".parquet",
    ".pkl",
    ".npy",
    ".npz",
    ".bin",
    ".onnx",
    ".pt",
    ".safetensors",
)
_HAS_NOFOLLOW = hasattr(os, "O_NOFOLLOW")
# O_NONBLOCK: opening a FIFO (or a device) for reading would otherwise wait for a writer forever; it
# changes nothing for regular files, and anything else is refused after fstat
READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NONBLOCK", 0)
)


@dataclass
class Counts:
    scanned: int = 0
    #: (path, reason) of each path skipped that could have held code to migrate
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: git-ignored environment files that were read anyway (a live key and base URL usually sit there)
    ignored: set[str] = field(default_factory=set)
    #: files read that do not mention OpenAI but that the proof may follow a name into (modules,
    #: config files, environment files)
    others: list[str] = field(default_factory=list)

    def skip(self, path: str, reason: str) -> None:
        self.skipped.append((path, reason))

    def skip_dir(self, path: str) -> None:
        if os.path.basename(path) not in QUIET_DIRS:
            self.skip(path, VENDORED)


def mentions_openai(data: bytes) -> bool:
    """The prefilter: ``openai`` in any case (modules, hosts, ``OpenAI`` classes, ``OPENAI_*``
    variables), ``gpt-`` (model names, and frameworks that default to OpenAI without naming it, such
    as CrewAI's ``LLM(model="gpt-4o")``) or ``holysheep`` (what a run wrote: a rerun must prove it
    again). One ``bytes.lower()`` pass and three substring tests cost about what three case-sensitive
    tests did; a case-insensitive regex costs 3x more."""
    low = data.lower()
    return b"openai" in low or b"gpt-" in low or b"holysheep" in low


#: files the proof may follow a name into although they do not mention OpenAI
_FOLLOWED = (".py", ".pyi", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf")


def _followed(path: str) -> bool:
    low = path.lower()
    if low.endswith(_FOLLOWED):
        return True
    name = os.path.basename(low)
    return is_env_name(name) or "dockerfile" in name


def read(path: str) -> bytes | None:
    """The file's bytes, or None for symlinks, non-regular files and unreadable paths."""
    data, _ = read_or_why(path)
    return data


def read_or_why(path: str) -> tuple[bytes | None, str]:
    """The file's bytes, or None and why not (symlink, not a regular file, the OS error)."""
    if not _HAS_NOFOLLOW and os.path.islink(path):
        return None, SYMLINK
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError as exc:
        return None, SYMLINK if os.path.islink(path) else f"cannot be read: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, NOT_REGULAR
        chunks = []
        size = st.st_size + 1
        while True:
            chunk = os.read(fd, size)
            chunks.append(chunk)
            # a regular file reads short only at its end: stopping there saves one read() per file
            # (a file that grew since fstat fills the buffer and is read on; the writer compares the
            # whole file with what was read before it replaces anything)
            if len(chunk) < size:
                break
            size = 1 << 20
        return b"".join(chunks), ""
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    finally:
        os.close(fd)


def git_toplevel(path: str) -> str | None:
    """The work tree containing ``path`` (a directory), or None outside git / without git."""
    try:
        out = subprocess.run(
            ["git", "-C", path, "rev-parse", "--show-toplevel"], capture_output=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return os.fsdecode(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def _git_files(root: str, counts: Counts) -> list[str] | None:
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=False,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    rels = [os.fsdecode(p) for p in out.stdout.split(b"\0") if p]
    venvs = {os.path.dirname(r) for r in rels if os.path.basename(r) == "pyvenv.cfg"}
    keep = []
    skipped: set[str] = set()
    for rel in rels:
        parts = rel.split("/")
        cut = next(
            (i for i in range(1, len(parts)) if parts[i - 1] in SKIP_DIRS or "/".join(parts[:i]) in venvs),
            None,
        )
        if cut is None:
            keep.append(os.path.join(root, rel))
        else:
            skipped.add(os.path.join(root, *parts[:cut]))
    for directory in sorted(skipped):
        counts.skip_dir(directory)
    for path in _ignored_env_files(root):
        counts.ignored.add(path)
        keep.append(path)
    return sorted(set(keep))


def is_env_name(name: str) -> bool:
    """``.env``, ``.env.local``, ``prod.env``: files holding an app's environment."""
    low = name.lower()
    return low.startswith(".env") or low.endswith(".env")


def _ignored_env_files(root: str) -> list[str]:
    """Git-ignored environment files outside ignored directories (``--directory`` keeps git from
    descending into ``node_modules`` and friends)."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                root,
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
            ],
            capture_output=True,
            check=False,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if out.returncode != 0:
        return []
    found = []
    for raw in out.stdout.split(b"\0"):
        rel = os.fsdecode(raw)
        if not rel or rel.endswith("/") or not is_env_name(rel.rsplit("/", 1)[-1]):
            continue
        if any(part in SKIP_DIRS for part in rel.split("/")[:-1]):
            continue
        found.append(os.path.join(root, rel))
    return found


class _Ignore:
    """A ``.gitignore`` subset for trees outside git: globs, ``/``-anchored paths, ``dir/``, ``!``."""

    def __init__(self, base: str, text: str) -> None:
        self.base = base
        self.rules: list[tuple[bool, bool, bool, str]] = []  # negate, dir_only, anchored, glob
        for line in text.splitlines():
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            line = line[1:] if negate else line
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            self.rules.append((negate, dir_only, anchored, line.lstrip("/")))

    def ignored(self, path: str, is_dir: bool, verdict: bool) -> bool:
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        name = rel.rsplit("/", 1)[-1]
        for negate, dir_only, anchored, glob in self.rules:
            if dir_only and not is_dir:
                continue
            subject = rel if anchored else name
            if fnmatch.fnmatchcase(subject, glob) or (
                glob.startswith("**/") and fnmatch.fnmatchcase(rel, glob[3:])
            ):
                verdict = not negate
        return verdict


def _walk(root: str, counts: Counts) -> Iterator[str]:
    stack: list[tuple[str, tuple[_Ignore, ...]]] = [(root, ())]
    while stack:
        directory, ignores = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        gitignore = next((e for e in entries if e.name == ".gitignore"), None)
        if gitignore is not None and (text := read(gitignore.path)) is not None:
            ignores = (*ignores, _Ignore(directory, text.decode("utf-8", "replace")))
        subdirs = []
        for entry in entries:
            if entry.is_symlink():
                counts.skip(entry.path, SYMLINK)
                continue
            is_dir = entry.is_dir()
            verdict = False
            for ig in ignores:
                verdict = ig.ignored(entry.path, is_dir, verdict)
            if verdict and not is_dir and is_env_name(entry.name):
                counts.ignored.add(entry.path)
                yield entry.path
            elif verdict:
                counts.skip(entry.path, IGNORED)
            elif is_dir:
                if entry.name in SKIP_DIRS or os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    counts.skip_dir(entry.path)
                else:
                    subdirs.append((entry.path, ignores))
            else:
                yield entry.path
        stack.extend(reversed(subdirs))


def _under(root: str, counts: Counts) -> Iterator[str]:
    root = os.path.normpath(root)
    if not os.path.isdir(root) or os.path.islink(root):
        yield root  # a file given explicitly is taken as it is (symlinks are still refused by read())
        return
    listed = _git_files(root, counts) if git_toplevel(root) else None
    yield from listed if listed is not None else _walk(root, counts)


def files(paths: Sequence[str], counts: Counts) -> Iterator[str]:
    """Every candidate file under ``paths``, each once even when the paths overlap."""
    seen: set[str] | None = set() if len(paths) > 1 else None
    for root in paths:
        for path in _under(root, counts):
            if seen is not None:
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
            yield path


def candidates(paths: Sequence[str], counts: Counts) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of readable text files that mention OpenAI; everything else is only counted."""
    for path in files(paths, counts):
        if path.lower().endswith(BINARY_SUFFIXES):
            continue
        data, why = read_or_why(path)
        if data is None:
            counts.skip(path, why)
            continue
        counts.scanned += 1
        if mentions_openai(data) or path in counts.ignored:
            if b"\0" in data:
                counts.skip(path, BINARY)
                continue
            yield path, data
        elif _followed(path):
            counts.others.append(path)
