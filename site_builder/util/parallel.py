"""Runs a function over items on every core with forked workers (no pickling of the function)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from site_builder.errors import SiteError

T = TypeVar("T")
R = TypeVar("R")


_HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, and what serve turns into an exception


class _Holder:
    """A held signal's stand-in handler while a process forks: it notes the signal. `previous` is the handler it
    stands in for: the forked child, which inherits the holder, puts that back (`child_signals`)."""

    def __init__(self, previous: Any, came: list[int]) -> None:
        self.previous = previous if previous is not None else signal.SIG_DFL  # None: set outside Python
        self.came = came

    def __call__(self, signum: int, frame: object) -> None:
        self.came.append(signum)


def start_process(proc: Any) -> None:
    """`proc.start()` with SIGINT, SIGTERM and SIGHUP held back until the fork is done, then raised again if they
    came.

    Ctrl-C raises KeyboardInterrupt, and `serve` turns SIGTERM and SIGHUP into one. Raised inside the fork's own
    hooks (logging releases its lock there), the exception is swallowed, with a traceback: the build or the server
    would go on, with logging's lock held. A forked process puts its handlers back first thing (`child_signals`)."""
    if threading.current_thread() is not threading.main_thread():  # handlers run in the main thread only
        proc.start()
        return
    came: list[int] = []
    holders = {signum: _Holder(signal.getsignal(signum), came) for signum in _HELD}
    for signum, holder in holders.items():
        signal.signal(signum, holder)
    try:
        proc.start()
    finally:
        for signum, holder in holders.items():
            signal.signal(signum, holder.previous)
        for number in came:
            signal.raise_signal(number)


def child_signals() -> None:
    """First thing in a forked worker: SIGTERM and SIGHUP kill it at once; SIGINT does what it did in the parent
    (held while the fork was made: see `start_process`). What the holder noted is the parent's to raise (the
    parent stops its workers when it is interrupted).

    The handler serve installs, inherited with the fork, would turn SIGTERM into an exception whose report could
    block on a full pipe nobody reads: a worker stopped by its parent (terminate, at exit) must die at once."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    handler = signal.getsignal(signal.SIGINT)
    if isinstance(handler, _Holder):  # (not one when the fork was made outside the main thread)
        signal.signal(signal.SIGINT, handler.previous)


def worker_count(items: int, min_per_worker: int = 40) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, items // min_per_worker))


def _run(fn: Callable[..., Any], args: tuple[Any, ...], conn: Any) -> None:
    child_signals()
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as exc:  # report, the parent raises it
        conn.send(_failure(exc))
    finally:
        conn.close()


def _failure(exc: BaseException) -> tuple[str, Any]:
    """What a worker sends of the error that stopped it, for `_ended` to raise in its parent."""
    if isinstance(exc, SiteError):
        return "site", (exc.message, str(exc.file) if exc.file else None, exc.line)
    import traceback

    return "crash", "".join(traceback.format_exception(exc))


class Forked:
    """`fn(*args)` running in a forked worker; `result()` waits for it and returns it or raises its error."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        import multiprocessing  # imported by a build that forks (a build with nothing to do does not)

        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_run, args=(fn, args, send), daemon=True)
        start_process(self._proc)
        send.close()

    def result(self) -> Any:
        try:
            status, value = self._recv.recv()
        except EOFError:
            status, value = "crash", f"worker exited with code {self._proc.exitcode}"
        _ended(self._proc, self._recv, status, value)
        return value

    def cancel(self) -> None:
        """Stop the worker (the build it works for failed) and wait for it to go."""
        _stop(self._proc, self._recv)


def _stop(proc: Any, recv: Any) -> None:
    proc.kill()
    proc.join()
    recv.close()


def _ended(proc: Any, recv: Any, status: str, value: Any) -> None:
    """A worker's last word is read: wait for it to go, then raise what it reported (a SiteError, or its crash)."""
    proc.join()
    recv.close()
    if status == "site":
        raise SiteError(*value)
    if status == "crash":
        raise RuntimeError(f"a build worker failed:\n{value}")


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


