"""Every resource class the clients bind, by attribute name (``client.chat`` ...): importing this module
loads every resource module. A client loads only the one a call needs (:func:`~holyclient.resources.resource_class`).
"""

from __future__ import annotations

from typing import Any

from ._registry import RESOURCES, resource_class

SYNC_RESOURCES: dict[str, Any] = {name: resource_class(name, is_async=False) for name in RESOURCES}
ASYNC_RESOURCES: dict[str, Any] = {name: resource_class(name, is_async=True) for name in RESOURCES}
