"""fork_map (util/parallel.py): the build's posts and pages on every core, each process taking batches as it goes."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from site_builder.errors import SiteError
from site_builder.util.parallel import fork_map, fork_start, worker_count

pytestmark = pytest.mark.serial  # times what it waits for: run alone, after the tests run two at a time

needs_two = pytest.mark.skipif(worker_count(1000, 1) < 2, reason="one core here: fork_map runs in this process")


@needs_two
def test_every_item_once_in_order_and_both_processes_take_batches() -> None:
    items = list(range(5000))
    seen = fork_map(lambda batch: [(i + 0 * sum(range(5000)), os.getpid()) for i in batch], items, min_per_worker=10)
    assert [i for i, _ in seen] == items
    pids = {pid for _, pid in seen}
    assert os.getpid() in pids and len(pids) == 2, pids  # this process rendered its share, a worker the rest


@needs_two
def test_slow_items_are_shared_out_not_left_to_one_process() -> None:
    """Split in fixed shares (every other item), the process given the slow ones would do all of them; with batches
    taken as each process finishes the last, each takes some of them."""

    def work(batch: list[int]) -> list[int]:
        out = []
        for i in batch:
            if i % 2 == 0:
                sum(range(200_000))  # slow
            out.append(os.getpid())
        return out

    pids = fork_map(work, list(range(800)), min_per_worker=10)
    slow = pids[0::2]
    slow_by = {pid: slow.count(pid) for pid in set(slow)}
    assert len(slow_by) == 2 and min(slow_by.values()) >= 100, slow_by


@needs_two
def test_a_worker_s_site_error_is_raised_and_no_worker_is_left() -> None:
    def work(batch: list[int]) -> list[int]:
        if os.getpid() != parent:  # the worker's first batch
            raise SiteError("bad post", "content/posts/x.md", 3)
        time.sleep(0.002)  # this process leaves batches for the worker to take
        return list(batch)

    parent = os.getpid()
    with pytest.raises(SiteError) as caught:
        fork_map(work, list(range(6000)), min_per_worker=10)
    assert (caught.value.message, str(caught.value.file), caught.value.line) == ("bad post", "content/posts/x.md", 3)
    assert not multiprocessing.active_children()


@needs_two
def test_an_error_in_this_process_stops_the_workers() -> None:
    """This process fails on its first batch while the workers still have ~6 s of batches before them: they are
    stopped, not waited for. (Failing only past item 100 let a fast worker take every batch first, under load.)"""
    parent = os.getpid()

    def work(batch: list[int]) -> list[int]:
        if os.getpid() == parent:
            raise ValueError("this process failed")
        time.sleep(0.01)
        return list(batch)

    start = time.monotonic()
    with pytest.raises(ValueError):
        fork_map(work, list(range(20000)), min_per_worker=10)
    assert time.monotonic() - start < 3
    assert not multiprocessing.active_children()


@needs_two
def test_a_function_that_drops_results_is_an_error_not_a_shifted_list() -> None:
    with pytest.raises(RuntimeError, match="results for"):
        fork_map(lambda batch: list(batch)[1:], list(range(1000)), min_per_worker=10)


@needs_two
def test_work_set_aside_runs_once_in_this_process_while_the_worker_takes_batches() -> None:
    """`aside` (the next stage's imports) runs in this process after the fork, so the worker takes more batches
    meanwhile; it is not called when everything runs here (nothing would go on beside it)."""
    calls: list[int] = []

    def aside() -> None:
        calls.append(os.getpid())
        time.sleep(0.3)  # while this process is busy, the worker renders

    seen = fork_map(lambda batch: [os.getpid() for _ in batch], list(range(400)), min_per_worker=10, aside=aside)
    assert calls == [os.getpid()]
    assert seen.count(os.getpid()) < 200  # the worker took more than its half
    calls.clear()
    fork_map(lambda batch: list(batch), [1, 2], min_per_worker=10, aside=aside)
    assert calls == []


_SIGNAL_IN_FORK_HOOK: list[int] = []  # set while a test below runs: the hook it registers stays for the session


def _signal_in_the_fork_hook() -> None:
    for signum in _SIGNAL_IN_FORK_HOOK:
        signal.raise_signal(signum)  # as if it came while the fork's own hooks run


os.register_at_fork(after_in_parent=_signal_in_the_fork_hook)


def _fork_interrupted_by(signum: int) -> None:
    """A fork during which `signum` comes must raise KeyboardInterrupt in the caller (not swallow it)."""
    _SIGNAL_IN_FORK_HOOK.append(signum)
    try:
        with pytest.raises(KeyboardInterrupt):
            fork_start(lambda: time.sleep(5)).cancel()
    finally:
        _SIGNAL_IN_FORK_HOOK.clear()
    for child in multiprocessing.active_children():
        child.kill()
        child.join()


def test_a_sigterm_that_comes_during_the_fork_still_stops_the_caller() -> None:
    """serve turns SIGTERM into KeyboardInterrupt. Coming while a worker forks (inside the fork's hooks, where
    logging releases its lock), that exception was swallowed and the server did not stop; it is now raised once
    the fork is done."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        _fork_interrupted_by(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_during_the_fork_interrupts_the_build_and_the_worker_keeps_the_parents_ctrl_c() -> None:
    """Ctrl-C coming while a worker forks was raised inside the fork's hooks: swallowed with a traceback printed,
    and the build went on. It is held back for the fork and raised once it is done. The worker does with Ctrl-C
    what its parent did before the fork: stop (KeyboardInterrupt), or ignore it where the parent ignores it."""
    _fork_interrupted_by(signal.SIGINT)

    def handler_name() -> str:
        handler = signal.getsignal(signal.SIGINT)
        return {signal.default_int_handler: "raise", signal.SIG_IGN: "ignore"}.get(handler, repr(handler))

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert fork_start(handler_name).result() == "raise"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert fork_start(handler_name).result() == "ignore"
    finally:
        signal.signal(signal.SIGINT, previous)
