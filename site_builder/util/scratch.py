"""Scratch folders named by the process that made them (`PREFIX<pid>-...`), so that what a killed process left (in
/dev/shm, that is RAM until the machine restarts) is found and removed by the next one. `serve`'s site and the
search index's documents are made this way."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def make(prefix: str, folder: str | None) -> Path:
    """A new folder in `folder` (None: the temporary folder), named by `prefix`, this process's pid, and a random
    part."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=folder))


def remove_stale(prefix: str, folder: str | None) -> None:
    """Each folder of `prefix` in `folder` whose process no longer runs; another user's are left alone."""
    where = folder or tempfile.gettempdir()
    try:
        entries = [e for e in os.scandir(where) if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(prefix) :].split("-", 1)[0]
        try:
            if not pid.isdigit() or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue
