"""How `build` and `check` run posts (their command-line options)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class ExecOptions:
    rerun: bool = False
    executor: str = "local"  # local | ray
    ray_address: str | None = None
    progress: Callable[[str], None] | None = None
