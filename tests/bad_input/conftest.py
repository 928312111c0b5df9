"""The bad-input table's fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from holyclient.testing import LocalServer


@pytest.fixture
def relay() -> Iterator[LocalServer]:
    """A local server that records every request: where a bad-input row's requests would go."""
    with LocalServer() as server:
        yield server
