"""Runs a function over items on every core with forked workers (no pickling of the function)."""

from __future__ import annotations

import multiprocessing
import os
import traceback
from typing import Callable, Sequence

from site_builder.errors import SiteError


def worker_count(items: int, min_per_worker: int = 40) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, items // min_per_worker))


def _run(fn, chunk, conn) -> None:
    try:
        conn.send(("ok", fn(chunk)))
    except SiteError as exc:
        conn.send(("site", (exc.message, str(exc.file) if exc.file else None, exc.line)))
    except BaseException:  # report, the parent raises it
        conn.send(("crash", traceback.format_exc()))
    finally:
        conn.close()


def fork_map(fn: Callable[[Sequence], list], items: Sequence, min_per_worker: int = 40) -> list:
    """`fn(chunk) -> list` over interleaved chunks of `items`, in parallel; results in item order.

    This process works on the first chunk itself while forked workers do the others: one process fewer, and
    the first chunk's results need no pickling."""
    workers = worker_count(len(items), min_per_worker)
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return list(fn(items))
    ctx = multiprocessing.get_context("fork")
    chunks = [items[i::workers] for i in range(workers)]
    procs = []
    for chunk in chunks[1:]:
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_run, args=(fn, chunk, send), daemon=True)
        proc.start()
        send.close()
        procs.append((proc, recv))
    try:
        outcomes = [("ok", fn(chunks[0]))]
    except BaseException:
        for proc, recv in procs:  # this build is over: do not leave workers behind
            proc.kill()
            proc.join()
            recv.close()
        raise
    for proc, recv in procs:
        try:
            outcomes.append(recv.recv())
        except EOFError:
            outcomes.append(("crash", f"worker exited with code {proc.exitcode}"))
        proc.join()
    for status, value in outcomes:
        if status == "site":
            raise SiteError(*value)
        if status == "crash":
            raise RuntimeError(f"a build worker failed:\n{value}")
    results: list = [None] * len(items)
    for w, (_, value) in enumerate(outcomes):
        results[w::workers] = value
    return results
