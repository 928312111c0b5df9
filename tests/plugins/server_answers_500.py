"""A pytest plugin that breaks every ``LocalServer``: each ``/v1`` request is answered with a 500.

It exists to prove that the suite notices a broken server (issue 25, item 1). It is never loaded by
default; run, for example::

    pytest -p plugins.server_answers_500 tests/differential

and every differential test that expects a successful answer must fail. The 500 is sent before routing,
so it reaches the endpoints that ignore queued faults too (speech, transcriptions, response streams).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

import pytest

from holyclient.testing._app import App
from holyclient.testing._exchange import Exchange
from holyclient.testing._http import HTTPConnection
from holyclient.testing._http_parse import Request


@pytest.fixture(autouse=True)
def _every_local_server_answers_500(monkeypatch: pytest.MonkeyPatch) -> None:
    handle = App.handle

    def broken(self: App, req: Request, conn: HTTPConnection) -> Coroutine[Any, Any, None] | None:
        if not req.path.startswith("/v1/"):
            return handle(self, req, conn)  # the admin API keeps working
        ex = Exchange(req, conn, self.new_request_id(), "unknown")
        self._send_error(ex, 500, "Broken on purpose by plugins.server_answers_500.", "server_error")
        return None

    monkeypatch.setattr(App, "handle", broken)
