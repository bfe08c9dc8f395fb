"""Runs a function over items on every core with forked workers (no pickling of the function)."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from site_builder.errors import SiteError

T = TypeVar("T")
R = TypeVar("R")


def worker_count(items: int, min_per_worker: int = 40) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, items // min_per_worker))


def _run(fn: Callable[..., Any], args: tuple[Any, ...], conn: Any) -> None:
    # A worker stopped by its parent (terminate, at exit) dies at once: the handler serve installs, inherited with
    # the fork, would turn SIGTERM into an exception whose report could block on a full pipe nobody reads.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    try:
        conn.send(("ok", fn(*args)))
    except SiteError as exc:
        conn.send(("site", (exc.message, str(exc.file) if exc.file else None, exc.line)))
    except BaseException:  # report, the parent raises it
        import traceback

        conn.send(("crash", traceback.format_exc()))
    finally:
        conn.close()


class Forked:
    """`fn(*args)` running in a forked worker; `result()` waits for it and returns it or raises its error."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        import multiprocessing  # imported by a build that forks (a build with nothing to do does not)

        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_run, args=(fn, args, send), daemon=True)
        self._proc.start()
        send.close()

    def result(self) -> Any:
        try:
            status, value = self._recv.recv()
        except EOFError:
            status, value = "crash", f"worker exited with code {self._proc.exitcode}"
        self._proc.join()
        self._recv.close()
        if status == "site":
            raise SiteError(*value)
        if status == "crash":
            raise RuntimeError(f"a build worker failed:\n{value}")
        return value

    def cancel(self) -> None:
        """Stop the worker (the build it works for failed) and wait for it to go."""
        self._proc.kill()
        self._proc.join()
        self._recv.close()


def can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


class Done:
    """A result worked out at once (where processes cannot fork), with Forked's methods."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def result(self) -> Any:
        return self._value

    def cancel(self) -> None:
        pass


def fork_start(fn: Callable[[], object], fork: bool = True) -> Forked | Done:
    """Start `fn()` in a forked worker now, beside the work that follows (with `fork` false, or where processes
    cannot fork, `fn` runs at once); `.result()` waits for it, `.cancel()` stops it."""
    return Forked(fn) if fork and can_fork() else Done(fn())


def fork_map(fn: Callable[[Sequence[T]], list[R]], items: Sequence[T], min_per_worker: int = 40) -> list[R]:
    """`fn(chunk) -> list` over interleaved chunks of `items`, in parallel; results in item order.

    This process works on the first chunk itself while forked workers do the others: one process fewer, and
    the first chunk's results need no pickling."""
    workers = worker_count(len(items), min_per_worker)
    if workers == 1 or not can_fork():
        return list(fn(items))
    chunks = [items[i::workers] for i in range(workers)]
    forked = [Forked(fn, chunk) for chunk in chunks[1:]]
    try:
        first = fn(chunks[0])
    except BaseException:
        for worker in forked:  # this build is over: do not leave workers behind
            worker.cancel()
        raise
    outcomes = [first]
    for i, worker in enumerate(forked):
        try:
            outcomes.append(worker.result())
        except BaseException:
            for other in forked[i + 1 :]:
                other.cancel()
            raise
    results: list[Any] = [None] * len(items)
    for w, value in enumerate(outcomes):
        results[w::workers] = value
    return results
