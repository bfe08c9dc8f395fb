"""Watches content/, themes/ and site.yml with watchdog; a burst of editor events becomes one rebuild."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

DEBOUNCE = 0.05  # editors' save bursts (temp file, rename) land within a few ms
SETTLE = 0.01  # quiet time enough once every changed file was closed after writing, or renamed into place
_IGNORED_SUFFIXES = ("~", ".swp", ".swx", ".tmp", ".part", ".crdownload", "___jb_tmp___", "___jb_old___")


def interesting(path: str, root: Path) -> bool:
    """Changes worth a rebuild: not editor scratch files, not the build's own output or cache."""
    p = Path(path)
    try:
        parts = p.resolve().relative_to(root).parts
    except ValueError:
        return False
    if not parts or parts[0] in (".cache", "output", ".git"):
        return False
    if parts[0] not in ("content", "themes", "static") and parts != ("site.yml",):
        return False
    name = parts[-1]
    return not (
        name.startswith((".#", "#")) or name.endswith(_IGNORED_SUFFIXES) or name.startswith(".") or name == "4913"
    )


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher):
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type not in ("deleted", "moved"):
            return  # a file event inside says what changed
        dest = str(getattr(event, "dest_path", "") or "")
        for path in (str(event.src_path), dest):
            if path and interesting(path, self.watcher.root):
                # a file closed after writing, or renamed into place, is whole: no need to wait the full debounce
                whole = not event.is_directory and (
                    (event.event_type == "closed" and path == str(event.src_path))
                    or (event.event_type == "moved" and path == dest)
                )
                self.watcher.touch(path, whole)


class Watcher:
    """Calls `rebuild(changed_paths)` once events have been quiet for DEBOUNCE seconds (SETTLE seconds when the
    last event of every changed path says the file is whole: closed after writing, or renamed into place)."""

    def __init__(
        self,
        root: Path,
        rebuild: Callable[[list[str]], object],
        log: Callable[[str], None] = print,
        on_change: Callable[[], object] = lambda: None,
    ) -> None:
        self.root = root.resolve()
        self.rebuild = rebuild
        self.on_change = on_change  # called at once on every change (a running rebuild may stop its late work)
        self.log = log
        self.observer = Observer()
        self._pending: dict[str, bool] = {}  # changed path -> whether it is whole
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rebuild", daemon=True)

    def start(self) -> None:
        handler = _Handler(self)
        for name in ("content", "themes", "static"):  # static: the site's static folder, by its default name
            if (self.root / name).is_dir():
                self.observer.schedule(handler, str(self.root / name), recursive=True)
        self.observer.schedule(handler, str(self.root), recursive=False)
        self.observer.start()
        self._thread.start()

    def touch(self, path: str, whole: bool = False) -> None:
        with self._lock:
            self._pending[str(Path(path).resolve().relative_to(self.root))] = whole
        self._wake.set()
        self.on_change()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self._wake.wait(0.2):
                continue
            # coalesce: wait until no event arrived for DEBOUNCE seconds
            while True:
                self._wake.clear()
                with self._lock:
                    quiet = SETTLE if all(self._pending.values()) else DEBOUNCE
                if not self._wake.wait(quiet) or self._stop.is_set():
                    break
            with self._lock:
                changed, self._pending = sorted(self._pending), {}
            if changed and not self._stop.is_set():
                try:
                    self.rebuild(changed)
                except Exception as exc:  # keep serving whatever happens in one rebuild
                    self.log(f"internal error while rebuilding: {type(exc).__name__}: {exc}")

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self.observer.stop()
        self.observer.join(timeout=2)
        self._thread.join(timeout=5)
