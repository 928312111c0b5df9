"""The ``/_holyclient/`` endpoints: inspect and program a server running in another process.

They need no key, are not counted in the stats and are never faulted, so a test can always reach
them: ``GET /_holyclient/stats``, ``GET /_holyclient/requests``, ``POST /_holyclient/reset`` and
``POST /_holyclient/faults`` with ``{"enqueue": ["429", "drop", ...]}``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ._faults import fault_from_name
from ._http import HTTPConnection
from ._http_parse import Request
from ._json_body import dumps

if TYPE_CHECKING:
    from ._app_core import AppCore


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


def handle_admin(app: AppCore, req: Request, conn: HTTPConnection) -> None:
    """Answer ``/_holyclient/...``: stats, the request log, reset, and enqueueing faults by name."""
    route = (req.method, req.path)
    status: int = 200
    obj: Any = None
    if route == ("GET", "/_holyclient/stats"):
        obj = app.stats()
    elif route == ("GET", "/_holyclient/requests"):
        obj = {"object": "list", "data": [r.to_json() for r in app.request_log()]}
    elif route == ("POST", "/_holyclient/reset"):
        app.reset()
        obj = {"reset": True}
    elif route == ("POST", "/_holyclient/faults"):
        try:
            names = json.loads(req.body).get("enqueue", [])
            faults = [fault_from_name(str(name)) for name in names]
        except (ValueError, AttributeError, TypeError) as exc:
            status, obj = 400, _error(f"invalid fault list: {exc}")
        else:
            app.queue.extend(faults)
            obj = {"queued": len(app.queue)}
    else:
        status, obj = 404, _error(f"Unknown admin URL: {req.method} {req.path}")
    headers = [("Content-Type", "application/json"), ("x-request-id", app.new_request_id())]
    conn.send(status, headers, dumps(obj).encode(), keep_alive=req.keep_alive)
