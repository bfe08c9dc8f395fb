"""Watches content/, themes/ and site.yml with watchdog; a burst of editor events becomes one rebuild."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

DEBOUNCE = 0.05  # editors' save bursts (temp file, rename) land within a few ms
_IGNORED_SUFFIXES = ("~", ".swp", ".swx", ".tmp", ".part", ".crdownload")


def interesting(path: str, root: Path) -> bool:
    """Changes worth a rebuild: not editor scratch files, not the build's own output or cache."""
    p = Path(path)
    try:
        parts = p.resolve().relative_to(root).parts
    except ValueError:
        return False
    if not parts or parts[0] in (".cache", "output", ".git"):
        return False
    if parts[0] not in ("content", "themes") and parts != ("site.yml",):
        return False
    name = parts[-1]
    return not (name.startswith((".#", "#")) or name.endswith(_IGNORED_SUFFIXES) or name.startswith(".") or name == "4913")


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: "Watcher"):
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type not in ("deleted", "moved"):
            return  # a file event inside says what changed
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path and interesting(path, self.watcher.root):
                self.watcher.touch(path)


class Watcher:
    """Calls `rebuild(changed_paths)` once events have been quiet for DEBOUNCE seconds."""

    def __init__(self, root: Path, rebuild: Callable[[list[str]], object], log=print):
        self.root = root.resolve()
        self.rebuild = rebuild
        self.log = log
        self.observer = Observer()
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rebuild", daemon=True)

    def start(self) -> None:
        handler = _Handler(self)
        for name in ("content", "themes"):
            if (self.root / name).is_dir():
                self.observer.schedule(handler, str(self.root / name), recursive=True)
        self.observer.schedule(handler, str(self.root), recursive=False)
        self.observer.start()
        self._thread.start()

    def touch(self, path: str) -> None:
        with self._lock:
            self._pending.add(str(Path(path).resolve().relative_to(self.root)))
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self._wake.wait(0.2):
                continue
            # coalesce: wait until no event arrived for DEBOUNCE seconds
            while True:
                self._wake.clear()
                if not self._wake.wait(DEBOUNCE) or self._stop.is_set():
                    break
            with self._lock:
                changed, self._pending = sorted(self._pending), set()
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
