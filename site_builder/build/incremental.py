"""The dev server's rebuild: the same stages as `build_site`, with what only a long-running process can do.

- A save that changes a few posts but not where they are listed (their text, title or summary) reads just those
  files and updates the last build's model in place (`quick_update`).
- The edited posts' pages are moved into the output first and the open pages told to reload (`on_update`),
  before lists, tags and neighbours are written.
- The feeds and the sitemap are written last, by `BuildResult.finish`, which stops early when a newer save waits.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.assemble import PostChange, SiteModel, assemble, update_posts
from site_builder.assemble.model import out_path, page_url
from site_builder.build.cachesave import early_save
from site_builder.build.context import BuildContext, Log
from site_builder.build.feeds import FeedJob, feed_jobs
from site_builder.build.pipeline import BuildResult, commit_or_abort, finish_build
from site_builder.build.posts import RunsAside, SitePosts, fragment_key, read_posts, render_unless_cached, run_aside
from site_builder.build.publish import (
    Written,
    check_raw_links,
    open_writer,
    publish_images,
    template_env,
    write_assets,
    write_site,
)
from site_builder.build.state import BuildState, LastBuild, PostRecord
from site_builder.execute.options import ExecOptions
from site_builder.load import Include, is_post_path, load_post
from site_builder.models import Post, Rendered
from site_builder.parse import parse_post
from site_builder.render import render_parsed
from site_builder.util.files import stamp_of
from site_builder.write.output import LateFile, OutputWriter, write_late
from site_builder.write.pages import write_pages

if TYPE_CHECKING:
    from site_builder.execute.results import PostRun

QUICK_MAX = 8  # more changed posts than this (a checkout, a search and replace): load them on every core
OnUpdate = Callable[[list[str]], None]


@dataclass
class Edit:
    """A post file saved with new text, its place in the lists unchanged."""

    name: str
    stamp: tuple[int, int]
    old: Post
    new: Post
    key: str
    rendered: Rendered
    fresh: bool  # rendered by this build (not found in the state)
    run: PostRun | None = None  # an executing post's run (None: not known yet, running)


@dataclass
class Quick:
    """What the quick path gives in place of stages 1-5."""

    site: SitePosts
    model: SiteModel


def rebuild(
    root: Path,
    output: Path,
    state: BuildState | None,
    changed: list[str] | None,
    on_update: OnUpdate,
    log: Log,
    include: Include | None = None,
    base_url: str | None = None,
    aside: RunsAside | None = None,
) -> BuildResult:
    """Build for the dev server, as `build --keep-going` builds (failing code is shown in its post's page).
    `changed` lists the files (relative to `root`) a watcher saw change since the build that left `state` (None:
    look at every file). `on_update(paths)` is called as soon as the edited posts' pages
    are in the output (when the output is updated in place); the feeds and sitemap are then left for
    `result.finish(cancelled)`. `aside`: where executing posts run (serve's `server.runs`), not waited for."""
    ctx = BuildContext.open(root, output, state, keep_going=True, log=log, include=include, base_url=base_url)
    ctx.aside = aside
    ctx.state.fill_or_forget(ctx.warnings)  # kept warm: every fragment's HTML at hand for the quick path
    with ctx.warnings_on_stop():
        return _rebuild(ctx, changed, on_update)


def _rebuild(ctx: BuildContext, changed: list[str] | None, on_update: OnUpdate) -> BuildResult:
    only = changed_posts(ctx, changed) if ctx.warm else None
    last, ctx.state.warm.last = ctx.state.warm.last, None  # only a build that succeeds leaves it
    quick = quick_update(ctx, only, last) if only is not None and last is not None else None
    if quick is not None:
        site, model = quick.site, quick.model
        ctx.timings.lap("load+render (quick)")
    else:
        site = read_posts(ctx, ExecOptions(), only)
        ctx.timings.lap("load+render")
    # the first build's cache, saved beside it (serve keeps later ones in memory: a warm build saves none)
    with early_save(ctx.state, ctx.warm) as saver:
        if quick is None:
            model = assemble(ctx.config, site.posts, site.rendered, ctx.site_key, ctx.state.warm.memo())
        if ctx.warm and len(ctx.state.fragments) > 2 * len(ctx.state.posts) + 100:  # edits leave old fragments
            ctx.state.prune()
        writer = open_writer(ctx)
        ctx.timings.lap("assemble")
        jobs = feed_jobs(ctx.config, model, ctx.site_key)
        written = _write(ctx, writer, model, site, jobs, on_update)
    result = finish_build(ctx, writer, site, written, saver=saver)
    if writer.incremental:
        result.finish = lambda cancelled: _write_feeds_late(ctx, jobs, cancelled)
    return result


def _write(
    ctx: BuildContext, writer: OutputWriter, model: SiteModel, site: SitePosts, jobs: list[FeedJob], on_update: OnUpdate
) -> Written:
    """Stage 6: the whole site into a new output, as `build` writes it, or the changed pages in place."""
    try:
        if not writer.incremental:
            return commit_or_abort(ctx, writer, lambda: write_site(ctx, writer, model, site.rendered), index=False)
        return commit_or_abort(
            ctx, writer, lambda: _write_in_place(ctx, writer, model, site, jobs, on_update), index=False
        )
    finally:  # gathered once the edited pages are out: every post's and fragment's list, ~10 ms at 16,000 posts
        ctx.warnings += site.warnings() + model.warnings


def _write_in_place(
    ctx: BuildContext, writer: OutputWriter, model: SiteModel, site: SitePosts, jobs: list[FeedJob], on_update: OnUpdate
) -> Written:
    """The edited posts' pages first (moved in, then `on_update`), the other pages, images and theme files; the
    feeds and sitemap stay as they are until `_write_feeds_late`."""
    for job in jobs:
        writer.keep(job.rel)
    kept = template_env(ctx)
    done = Written()
    pages = model.pages
    if site.loaded:
        first = [model.post_pages[p.permalink] for p in site.loaded if p.permalink in model.post_pages]
        # each language's first home page too: a new post, or a new date, shows there (unchanged, it is skipped)
        homes = {out_path(page_url(1, lang.prefix)) for lang in ctx.config.languages.values()}
        first += [page for page in pages if page.path in homes]
        done.pages_rendered += write_pages(writer, kept.env, ctx.theme, first, known=kept.refs)[0]
        edited = [site.rendered[p.permalink] for p in site.loaded if p.permalink in site.rendered]
        done.images = publish_images(writer, edited, ctx, done.claimed)
        moved = writer.commit_early()
        ctx.timings.lap("first pages")
        if moved:
            on_update(moved)
        seen = {id(page) for page in first}
        pages = [page for page in pages if id(page) not in seen]
    done.pages_rendered += write_pages(writer, kept.env, ctx.theme, pages, known=kept.refs)[0]
    ctx.timings.lap("pages")
    done.images += publish_images(writer, list(site.rendered.values()), ctx, done.claimed)
    ctx.timings.lap("images")
    write_assets(ctx, writer, site.rendered.values())
    check_raw_links(ctx, writer, site.rendered.values())
    return done


def _write_feeds_late(ctx: BuildContext, jobs: list[FeedJob], cancelled: Callable[[], bool]) -> list[str]:
    entries = ctx.state.feed_entries
    late = [LateFile(job.rel, job.key, partial(job.make, entries)) for job in jobs]
    return write_late(ctx.output, ctx.state.pages, late, cancelled)


def changed_posts(ctx: BuildContext, changed: list[str] | None) -> set[str] | None:
    """The post files among `changed` (named as `find_post_files` names them); None when something else changed,
    or nothing is known, and every post must be looked at."""
    if changed is None or not ctx.state.posts:
        return None
    only = set()
    for name in changed:
        path = ctx.root / name
        if not is_post_path(path, ctx.config):
            return None
        only.add(str(path))
    return only


def quick_update(ctx: BuildContext, only: set[str], last: LastBuild) -> Quick | None:
    """Read just the saved posts and update the last build's model in place; None (nothing changed in the state)
    when the save is anything else: a new, deleted or draft post, a post that starts or stops executing, a changed
    date, permalink, tags, language or translation key. An executing post takes it when its runs are made aside
    (serve): with its run when known, else as running."""
    if len(only) > QUICK_MAX or not ctx.state.warm.memo().valid_for(ctx.site_key):
        return None
    edits = _edits(ctx, only)
    if edits is None:
        return None
    found = [_position(last.posts, e.old) for e in edits]
    where = [i for i in found if i is not None]
    if len(where) != len(edits):
        return None
    model = update_posts(ctx.state.warm.memo(), ctx.site_key, [PostChange(e.old, e.new, e.rendered) for e in edits])
    if model is None:
        return None
    posts, rendered = last.posts, last.rendered
    for e, i in zip(edits, where, strict=True):
        ctx.state.posts[e.name] = PostRecord(e.stamp, e.new, e.key)
        posts[i] = e.new
        rendered[e.new.permalink] = e.rendered
    fresh = sum(1 for e in edits if e.fresh)
    runs = dict(last.runs)
    for e in edits:
        if e.new.execute:
            runs.pop(e.new.rel, None)
            if e.run is not None:
                runs[e.new.rel] = e.run
    return Quick(SitePosts(posts, rendered, fresh, runs, [e.new for e in edits]), model)


def _position(posts: list[Post], old: Post) -> int | None:
    """Where `old` is in the last build's posts, which are in file path order: found by bisection (a dict of
    16,000 posts' places, made on every save, cost the edited page 1.5 ms)."""
    i = bisect.bisect_left(posts, str(old.source), key=lambda p: str(p.source))
    return i if i < len(posts) and posts[i] is old else None


def _edits(ctx: BuildContext, only: set[str]) -> list[Edit] | None:
    """The saved posts read again and rendered; None when one of them cannot take the quick path."""
    edits = []
    for name in sorted(only):
        hit = ctx.state.posts.get(name)
        try:
            stamp = stamp_of(name)
        except FileNotFoundError:
            if hit is None:
                continue  # came and went
            return None
        if hit is None:
            return None  # a new post
        executing = hit.post.execute  # looked at again even unchanged: its run may have ended (`server.runs`)
        if hit.stamp == stamp and hit.key in ctx.state.fragments and not executing:
            continue  # as it was
        if (executing and ctx.aside is None) or not ctx.include.publishes(hit.post):
            return None
        post = hit.post if hit.stamp == stamp else load_post(Path(name), ctx.config)
        if post.execute != executing or not ctx.include.publishes(post):
            return None
        run = None
        if executing:
            key, done, run = run_aside(ctx, post)
            if not key:
                return None
        else:
            key = fragment_key(post, ctx.math_macros)
            done = render_unless_cached(ctx, post, key)
        if done is not None:
            ctx.state.fragments[key] = done  # kept even if this returns None: the full way finds it
        edits.append(Edit(name, stamp, hit.post, post, key, done or ctx.state.fragments[key], done is not None, run))
    return edits


def warm_up(state: BuildState, content_dir: Path) -> None:
    """Compile the templates and render a few posts again in this process, so that the first save does not pay for
    loading lexers, the math converter and templates (the first build may have rendered in worker processes)."""
    try:
        if state.warm.env is not None:
            for name in ("post.html", "list.html", "archive.html", "tags.html"):
                state.warm.env.env.get_template(name)
        done = 0
        for record in itertools.islice(state.posts.values(), 200):
            fragment = state.fragments.get(record.key)
            if (
                fragment is None
                or fragment.images
                or record.post.execute
                or not (fragment.math_count or 'class="highlight' in fragment.html)
            ):
                continue
            render_parsed(parse_post(record.post, content_dir))
            done += 1
            if done == 3:
                break
    except Exception:  # only a head start: the real build reports any problem
        pass
