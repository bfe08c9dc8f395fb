"""`serve`'s runs of executing posts, made beside the builds: a build takes the runs known now (this session's, or
the run cache's) and shows the other posts as running (`running.py`); each post runs in a thread of its own, at
most as many at once as `build` runs, and when its run ends the post is built again (`on_done`). A run whose post
was edited again meanwhile is stopped, not finished: only the newest code's run counts.

Each run is forked from a template process kept for the whole `serve` (`execute/template.py`, as `build` forks its
posts; a new one when site.yml's `exec: preload` or `env` change): a run that started its own interpreter cost
~120 ms of CPU (the fork of serve's large process, then Python and the runner's imports) in the moment the edited
page was loading in the browser, on the same cores."""

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
    from site_builder.execute.template import Template
    from site_builder.models import ParsedPost


@dataclass
class _Run:
    """One post's run under way: its job, and its processes (to stop it)."""

    job: Job
    children: Children
    stale: PostRun | None
    kept: _Kept
    thread: threading.Thread | None = None


@dataclass(frozen=True)
class _Fits:
    """What a kept template was started with: a run forks from it when its post's are the same."""

    preload: tuple[str, ...]
    site_root: str
    env: tuple[tuple[str, str], ...]


@dataclass
class _Kept:
    """A template process kept for serve's runs, in a thread of its own: the template dies with the thread that
    started it (PR_SET_PDEATHSIG), and a run's thread ends with its run. Closed at `stop` (serve stops)."""

    fits: _Fits
    ready: threading.Event = field(default_factory=threading.Event)
    closing: threading.Event = field(default_factory=threading.Event)
    template: Template | None = None  # None: none could be started here (each run starts its own interpreter)
    notes: list[str] = field(default_factory=list)  # a preload module that failed

    thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._hold, name="run template", daemon=True)
        self.thread.start()

    def close(self, wait: float = 0.0) -> None:
        """Stop the template (a post still running from it dies with it), waiting at most `wait` seconds."""
        self.closing.set()
        if wait and self.thread is not None:
            self.thread.join(wait)

    def _hold(self) -> None:
        from site_builder.execute.template import start_template

        fits = self.fits
        try:
            self.template, self.notes = start_template(list(fits.preload), fits.site_root, dict(fits.env))
        finally:
            self.ready.set()
        self.closing.wait()
        if self.template is not None:
            self.template.close()


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
    log: Callable[[str], None] | None = None  # what serve prints (a preload module that failed)
    templates: dict[_Fits, _Kept] = field(default_factory=dict)

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
                known.running[job.rel] = self._start(job, site.preload)
            return known

    def _cached(self, job: Job) -> PostRun | None:
        assert self.store is not None
        run = self.store.load(job)
        if run is not None:
            run.cached, run.reason = True, "cached"
        return run

    def _start(self, job: Job, preload: list[str]) -> Running:
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
        self.running[job.rel] = mine = _Run(job, Children(), stale, self._template(job, preload))
        mine.thread = threading.Thread(target=self._run, args=(mine,), name=f"run {job.rel}", daemon=True)
        mine.thread.start()
        return Running(lines, stale)

    def _template(self, job: Job, preload: list[str]) -> _Kept:
        """The template the job's run forks from, with site.yml's `exec: preload` as the build read it (started now,
        in its thread, when none fits yet)."""
        root = job.site_root or job.source_dir
        key = _Fits(tuple(preload), root, tuple(sorted(job.env.items())))
        kept = self.templates.get(key)
        if kept is None:
            used = {id(run.kept) for run in self.running.values()}
            for old, other in list(self.templates.items()):  # settings changed: those no run uses go
                if id(other) not in used:
                    other.close()
                    del self.templates[old]
            self.templates[key] = kept = _Kept(key)
            kept.start()
        return kept

    def _stop(self, rel: str) -> None:
        """Stop the post's run under way, if any: its thread sees it is no longer the post's run and drops it."""
        now = self.running.pop(rel, None)
        if now is not None:
            now.children.stop_all()

    def _run(self, mine: _Run) -> None:
        from site_builder.execute.session import run_job

        assert self.slots is not None
        self.built.wait(timeout=30)
        mine.kept.ready.wait(timeout=60)
        if mine.kept.notes and self.log is not None:
            notes, mine.kept.notes = mine.kept.notes, []
            for note in notes:
                self.log(f"warning: site.yml: {note}")
        with self.slots:
            if self._current(mine):
                run = run_job(mine.job, children=mine.children, template=mine.kept.template)
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
        for kept in self.templates.values():
            kept.close(wait=max(0.5, deadline - time.monotonic()))
