"""``HOLYCLIENT_SKIP_CONTRACT=1`` skips the contract tests (no Node.js/npm, so no Prism) -- loudly.

A skip that only shows as ``s`` in a dotted line is easy to miss: a run that never checked a request
against the OpenAI spec must say so at the end, where people look.
"""

from __future__ import annotations

import os

import pytest

SKIP_VARIABLE = "HOLYCLIENT_SKIP_CONTRACT"
SKIPPED_LINE = (
    f"CONTRACT TESTS SKIPPED ({SKIP_VARIABLE}=1): no request was checked against the official OpenAI "
    "spec; install Node.js/npm and run .ci/install-prism to run them"
)


def _skipping() -> bool:
    return os.environ.get(SKIP_VARIABLE) == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _skipping():
        return
    marker = pytest.mark.skip(reason=f"{SKIP_VARIABLE}=1")
    for item in items:
        if item.get_closest_marker("contract") is not None:
            item.add_marker(marker)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipping():
        terminalreporter.write_sep("!", SKIPPED_LINE, yellow=True, bold=True)
