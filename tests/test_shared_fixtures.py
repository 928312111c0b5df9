"""The top conftest's ``local_server`` fixture takes its options from a marker or an indirect parameter."""

from __future__ import annotations

import pytest

from holyclient.testing import LocalServer

pytestmark = pytest.mark.local_server(latency=0.25, api_key="sk-module")


def test_a_marker_configures_the_local_server(local_server: LocalServer) -> None:
    assert local_server.running
    assert (local_server._app.config.latency, local_server._app.config.api_key) == (0.25, "sk-module")


@pytest.mark.parametrize("local_server", [{"latency": 0.5}], indirect=True)
def test_an_indirect_parameter_wins_over_the_marker(local_server: LocalServer) -> None:
    assert (local_server._app.config.latency, local_server._app.config.api_key) == (0.5, "sk-module")
