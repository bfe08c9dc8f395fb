"""Progress while posts run, and failures as `file:line: Type: message` lines."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from site_builder.execute.results import Failure, PostRun
from site_builder.notebook import cell_location, cell_traceback

T = TypeVar("T")
R = TypeVar("R")


class Progress:
    """Posts done / total and the one running longest: a live line on a TTY, plain lines otherwise."""

    def __init__(self, total: int, sink: Callable[[str], None] | None):
        self.total, self.done, self.sink = total, 0, sink
        self.running: dict[str, float] = {}
        self.lock = threading.Lock()
        self.tty = sink is not None and sys.stderr.isatty()
        self._stop = threading.Event()
        if self.tty:
            threading.Thread(target=self._tick, daemon=True).start()

    def track(self, rel: str, fn: Callable[[T], R], job: T) -> R:
        with self.lock:
            self.running[rel] = time.monotonic()
            if self.sink and not self.tty:
                self.sink(f"running {rel}")
        try:
            return fn(job)
        finally:
            with self.lock:
                self.running.pop(rel, None)
                self.done += 1
                if self.sink and not self.tty:
                    self.sink(f"[{self.done}/{self.total}] done {rel}")

    def _line(self) -> str:
        with self.lock:
            longest = min(self.running.items(), key=lambda kv: kv[1], default=None)
            extra = f", running longest: {longest[0]} ({time.monotonic() - longest[1]:.0f}s)" if longest else ""
            return f"posts {self.done}/{self.total}{extra}"

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            sys.stderr.write("\r\033[K" + self._line())
            sys.stderr.flush()

    def close(self) -> None:
        self._stop.set()
        if self.tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def failure_lines(run: PostRun, failures: list[Failure] | None = None) -> list[str]:
    """`content/posts/x.md:42: Type: message` lines (a notebook's at its cell: `nb.ipynb:cell 4:line 2: ...`), each
    followed by its indented detail."""
    out = []
    for f in run.failures if failures is None else failures:
        where = cell_location(run.cells, f.line) or f"{run.rel}:{f.line}"
        out.append(f"{where}: {f.kind}: {f.message}")
        out += ["    " + d for d in cell_traceback(run.cells, f.detail).rstrip().splitlines()]
    return out


def cached_line(runs: Iterable[PostRun], limit: int = 10) -> str | None:
    """`3 posts from the cache: a.md, b.md, c.md` (the first `limit` by path, then `and N more`); None when no post
    came from the cache. A failing run is never cached, so these all passed when they ran."""
    names = sorted(run.rel for run in runs if run.cached)
    if not names:
        return None
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return f"{len(names)} post{'s' if len(names) != 1 else ''} from the cache: {shown}"


def cached_count(runs: Iterable[PostRun]) -> str:
    """` (3 from the cache)` for build's `ran code in N posts` line; empty when none came from the cache."""
    cached = sum(1 for run in runs if run.cached)
    return f" ({cached} from the cache)" if cached else ""
