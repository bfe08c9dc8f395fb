"""The build: load -> parse -> execute -> render -> assemble -> write, each stage a module of its own.

`build_site` is the whole pipeline as the command line runs it. The dev server runs the same steps through
`build.incremental`, which adds what only a long-running process can do (a quick path for edited posts, the edited
pages written first, feeds last).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.build.context import BuildContext, Log
from site_builder.build.posts import SitePosts, read_posts
from site_builder.build.search import search_in, update_search
from site_builder.build.state import CACHE_FILE, BuildState, CacheDamaged, LastBuild, damaged
from site_builder.build.unchanged import (
    SUMMARY_FILE,
    Summary,
    forget_summary,
    nothing_to_do,
    save_summary,
    site_print,
    unchanged_since,
)
from site_builder.errors import SiteWarning, StrictFailure
from site_builder.execute.options import ExecOptions
from site_builder.load import Include

if TYPE_CHECKING:
    from site_builder.build.cachesave import EarlySave
    from site_builder.build.publish import Written
    from site_builder.execute.results import PostRun
    from site_builder.write.output import OutputWriter


@dataclass
class BuildResult:
    """What a build did, for the CLI's summary line, the dev server and the benchmark."""

    output: Path
    posts: int  # published posts (the pages folder's pages: `standalone`)
    fragments_rendered: int
    pages: int  # files in the output
    pages_rendered: int  # pages whose template was rendered (the others had not changed)
    files_changed: int  # files written, replaced or removed
    seconds: float
    timings: dict[str, float]
    runs: dict[str, PostRun]
    changed_paths: list[str]
    state: BuildState
    images: int = 0  # local images processed (0 when every variant was already in the output)
    warnings: list[SiteWarning] = field(default_factory=list)
    files_removed: int = 0  # outputs of the last build this one no longer makes
    finish: Callable[[Callable[[], bool]], list[str]] | None = None  # serve: writes the feeds late, see incremental
    drafts_left_out: int = 0
    future_left_out: int = 0
    standalone: int = 0  # published pages of the pages folder (`content/pages/about.md`)


def build_site(
    root: Path,
    output: Path,
    log: Log = print,
    exec_options: ExecOptions | None = None,
    keep_going: bool = False,
    state: BuildState | None = None,
    strict: bool = False,
    include: Include | None = None,
    base_url: str | None = None,
) -> BuildResult:
    """Build the site at `root` into `output`; on any error the previous output is left as it was.

    `state` is what a previous build left, kept in memory by the caller; None reads it from `.cache/` (and saves it
    there after the build). `strict`: any warning stops the build before its output is committed. `include`: drafts and
    posts dated in the future, when asked for. `base_url` replaces site.yml's `url` (a preview elsewhere)."""
    ctx = BuildContext.open(root, output, state, keep_going, log, strict, include, base_url)
    summary = unchanged_since(ctx)
    if summary is not None:
        return summary_build(ctx, summary)
    try:
        return run_stages(ctx, exec_options or ExecOptions())
    except CacheDamaged as exc:  # the cache's HTML is read only when needed: damaged, it is dropped, and all built
        ctx.state.path.unlink(missing_ok=True)
        ctx = BuildContext.open(root, output, None, keep_going, log, strict, include, base_url)
        ctx.warnings.insert(0, damaged(exc))
        return run_stages(ctx, exec_options or ExecOptions())


def run_stages(ctx: BuildContext, exec_options: ExecOptions) -> BuildResult:
    """The stages in order."""
    with ctx.warnings_on_stop():
        site = read_posts(ctx, exec_options)  # stages 1-4: load, parse, execute, render
        with failures_beside(site.runs):  # --strict with --keep-going: the failures too
            ctx.warnings += site.warnings()
            ctx.timings.lap("load+render")
            fingerprint, found = ("" if ctx.warm else site_print(ctx, site)), len(ctx.warnings)  # serve: never idle
            if nothing_to_do(ctx, fingerprint):
                return unchanged_build(ctx, site)
            from site_builder.assemble import assemble  # stages 5 and 6: a build with nothing to do loads neither
            from site_builder.build.cachesave import early_save
            from site_builder.build.publish import open_writer, write_site

            with early_save(ctx.state, ctx.warm) as saver:  # the posts and fragments, written while the pages are made
                model = assemble(ctx.config, site.posts, site.rendered, ctx.site_key, ctx.state.warm.memo())
                ctx.warnings += model.warnings
                writer = open_writer(ctx)
                ctx.timings.lap("assemble")
                written = commit_or_abort(ctx, writer, lambda: write_site(ctx, writer, model, site.rendered))
                update_search(ctx, changed=bool(written.files_changed) and not writer.completed)
            new_print = ctx.state.site_print != fingerprint
            ctx.state.site_print, ctx.state.site_warnings = fingerprint, ctx.warnings[found:]
    return finish_build(ctx, writer, site, written, save=new_print, summarise=True, saver=saver)


