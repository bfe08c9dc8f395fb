"""The build's own process kept out of reach of post code running as the same user (Linux)."""

from __future__ import annotations

import sys

_PR_SET_DUMPABLE = 4


def keep_private() -> None:
    """Make this process (and what it forks) not dumpable: its /proc files (environ, mem, ns, root, cwd) and
    ptrace are then refused to every process lacking CAP_SYS_PTRACE, which post code always lacks (it drops every
    capability before it runs). So the tokens in the build's environment and its memory (the cache key) stay out of
    the posts' reach. Also no core dump of the build. A process started with exec is dumpable again."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # here: a build with nothing to do imports no more than it needs

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
