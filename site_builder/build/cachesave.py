"""Saving the build cache beside the build: a forked process writes what is known once the posts are read.

A build's cache is mostly the posts and their fragments (a 16,000-post site: 0.65 s to pickle and write, on
one core, after the pages). They do not change after stage 4, so a process forked then writes them while this one
assembles the site (on one core: the other one was idle) and renders the pages; it then waits for the few fields
known only at the end (`LATE` in `build.state`: the output's page keys), writes them and renames the file into
place. Nothing is renamed unless the build ends well: a failed build stops the saving process and removes its
file; a killed one closes its pipe, and the saving process removes its file and goes. The previous cache stays as
it was. The temporary file is named for the build's process, as one it wrote itself would be, so that a later
build removes it when a kill left it behind.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from site_builder.build.state import BuildState
from site_builder.util.files import atomic_tmp
from site_builder.util.parallel import can_fork, start_process


class _Abandoned(Exception):
    """The build failed or was killed before its end: nothing to save."""


def _save(state: BuildState, conn: Any, builds: Any, owner: int) -> None:
    builds.close()  # the build's end, inherited: with it open here, a killed build's pipe would never close
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):  # the build decides: it closes the pipe
        signal.signal(signum, signal.SIG_IGN if signum == signal.SIGINT else signal.SIG_DFL)

    def late() -> dict[str, object]:
        try:
            fields: dict[str, object] = conn.recv()
        except EOFError:
            raise _Abandoned from None
        return fields

    try:
        state.save(late, owner)
        conn.send(("ok", ""))
    except _Abandoned:
        pass
    except OSError as exc:
        conn.send(("error", str(exc)))
    except BaseException as exc:  # reported by the build as a cache it could not save
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class EarlySave:
    """The cache being saved by a forked process since the posts were read; `finish` or `abandon` it."""

    def __init__(self, state: BuildState) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._conn, theirs = ctx.Pipe()
        self._path = state.path
        self._proc = ctx.Process(target=_save, args=(state, theirs, self._conn, os.getpid()), daemon=True)
        start_process(self._proc)
        theirs.close()

    def finish(self, state: BuildState) -> None:
        """Send what the output now holds, and wait until the cache is in place (OSError when it could not be)."""
        try:
            self._conn.send(state.late_fields())
            status, message = self._conn.recv()
        except (EOFError, OSError):
            status, message = "error", f"the saving process exited with code {self._proc.exitcode}"
        self._close()
        if status != "ok":
            raise OSError(message)

    def abandon(self) -> None:
        """The build failed: stop the saving process, and remove what it wrote."""
        self._proc.kill()
        self._close()
        atomic_tmp(self._path).unlink(missing_ok=True)

    def _close(self) -> None:
        self._conn.close()
        self._proc.join()


@contextmanager
def early_save(state: BuildState, warm: bool) -> Iterator[EarlySave | None]:
    """An EarlySave of `state` when the build will save it (a one-shot build that read posts) and can fork, else
    None; abandoned if the block fails (`finish_build` finishes it).

    The fragments kept from the last build get their HTML first (the pages would read it anyway, and so would
    saving): CacheDamaged when it turns out damaged, and the build starts again from scratch."""
    if warm or not state.loaded_posts_changed or not can_fork():
        yield None
        return
    state.fill_html()  # (the saving process prunes what no post uses, as `BuildState.save` does)
    saver = EarlySave(state)
    try:
        yield saver
    except BaseException:
        saver.abandon()
        raise