@contextmanager
def failures_beside(runs: dict[str, PostRun]) -> Iterator[None]:
    """A build that --strict stops for its warnings says which code failed beside them too (with --keep-going, the
    failures would have been shown in the pages): its StrictFailure carries their lines."""
    try:
        yield
    except StrictFailure as exc:
        from site_builder.execute.report import failure_lines

        failing = [run for _, run in sorted(runs.items()) if not run.ok]
        exc.failures = [line for run in failing for line in failure_lines(run)]
        exc.failed = sum(len(run.failures) for run in failing)
        raise


def unchanged_build(ctx: BuildContext, site: SitePosts) -> BuildResult:
    """The result of a build that found nothing to do (`build.unchanged`), with the warnings of the last build."""
    ctx.warnings += ctx.state.site_warnings
    if ctx.strict and ctx.warnings:
        raise StrictFailure(ctx.warnings)
    state = ctx.state
    state.warm.last = LastBuild(site.posts, site.rendered, site.runs)
    if not (ctx.root / SUMMARY_FILE).exists():  # a cache saved by a version without summaries
        _save_summary(ctx, site)
    ctx.timings.lap("unchanged")
    update_search(ctx, changed=False)  # only when the index is missing
    return BuildResult(
        ctx.output, site.post_count, 0, len(state.pages), 0, 0, ctx.timings.total, ctx.timings.laps, site.runs, [],
        state, warnings=ctx.warnings, drafts_left_out=site.drafts_left_out, future_left_out=site.future_left_out,
        standalone=site.page_count,
    )  # fmt: skip


def summary_build(ctx: BuildContext, summary: Summary) -> BuildResult:
    """A build found unchanged from the last build's summary (`build.unchanged`), with that build's warnings. Its
    result's state is an empty one: the cache was not opened."""
    ctx.warnings += summary.warnings
    if ctx.strict and ctx.warnings:
        raise StrictFailure(ctx.warnings)
    ctx.timings.lap("unchanged")
    update_search(ctx, changed=False)  # only when the index is missing
    return BuildResult(
        ctx.output, summary.posts, 0, len(summary.pages), 0, 0, ctx.timings.total, ctx.timings.laps, {}, [],
        BuildState(ctx.root / CACHE_FILE), warnings=ctx.warnings, drafts_left_out=summary.drafts,
        future_left_out=summary.future, standalone=summary.standalone,
    )  # fmt: skip


def _save_summary(ctx: BuildContext, site: SitePosts) -> None:
    try:
        save_summary(ctx, site)
    except OSError as exc:
        ctx.log(f"warning: could not save the build cache: {exc}")


def commit_or_abort(
    ctx: BuildContext, writer: OutputWriter, write: Callable[[], Written], index: bool = True
) -> Written:
    """Run the write stage and move its files into the output; on any error remove what it staged. `index`: make
    the search index in the staged tree (serve indexes on its own, after the saves stop: `server.search`)."""
    try:
        written = write()
        if ctx.strict and ctx.warnings:
            raise StrictFailure(ctx.warnings)
        written.files_changed = writer.commit(search_in(ctx) if index else None)
    except BaseException:
        writer.abort()
        if writer.early:  # already in the output: the next build must write (or remove) them again
            ctx.state.pages = {**ctx.state.pages, **dict.fromkeys(writer.early, "")}
        raise
    ctx.timings.lap("commit")
    return written


def finish_build(
    ctx: BuildContext,
    writer: OutputWriter,
    site: SitePosts,
    written: Written,
    save: bool = False,
    summarise: bool = False,
    saver: EarlySave | None = None,
) -> BuildResult:
    """Record what the output now holds, save the state (a cold build that changed something, or `save`; by `saver`
    when it was started early) and with `summarise` its summary (`build.unchanged`), sum up."""
    state = ctx.state
    previous = set(state.pages) if state.output == str(ctx.output) else set()
    unchanged = (
        not written.files_changed and not site.fresh and state.pages == writer.keys and state.output == str(ctx.output)
    )
    state.pages, state.output, state.build_id = writer.keys, str(ctx.output), writer.build_id
    saving = not ctx.warm and (save or not unchanged or state.loaded_posts_changed)
    try:
        if saving:  # always so when `saver` was started: it is only for a one-shot build that read posts
            forget_summary(ctx)  # it describes the state saved before
            if saver is None:
                state.save()
            else:
                saver.finish(state)
    except OSError as exc:
        ctx.log(f"warning: could not save the build cache: {exc}")
    else:
        if saving and summarise:
            _save_summary(ctx, site)
    ctx.timings.lap("save cache")
    state.warm.last = LastBuild(site.posts, site.rendered, site.runs)  # for the next build with this state kept warm
    return BuildResult(
        ctx.output,
        site.post_count,
        site.fresh,
        len(writer.keys),
        written.pages_rendered,
        written.files_changed,
        ctx.timings.total,
        ctx.timings.laps,
        site.runs,
        writer.changed,
        state,
        written.images,
        ctx.warnings,
        len(previous - writer.keys.keys()),
        drafts_left_out=site.drafts_left_out,
        future_left_out=site.future_left_out,
        standalone=site.page_count,
    )
