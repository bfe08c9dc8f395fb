"""Stage 3, execute: run the code blocks of `execute: true` posts in isolated sessions, verify, cache.

As Sybil splits it: blocks (the regions, from the parse stage's tokens) -> job (settings, fingerprint) ->
store (cached runs) -> executors (local pool or Ray) -> session (one post in the sandbox, the runner its child)
-> results -> report. Import what you need from those modules; this one only holds `run_posts`, and imports
them when posts do execute (a site without executing posts does not pay for them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from site_builder.config.siteexec import SiteExec
    from site_builder.errors import SiteWarning
    from site_builder.execute.executors import Started
    from site_builder.execute.options import ExecOptions
    from site_builder.execute.results import PostRun
    from site_builder.models import ParsedPost


def run_posts(
    parsed: list[ParsedPost],
    cache_dir: Path,
    options: ExecOptions,
    site: SiteExec | None = None,
    on_run: Callable[[str, PostRun], None] | None = None,
    started: Started | None = None,
    warn: Callable[[SiteWarning], None] | None = None,
) -> dict[str, PostRun]:
    """Run every executing post (from the cache when unchanged); returns runs by post path. `site`: site.yml's
    `exec:` (variables passed by name, network, preload). `on_run` is told each run as soon as it is known (the
    pytest plugin reports a post's blocks while others still run). `started`: a template process started earlier
    for the site (run_all), which the run closes. `warn` is given what the command's problem list should hold (a
    preload module that failed); without it, that is printed as progress."""
    from site_builder.execute.executors import run_all
    from site_builder.execute.job import Job, make_job
    from site_builder.execute.report import Progress
    from site_builder.execute.store import RunStore

    store = RunStore(cache_dir)
    executing = [p for p in parsed if p.post.execute]
    jobs = [make_job(p, site) for p in executing]
    runs: dict[str, PostRun] = {}
    todo = []
    for job in jobs:
        cached = None if options.rerun else store.load(job)
        if cached is not None:
            cached.cached, cached.reason = True, "cached"
            runs[job.rel] = cached
            _tell(on_run, cached, executing)
        else:
            todo.append(job)
    if not todo:
        return _finish(runs, options, executing)
    reasons = store.reasons(todo, options.rerun)

    def done(job: Job, run: PostRun) -> None:
        run.reason = reasons[job.rel]
        runs[job.rel] = run
        store.save(job, run)
        _tell(on_run, run, executing)

    progress = Progress(len(todo), options.progress)
    try:
        notes = run_all(todo, options, progress, done, site.preload if site else [], started)
    finally:
        progress.close()
        store.flush()
    from site_builder.errors import SiteWarning

    for note in notes:
        if warn is not None:
            warn(SiteWarning(note, "site.yml"))
        elif options.progress is not None:
            options.progress(f"warning: site.yml: {note}")
    return _finish(runs, options, executing)


def _tell(on_run: Callable[[str, PostRun], None] | None, run: PostRun, posts: list[ParsedPost]) -> None:
    if on_run is not None:
        run.cells = next((p.post.cells for p in posts if p.post.rel == run.rel), None)
        on_run(run.rel, run)


def _finish(runs: dict[str, PostRun], options: ExecOptions, posts: list[ParsedPost]) -> dict[str, PostRun]:
    """The runs as callers get them: each with its post's cell map (a notebook's; never stored with the run). What
    a run could not do as asked is its `problems()`: the caller's problem list holds them with the other warnings."""
    for parsed in posts:
        if parsed.post.rel in runs:
            runs[parsed.post.rel].cells = parsed.post.cells
    return runs
