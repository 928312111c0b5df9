"""Compatibility shim: the models moved to the public :mod:`holyclient.types` package.

Kept so that internal imports (``from .._models import ChatCompletion``) keep working; new code imports
from ``holyclient.types``.
"""

from __future__ import annotations

from .types import *  # noqa: F403
from .types import __all__ as __all__
