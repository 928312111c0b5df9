"""placeholder"""

from typing import Any


def register(subparsers: Any) -> None:
    subparsers.add_parser("doctor")
