"""`serve`'s runs of executing posts, made beside the builds: a build takes the runs known now (this session's, or
the run cache's) and shows the other posts as running (`running.py`); each post runs in a thread of its own, at
most as many at once as `build` runs, and when its run ends the post is built again (`on_done`). A run whose post
was edited again meanwhile is stopped, not finished: only the newest code's run counts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.build.posts import EXEC_CACHE, Running, RunsKnown

if TYPE_CHECKING:
    from site_builder.config.siteexec import SiteExec
    from site_builder.execute.job import Job
    from site_builder.execute.results import PostRun
    from site_builder.execute.sandbox import Children
    from site_builder.execute.store import RunStore
    from site_builder.models import ParsedPost


@dataclass
class _Run:
    """One post's run under way: its job, and its processes (to stop it)."""

    job: Job
    children: Children
    stale: PostRun | None
    thread: threading.Thread | None = None


@dataclass
class BackgroundRuns:
    """The runs of one `serve`: `on_done(run)` is called (from a runner thread) with each run that ended."""

    root: Path
    on_done: Callable[[PostRun], None]
    done: dict[str, PostRun] = field(default_factory=dict)  # this session's runs by run key, failed ones too
    last: dict[str, PostRun] = field(default_factory=dict)  # each post's newest run (its outputs, shown stale)
    running: dict[str, _Run] = field(default_factory=dict)  # by post path
    lock: threading.Lock = field(default_factory=threading.Lock)
    slots: threading.Semaphore | None = None
    store: RunStore | None = None
    closed: bool = False
    built: threading.Event = field(default_factory=threading.Event)  # runs start once the build that asked is out

    def release(self) -> None:
        """The build is over (its pages are out, or it failed): the runs it asked for may start. Started at once,
        a run's interpreter and imports would take the cores from the pages that the build was writing."""
        self.built.set()

    def lookup(self, parsed: list[ParsedPost], site: SiteExec) -> RunsKnown:
        """The runs known for these posts' code now; the others are started (a run of older code stopped)."""
        from site_builder.execute.job import make_job
        from site_builder.execute.store import RunStore

        posts = [p.post for p in parsed if p.post.execute]
        jobs = [make_job(p, site) for p in parsed if p.post.execute]
        self.built.clear()
        with self.lock:
            if self.store is None:
                self.store = RunStore(self.root / EXEC_CACHE)
            known = RunsKnown({}, {})
            for post, job in zip(posts, jobs, strict=True):
                run = self.done.get(job.key) or self._cached(job)
                if run is not None:
                    run.cells = post.cells  # a notebook's failures are reported at their cells
                    known.runs[job.rel] = self.last[job.rel] = run
                    self._stop(job.rel)  # code changed back to a version already run: an older edit's run stops
                    continue
                known.running[job.rel] = self._start(job)
            return known

    def _cached(self, job: Job) -> PostRun | None:
        assert self.store is not None
        run = self.store.load(job)
        if run is not None:
            run.cached, run.reason = True, "cached"
        return run

    def _start(self, job: Job) -> Running:
        """A run of `job` under way (started now, unless it already runs); a run of the post's older code stops."""
        from site_builder.execute.sandbox import Children
        from site_builder.running import stale_run

        lines = [b.line for b in job.blocks]
        now = self.running.get(job.rel)
        if now is not None and now.job.key == job.key:
            return Running(lines, now.stale)
        self._stop(job.rel)
        last = self.last.get(job.rel)
        stale = stale_run(last, lines) if last is not None else None
        if self.closed:
            return Running(lines, stale)
        if self.slots is None:
            from site_builder.execute.executors import parallel_slots

            self.slots = threading.Semaphore(parallel_slots([job]))
        self.running[job.rel] = mine = _Run(job, Children(), stale)
        mine.thread = threading.Thread(target=self._run, args=(mine,), name=f"run {job.rel}", daemon=True)
        mine.thread.start()
        return Running(lines, stale)

    def _stop(self, rel: str) -> None:
        """Stop the post's run under way, if any: its thread sees it is no longer the post's run and drops it."""
        now = self.running.pop(rel, None)
        if now is not None:
            now.children.stop_all()

    def _run(self, mine: _Run) -> None:
        from site_builder.execute.session import run_job

        assert self.slots is not None
        self.built.wait(timeout=30)
        with self.slots:
            if self._current(mine):
                run = run_job(mine.job, children=mine.children)
            else:
                return
        with self.lock:
            if self.running.get(mine.job.rel) is not mine or self.closed:
                return  # stopped for newer code, or serve stops: dropped
            del self.running[mine.job.rel]
            self.done[mine.job.key] = run
            assert self.store is not None
            self.store.save(mine.job, run)  # a passing run is cached for `build` and the next `serve`
            self.store.flush()
        self.on_done(run)

    def _current(self, mine: _Run) -> bool:
        with self.lock:
            return self.running.get(mine.job.rel) is mine and not self.closed

    def stop(self) -> None:
        """Stop every run (serve stops), and let their threads remove their run folders."""
        from site_builder.execute.executors import STOP_WAIT

        with self.lock:
            self.closed = True
            runs, self.running = list(self.running.values()), {}
        for run in runs:
            run.children.stop_all()
        deadline = time.monotonic() + STOP_WAIT
        for run in runs:
            if run.thread is not None:
                run.thread.join(max(0.0, deadline - time.monotonic()))
