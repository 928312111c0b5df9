"""Package faces that load a name's module on its first use (PEP 562 ``__getattr__``).

``import holyclient`` must stay cheap (no pydantic model, no resource module, no compare engine until
something uses it), yet each face lists every public name in one place. Every lazy face -- the
package root, ``_send``, ``compare`` and the generated ``types`` packages -- gets its ``__getattr__``
from :func:`lazy_names`, so there is one rule for what an unknown name raises and how a loaded one is kept.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str,
    names: Mapping[str, str] | Callable[[], Mapping[str, str]],
    namespace: dict[str, Any],
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``.

    Args:
        package: the package's ``__name__`` (relative module names are resolved against it).
        names: each lazy name and the module that holds it (``".pricing"``), or a function that returns
            them, called on the first lookup (``types`` keeps a 1,650-name index in a module of its own).
        namespace: the package's ``globals()``: a loaded name is kept there, so the next access is a
            plain attribute lookup.
    """
    table: list[Mapping[str, str]] = [] if callable(names) else [names]

    def __getattr__(name: str) -> Any:
        if not table:
            assert callable(names)
            table.append(names())
        module = table[0].get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
