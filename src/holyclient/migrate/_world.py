"""The run as the proof sees it: every file's facts, the variables the environment files set, the
modules code imports from each other, and the config files code reads -- the context that
:func:`._provenance.resolve` follows a source through."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from . import _provenance as pv
from ._facts import Facts
from ._walk import is_env_name


def module_names(path: str) -> list[str]:
    """The dotted names a Python file can be imported as: every suffix of its path (``a/b/c.py`` ->
    ``c``, ``b.c``, ``a.b.c``; a package's ``__init__.py`` is the package)."""
    norm = os.path.normpath(path).replace(os.sep, "/")
    if not norm.endswith((".py", ".pyi")):
        return []
    parts = [p for p in norm.rsplit(".", 1)[0].split("/") if p not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts))] if parts else []


def env_scope(path: str) -> str:
    """The directory whose code an environment file configures: its own (``.env``, a compose file, a
    Dockerfile, found by python-dotenv from below), or the repository's for CI configuration."""
    full = os.path.abspath(path)
    parts = full.replace(os.sep, "/").split("/")
    if len(parts) >= 3 and parts[-3:-1] == [".github", "workflows"]:
        return "/".join(parts[:-3]) or "/"
    if len(parts) >= 2 and parts[-2] == ".circleci":
        return "/".join(parts[:-2]) or "/"
    return os.path.dirname(full)


def _within(directory: str, ancestor: str) -> bool:
    return directory == ancestor or directory.startswith(ancestor.rstrip(os.sep) + os.sep)


class Extra:
    """Files read by the walk that do not mention OpenAI (so nothing rewrote them) but that a name may
    lead into: Python modules and config files, read and extracted only when a lookup needs one."""

    def __init__(self, paths: list[str], load: Callable[[str], Facts | None]) -> None:
        self.load = load
        self.paths = paths
        self.cache: dict[str, Facts | None] = {}
        self._modules: dict[str, list[str]] | None = None
        self._by_norm: dict[str, str] | None = None

    # indexed on the first lookup: most runs never follow a name out of the files that mention OpenAI,
    # and a large tree has tens of thousands of other files
    @property
    def modules(self) -> dict[str, list[str]]:
        if self._modules is None:
            self._modules = {}
            for path in self.paths:
                for dotted in module_names(path):
                    self._modules.setdefault(dotted, []).append(path)
        return self._modules

    @property
    def by_norm(self) -> dict[str, str]:
        if self._by_norm is None:
            self._by_norm = {os.path.normpath(path): path for path in self.paths}
        return self._by_norm

    def facts(self, path: str) -> Facts | None:
        if path not in self.cache:
            self.cache[path] = self.load(path)
        return self.cache[path]


