"""`holyclient migrate` (being built; replaced by its feature)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("migrate", help="(in progress)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
