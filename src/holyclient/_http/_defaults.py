"""openai's ``Timeout`` and ``DEFAULT_TIMEOUT``, offered under the same top-level names (``holyclient.Timeout``
is httpx2's, as ``openai.Timeout`` is). Loaded on first access: it imports httpx2."""

from __future__ import annotations

import httpx2

from .._constants import DEFAULT_CONNECT_TIMEOUT
from .._constants import DEFAULT_TIMEOUT as _SECONDS

__all__ = ["DEFAULT_TIMEOUT", "Timeout"]

Timeout = httpx2.Timeout
#: Every request's timeout unless the client or the call says otherwise: 10 minutes, 5 s to connect.
DEFAULT_TIMEOUT = Timeout(timeout=_SECONDS, connect=DEFAULT_CONNECT_TIMEOUT)
