"""What a post's child may use (limits, caps) and the Linux call that ties it to its parent: shared by the
sandbox, which starts and watches children, and the template, which forks them."""

from __future__ import annotations

import ctypes
import resource
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from site_builder.execute.settings import DEFAULT_PROCESSES

FILE_SIZE_CAP = 1 << 30  # RLIMIT_FSIZE: bytes of any one file the post writes
RUN_DIR_FILES = 10_000  # files and folders in the run directory
RUN_DIR_BYTES = 1 << 30  # bytes on disk in the run directory
WATCH_INTERVAL = 0.1  # seconds between two looks at a running post's processes and files
# RLIMIT_LOCKS (10 on Linux; Python's resource module does not name it), shown as "Max file locks" in /proc
MARK_LIMIT: int | None = getattr(resource, "RLIMIT_LOCKS", 10) if sys.platform.startswith("linux") else None


@dataclass
class Limits:
    """What one child may use: address space, seconds, processes at once, files and bytes in its directory; and
    the unshare(2) flags that cut it off the network (None: it keeps the network); for strict isolation, the
    arguments of jail.enter (None: not jailed)."""

    memory: int
    timeout: float
    processes: int = DEFAULT_PROCESSES
    files: int = RUN_DIR_FILES
    disk: int = RUN_DIR_BYTES
    netns: int | None = None
    jail: dict[str, Any] | None = None


@cache
def prctl_function() -> Callable[..., int] | None:
    """Linux's prctl, found before any fork (the child between fork and exec should not load libraries)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function
