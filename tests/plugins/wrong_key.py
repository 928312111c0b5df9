"""A pytest plugin that makes every ``LocalServer`` refuse the tests' keys (401 ``invalid_api_key``).

The second proof for issue 25, item 1: with a wrong key on both sides, both SDKs fail the same way,
and a differential test must not count that as a match. Never loaded by default; run::

    pytest -p plugins.wrong_key tests/differential
"""

from __future__ import annotations

from typing import Any

import pytest

from holyclient.testing import LocalServer

ONLY_KEY = "sk-a-key-no-test-sends"


@pytest.fixture(autouse=True)
def _every_local_server_wants_another_key(monkeypatch: pytest.MonkeyPatch) -> None:
    init = LocalServer.__init__

    def wants_another_key(self: LocalServer, **options: Any) -> None:
        init(self, **{**options, "api_key": ONLY_KEY, "require_key": True})

    monkeypatch.setattr(LocalServer, "__init__", wants_another_key)