def fork_map(
    fn: Callable[[Sequence[T]], list[R]],
    items: Sequence[T],
    min_per_worker: int = 40,
    aside: Callable[[], object] | None = None,
) -> list[R]:
    """`fn(batch) -> list` (one result per item) over `items` in parallel; results in item order.

    This process and the forked workers each take the next batch of items as they finish the last one, so a
    faster process takes more (no process waits for another at the end), and a worker sends each batch's results
    as it goes (its pickling overlaps the work). This process renders batches itself, reads what the workers sent
    between two of its batches, and needs no pickling for its own results.

    `aside`, when workers are forked, is called by this process once they are, before its first batch: work the
    next step needs (imports), done while the workers render, which then take more of the batches."""
    workers = worker_count(len(items), min_per_worker)
    if workers == 1 or not can_fork():
        return list(fn(items))
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    feed = _Feed.of(len(items), workers)
    try:
        forked = [_Streaming(ctx, fn, items, feed) for _ in range(workers - 1)]
        results: list[Any] = [None] * len(items)
        try:
            if aside is not None:
                aside()
            while (batch := feed.take()) is not None:
                _place(results, batch, fn(items[batch]))
                for worker in forked:
                    worker.receive(results, wait=False)
            for worker in forked:
                worker.receive(results, wait=True)
        except BaseException:
            for worker in forked:  # this build is over: do not leave workers behind
                worker.cancel()
            raise
    finally:
        os.close(feed.fd)
    return results


@dataclass
class _Feed:
    """The batches not taken yet, shared by the processes of one fork_map: their numbers in a pipe, four bytes
    each, all written before the workers fork. A process takes the next by reading four bytes (the pipe holds
    whole numbers only, and a read of four takes one of them whole, from one reader), so no lock is needed (nor
    the shared memory a lock needs, which some containers lack); an empty pipe says all are taken."""

    fd: int  # the pipe's read end
    total: int
    size: int  # items a batch

    @classmethod
    def of(cls, total: int, workers: int) -> _Feed:
        # at most 4,096 batches: their 16 KiB fit in any pipe, written before anyone reads
        size = max(1, min(32, total // (workers * 8)), -(-total // 4096))
        count = -(-total // size)
        read, write = os.pipe()
        try:
            os.write(write, b"".join(n.to_bytes(4, "little") for n in range(count)))
        finally:
            os.close(write)
        return cls(read, total, size)

    def take(self) -> slice | None:
        data = os.read(self.fd, 4)
        if not data:
            return None
        start = int.from_bytes(data, "little") * self.size
        return slice(start, min(start + self.size, self.total))


def _place(results: list[Any], batch: slice, values: list[Any]) -> None:
    if len(values) != batch.stop - batch.start:
        raise RuntimeError(f"fork_map: {len(values)} results for {batch.stop - batch.start} items")
    results[batch] = values


def _batches(fn: Callable[[Sequence[Any]], list[Any]], items: Sequence[Any], feed: _Feed, conn: Any) -> None:
    """A worker's loop: batch after batch, each one's results sent at once; then "done" (or what went wrong)."""
    child_signals()
    try:
        while (batch := feed.take()) is not None:
            conn.send(("part", batch, fn(items[batch])))
        conn.send(("done", None, None))
    except BaseException as exc:
        conn.send((*_failure(exc), None))
    finally:
        conn.close()


class _Streaming:
    """A forked worker of fork_map, and what it has sent."""

    def __init__(self, ctx: Any, fn: Callable[[Sequence[Any]], list[Any]], items: Sequence[Any], feed: _Feed) -> None:
        self._recv, send = ctx.Pipe(duplex=False)
        try:
            import fcntl  # (not on Windows, which does not fork)

            # room for a few batches' results, so that the worker seldom waits for this process to read them
            fcntl.fcntl(self._recv.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        except (ImportError, AttributeError, OSError):  # not Linux, or over the system's limit: the default pipe
            pass
        self._proc = ctx.Process(target=_batches, args=(fn, items, feed, send), daemon=True)
        start_process(self._proc)
        send.close()
        self.done = False

    def receive(self, results: list[Any], wait: bool) -> None:
        """Put what the worker sent into `results`; with `wait`, until it is done. Raises the worker's error."""
        while not self.done and (wait or self._recv.poll()):
            try:
                kind, value, values = self._recv.recv()
            except EOFError:
                kind, value, values = "crash", f"worker exited with code {self._proc.exitcode}", None
            if kind == "part":
                _place(results, value, values)
                continue
            self.done = True
            _ended(self._proc, self._recv, kind, value)

    def cancel(self) -> None:
        """Stop the worker and wait for it to go."""
        if not self.done:
            self.done = True
            _stop(self._proc, self._recv)
