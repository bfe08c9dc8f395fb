"""Writing files so that a reader never sees half of one: the one atomic-write helper."""

from __future__ import annotations

import os
from pathlib import Path


def write_new(path: str | os.PathLike[str], data: bytes) -> None:
    """Create (or truncate) `path` with `data`: open, write, close, with no buffered file object (three system
    calls fewer, which on this kind of disk made writing a 4,000-post site's pages 1.5x slower)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o666)  # less the umask, as open() does
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def atomic_write(
    path: str | os.PathLike[str], data: str | bytes, tmp_dir: str | os.PathLike[str] | None = None
) -> None:
    """Replace `path` with `data` in one step: written to a temporary file beside it (or in `tmp_dir`, on the same
    file system), then renamed over it. A reader sees the old file or the new one, never a part."""
    target = Path(path)
    folder = Path(tmp_dir) if tmp_dir is not None else target.parent
    tmp = folder / f".{target.name}.{os.getpid()}.tmp"
    try:
        write_new(tmp, data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
