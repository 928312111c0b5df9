"""Fixed answers for routes the local server does not implement (``LocalServer(canned=...)``). No I/O.

The fake API answers the endpoints holyclient has resources for; an application may also call others
(``fine_tuning.jobs.create`` through an openai client, a relay's own ``/v1/relay/...``). A test that
needs such a route answered gives its JSON: the request is then logged, authorized and faulted like
any other, and answered 200 with that body.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._app_core import AppCore
    from ._exchange import Exchange

__all__ = ["answer_canned"]


def answer_canned(app: AppCore, ex: Exchange, answer: Mapping[str, Any]) -> Coroutine[Any, Any, None] | None:
    """Answer ``ex`` with ``answer`` after the steps every request takes (log, auth, faults)."""
    req = ex.req
    body: Any = None
    if req.body:
        try:
            body = json.loads(req.body)
        except ValueError:
            body = None
    app._record(ex, body)
    if app.config.require_key and not app._authorized(ex):
        return None
    ex.payload = dict(answer)
    return app._dispatch(ex)