class World:
    """The files of one state of the run (each as it was, or as rewritten), as a resolution context."""

    def __init__(
        self, facts: Mapping[str, Facts], declared: frozenset[str] = frozenset(), extra: Extra | None = None
    ) -> None:
        self.facts: dict[str, Facts] = dict(facts)
        self.declared = declared
        self.extra = extra
        #: name -> (value, file, directory it serves, soft: a .env file, beneath what the shell exports)
        self.env: dict[str, list[tuple[pv.Src, str, str, bool]]] = {}
        self.modules: dict[str, list[str]] = {}
        self.by_norm: dict[str, str] = {}
        #: directory served -> the environment files that set something for it
        self.serving: dict[str, set[str]] = {}
        self._providers: dict[str, list[str]] = {}
        for path, f in sorted(facts.items()):
            self.by_norm[os.path.normpath(path)] = path
            serves = env_scope(path)
            soft = is_env_name(os.path.basename(path))
            for name, sets in f.env_sets.items():
                self.env.setdefault(name, []).extend((src, path, serves, soft) for _, src in sets)
                if sets:
                    self.serving.setdefault(serves, set()).add(path)
            if f.lang == "python":
                for dotted in module_names(path):
                    self.modules.setdefault(dotted, []).append(path)

    # -- Context ----------------------------------------------------------------------------------
    def env_values(self, name: str, origin: str) -> list[tuple[pv.Src, str, bool]]:
        """What the environment files serving ``origin``'s directory set ``name`` to; ``soft`` for a
        ``.env`` file, which a variable the shell exports wins over (python-dotenv does not override)."""
        where = os.path.dirname(os.path.abspath(origin))
        return [
            (src, path, soft) for src, path, serves, soft in self.env.get(name, []) if _within(where, serves)
        ]

    def providers_for(self, origin: str) -> list[str]:
        """The environment files serving ``origin``'s directory: those serving it or an ancestor of it
        (looked up directory by directory, once per directory: the proof asks for every file of a run)."""
        where = os.path.dirname(os.path.abspath(origin))
        found = self._providers.get(where)
        if found is None:
            paths: set[str] = set()
            directory = where
            while True:
                paths |= self.serving.get(directory, set())
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent
            found = self._providers[where] = sorted(paths)
        return found

    def constant(self, origin: str, module: str, name: str) -> list[tuple[pv.Src, str]] | None:
        paths = [origin] if module == "" else self._module(origin, module)
        if not paths:
            if module and not module.startswith(".") and "." in module:
                parent, _, last = module.rpartition(".")
                found = self.constant(origin, parent, last)
                if found is not None:  # `from pkg import settings` where settings is an object
                    return [(pv.pick(src, (name,)), path) for src, path in found]
            sub = self._module(origin, f"{module}.{name}" if module else name)
            if sub:  # `pkg.settings` is a module: a module object is nothing to resolve to
                return [(pv.Unknown(f"the module {module}.{name}"), sub[0])]
            return None
        out: list[tuple[pv.Src, str]] = []
        for path in paths:
            f = self.facts[path]
            if name in f.constants:
                out.append((f.constants[name], path))
        if not out:
            sub = self._module(paths[0], f".{name}") if paths[0].endswith("__init__.py") else []
            if sub:
                return [(pv.Unknown(f"the module {name}"), sub[0])]
        return out or None

    def _module(self, origin: str, module: str) -> list[str]:
        found = self._known_module(origin, module)
        if found or self.extra is None:
            return found
        paths = (
            self.extra.modules.get(module, [])
            if not module.startswith(".")
            else [p for p in (self._relative(self.extra.by_norm, origin, module),) if p]
        )
        return [p for p in paths if self._adopt(p)]

    def _adopt(self, path: str) -> bool:
        """Bring a file the walk read but nothing rewrote into the world (see :class:`Extra`)."""
        if path in self.facts:
            return True
        facts = self.extra.facts(path) if self.extra is not None else None
        if facts is None:
            return False
        self.facts[path] = facts
        return True

    def _known_module(self, origin: str, module: str) -> list[str]:
        if not module.startswith("."):
            return self.modules.get(module, [])
        hit = self._relative(self.by_norm, origin, module)
        return [hit] if hit else []

    @staticmethod
    def _relative(by_norm: Mapping[str, str], origin: str, module: str) -> str | None:
        level = len(module) - len(module.lstrip("."))
        base = os.path.dirname(os.path.normpath(origin))
        for _ in range(level - 1):
            base = os.path.dirname(base)
        rest = module.lstrip(".")
        target = os.path.join(base, *rest.split(".")) if rest else base
        for candidate in (target + ".py", os.path.join(target, "__init__.py")):
            hit = by_norm.get(os.path.normpath(candidate))
            if hit is not None:
                return hit
        return None

    def config(self, origin: str, file: str) -> tuple[pv.Src, str] | None:
        if not file or file == "?":
            return None
        norm = os.path.normpath(file)
        candidates = [os.path.normpath(os.path.join(os.path.dirname(origin), file)), norm]
        for c in candidates:
            hit = self.by_norm.get(c)
            if hit is None and self.extra is not None and c in self.extra.by_norm:
                hit = self.extra.by_norm[c] if self._adopt(self.extra.by_norm[c]) else None
            if hit is not None and self.facts[hit].config is not None:
                return self.facts[hit].config, hit  # type: ignore[return-value]
        tail = os.sep + norm.lstrip(os.sep)
        for n, path in self.by_norm.items():
            if (n.endswith(tail) or n == norm) and self.facts[path].config is not None:
                return self.facts[path].config, path  # type: ignore[return-value]
        return None
