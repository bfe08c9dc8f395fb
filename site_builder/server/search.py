"""`serve`'s search index: made again after the saves stop for a moment (debounced), in a thread of its own, with
Pagefind at a low priority and one shard at a time, so a save reloads the page at once and the index follows (only
the shards whose pages' text changed are indexed again: write/searchshards.py)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from site_builder.config import load_config
from site_builder.errors import SiteError
from site_builder.write.search import index_site, remove_index

QUIET = 0.5  # seconds without a rebuild before the site is indexed again


class SearchIndexer:
    """Index `output` once rebuilds have been quiet for QUIET seconds after the last `poke`."""

    def __init__(self, root: Path, output: Path, log: Callable[[str], object], quiet: float = QUIET):
        self.root, self.output, self.log, self.quiet = root, output, log, quiet
        self._due: float | None = None
        self._wake = threading.Condition()
        self._stopped = False
        self._process: subprocess.Popen[str] | None = None  # Pagefind, while it runs
        self._thread = threading.Thread(target=self._run, name="search-index", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """The output changed: index it once things are quiet."""
        with self._wake:
            self._due = time.monotonic() + self.quiet
            self._wake.notify()

    def stop(self) -> None:
        """Stop, Pagefind included if it is running (the output is about to be removed)."""
        with self._wake:
            self._stopped = True
            self._wake.notify()
            if self._process is not None and self._process.poll() is None:
                self._process.kill()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._stopped and (self._due is None or time.monotonic() < self._due):
                    self._wake.wait(None if self._due is None else max(0.0, self._due - time.monotonic()))
                if self._stopped:
                    return
                self._due = None
            self._index()

    def _started(self, process: subprocess.Popen[str]) -> None:
        with self._wake:
            self._process = process
            if self._stopped:
                process.kill()

    def _index(self) -> None:
        try:
            wanted = load_config(self.root).search
        except SiteError:
            return  # the build says what is wrong
        if not wanted:
            remove_index(self.output)
            return
        start = time.perf_counter()
        warning = index_site(self.output, self._started, low=True)
        self._process = None
        if self._stopped:
            return
        if warning is not None:
            self.log(f"warning: {warning}")
        else:
            self.log(f"search index updated in {(time.perf_counter() - start) * 1000:.0f} ms")
