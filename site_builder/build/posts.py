"""Stages 1-4 for every post: load -> parse -> execute -> render, each post read again only when its file changed.

Posts that do not execute go through load, parse and render in one pass of forked workers (a post's tokens never
cross a process boundary: pickling them would cost more than parsing). Executing posts are loaded by the same
workers, then parsed here, run (stage 3), and rendered from the same tokens with their results.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from site_builder.build.context import BuildContext
from site_builder.build.state import PostRecord, Stamp
from site_builder.errors import ExecutionFailed, SiteError, SiteErrors, SiteWarning
from site_builder.execute.options import ExecOptions
from site_builder.load import find_post_names, load_post, select_posts
from site_builder.models import RENDER_VERSION, ParsedPost, Post, Rendered
from site_builder.util.files import file_stamp, stamp_of
from site_builder.util.hashing import content_key
from site_builder.util.parallel import fork_map
from site_builder.util.paths import relative_text

if TYPE_CHECKING:
    from site_builder.config.siteexec import SiteExec
    from site_builder.execute.results import PostRun
    from site_builder.render import FenceHook

EXEC_CACHE = Path(".cache") / "exec"
R = TypeVar("R")
PARSED_AHEAD = 1 << 20  # characters of Markdown a worker parses before rendering them (~12 MiB of tokens)


@dataclass
class Loaded:
    """One post file after this build's load pass."""

    post: Post
    stamp: Stamp
    key: str  # fragment key ("" for an executing post until its code ran)
    rendered: Rendered | None  # a fragment rendered by this build; None when the cache holds it


@dataclass
class ToRead:
    """A post file the cache does not hold as it is now; `stamp` None: not looked at yet (a file the state does not
    know is stat'ed by the process that reads it: one stat and one Path fewer on the core before the fork)."""

    name: str
    stamp: Stamp | None


@dataclass
class SitePosts:
    """What stages 1-4 give the assemble stage."""

    posts: list[Post]  # published posts, in file path order
    rendered: dict[str, Rendered]  # their fragments, by permalink
    fresh: int  # published posts rendered by this build (the others' fragments came from the state)
    runs: dict[str, PostRun]  # executing posts' runs, by post path
    loaded: list[Post]  # posts read from disk by this build
    drafts_left_out: int = 0  # not published: drafts (build with --drafts)
    future_left_out: int = 0  # not published: dated after now (build with --future)

    @property
    def post_count(self) -> int:
        """Published posts, the pages of the pages folder (`content/pages/`) not counted."""
        return sum(not p.page for p in self.posts)

    @property
    def page_count(self) -> int:
        """Published pages of the pages folder."""
        return sum(p.page for p in self.posts)

    def warnings(self) -> list[SiteWarning]:
        """The posts' problems that do not stop the build: their front matter's, their fragments', and what their
        code's runs could not do as asked (network not blocked, a Ray worker that died)."""
        found = [w for p in self.posts for w in p.warnings] + [w for r in self.rendered.values() for w in r.warnings]
        return found + [w for run in self.runs.values() for w in run.problems()]


def fragment_key(post: Post, macros: tuple[tuple[str, str], ...] = ()) -> str:
    """A fragment depends on the Markdown, (through local images) on where the post is and is published, and on
    site.yml's `math_macros`."""
    extra = (repr(macros),) if macros else ()  # no macros: the key fragments had before there were any
    return content_key(RENDER_VERSION, post.body, str(post.source.parent), post.permalink, *extra)


def read_posts(ctx: BuildContext, options: ExecOptions, only: set[str] | None = None) -> SitePosts:
    """Load, parse, execute and render every post (only changed files are read, on every core).

    With `only` (post file paths, from a caller that watches the files) just those files are looked at: every
    other post is taken from the state as it is, without listing or statting the posts folder."""
    known, todo = _scan(ctx, only)
    if todo:  # the parser and renderer, imported (once) before the workers fork; a build that reads no post never is
        import site_builder.render  # noqa: F401
    outcomes = fork_map(lambda chunk: _read_batch(ctx, chunk), todo, min_per_worker=60, aside=_next_stages)
    loaded = [r for r in outcomes if isinstance(r, Loaded)]
    results = sorted(known + loaded, key=lambda r: str(r.post.source))
    errors = [SiteError(p.message, p.file, p.line) for p in outcomes if isinstance(p, LoadProblem)]
    try:
        try:
            selection = select_posts([r.post for r in results], ctx.include)
        except SiteErrors as exc:
            errors += exc.errors
        if errors:  # every post that cannot be read, every clash: all at once
            raise SiteErrors(errors)
        posts = selection.posts
        runs = _execute(ctx, results, {id(p) for p in posts}, options)
    except SiteError:  # the build stops: what the posts read so far warn about is shown with the errors
        fragments = [r.rendered or ctx.state.fragments.get(r.key) for r in results]
        ctx.warnings += [w for r in results for w in r.post.warnings] + [w for f in fragments if f for w in f.warnings]
        raise
    published = {id(p) for p in posts}
    fresh = 0
    for r in results:
        if r.rendered is not None:
            ctx.state.fragments[r.key] = r.rendered
            fresh += id(r.post) in published  # drafts are rendered too, but not published
    ctx.state.loaded_posts_changed = bool(todo) or len(results) != len(ctx.state.posts)
    ctx.state.posts = {str(r.post.source): PostRecord(r.stamp, r.post, r.key) for r in results}
    rendered = {r.post.permalink: ctx.state.fragments[r.key] for r in results if id(r.post) in published}
    return SitePosts(posts, rendered, fresh, runs, [r.post for r in loaded], selection.drafts, selection.future)


def _next_stages() -> None:
    """What assembling and writing the site import (~30 ms), imported while a worker renders posts."""
    import site_builder.assemble
    import site_builder.build.cachesave
    import site_builder.build.publish  # noqa: F401


def _scan(ctx: BuildContext, only: set[str] | None) -> tuple[list[Loaded], list[ToRead]]:
    """The posts the state holds as they are on disk, and the files to read."""
    known: list[Loaded] = []
    names: list[str] = []
    if only is None:
        names = find_post_names(ctx.config, ctx.warnings)
    else:
        for name, record in ctx.state.posts.items():
            if name in only:
                continue
            if record.key in ctx.state.fragments:
                known.append(Loaded(record.post, record.stamp, record.key, None))
            else:
                names.append(str(record.post.source))
        names += [name for name in sorted(only) if os.path.isfile(name)]
    todo = []
    for name in names:
        hit = ctx.state.posts.get(name)
        if hit is None and only is None:  # nothing to compare with: the process that reads it takes its stamp
            todo.append(ToRead(name, None))
            continue
        try:
            stamp = stamp_of(name)
        except FileNotFoundError:
            if only is None:  # listed, then removed: the process that reads it says so (`_load`)
                todo.append(ToRead(name, None))
            continue  # else deleted since the watcher saw it: the next event says so
        fragment = ctx.state.fragments.get(hit.key) if hit is not None and hit.stamp == stamp else None
        if hit is not None and fragment is not None and images_unchanged(fragment):
            known.append(Loaded(hit.post, stamp, hit.key, None))
        else:
            todo.append(ToRead(name, stamp))
    return known, todo


@dataclass
class Running:
    """An executing post whose run is under way (serve): its executed blocks' first lines, and its last run moved
    to them (`running.stale_run`), shown stale meanwhile, or None."""

    lines: list[int]
    stale: PostRun | None


@dataclass
class RunsKnown:
    """What serve knows of its executing posts' runs: finished ones, by post path, and those still running."""

    runs: dict[str, PostRun]
    running: dict[str, Running]


class RunsAside(Protocol):
    """Runs made beside the build (serve's `server.runs`): the build takes the runs known now and renders the other
    posts as running; each is built again when its run ends."""

    def lookup(self, parsed: list[ParsedPost], site: SiteExec) -> RunsKnown: ...


@dataclass
class LoadProblem:
    """A post file this build cannot read (a plain record: it may come back from a worker process)."""

    message: str
    file: str | None
    line: int | None

    @classmethod
    def of(cls, exc: SiteError) -> LoadProblem:
        return cls(exc.message, str(exc.file) if exc.file else None, exc.line)


def _read_batch(ctx: BuildContext, batch: Sequence[ToRead]) -> list[Loaded | LoadProblem]:
    """Stages 1, 2 and 4 for a batch of post files, a stage at a time over the whole batch (load every post, then
    parse, then render), not a post at a time through the three: each stage's code stays warm in the processor's
    caches, ~10% less CPU a post (527 -> 469 us, best of six, 2,000 of the bench's posts)."""
    from site_builder.parse import parse_post

    read = [_load(ctx, item) for item in batch]
    fresh = [(i, r) for i, r in enumerate(read) if isinstance(r, Loaded) and r.key and not _cached(ctx, r.key)]
    for group in _by_size(fresh):  # tokens take ~12x their Markdown: long posts, fewer at a time
        parsed = {i: _guarded(parse_post, r.post, ctx.content_dir, ctx.math_macros) for i, r in group}
        for i, r in group:
            tokens = parsed.pop(i)  # a post's tokens go once it is rendered, not with the group
            done = tokens if isinstance(tokens, LoadProblem) else _guarded(render_fragment, tokens, r.key)
            if isinstance(done, LoadProblem):
                read[i] = done
            else:
                r.rendered = done
    return read


def _by_size(posts: list[tuple[int, Loaded]], limit: int = PARSED_AHEAD) -> list[list[tuple[int, Loaded]]]:
    """`posts` in groups of at most `limit` characters of Markdown (a longer post is a group of its own)."""
    groups: list[list[tuple[int, Loaded]]] = []
    size = limit
    for item in posts:
        length = len(item[1].post.body)
        if size + length > limit:
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += length
    return groups


def _load(ctx: BuildContext, item: ToRead) -> Loaded | LoadProblem:
    """Stage 1 for one file: the post, its stamp and its fragment's key (an executing post's key comes once its
    code ran)."""
    try:
        stamp = stamp_of(item.name) if item.stamp is None else item.stamp  # as `_scan` takes it: before reading
        post = load_post(Path(item.name), ctx.config)
    except SiteError as exc:
        return LoadProblem.of(exc)
    except FileNotFoundError:  # listed, then removed (an editor's swap, a checkout) before this process read it
        rel = relative_text(Path(item.name), ctx.config.root)
        return LoadProblem("the file was removed while the site was being built; build again", rel, None)
    return Loaded(post, stamp, "" if post.execute else fragment_key(post, ctx.math_macros), None)


def _guarded(stage: Callable[..., R], *args: Any) -> R | LoadProblem:
    """`stage(*args)`, or the problem that stops its post (the batch's other posts go on)."""
    try:
        return stage(*args)
    except SiteError as exc:
        return LoadProblem.of(exc)


def _execute(ctx: BuildContext, results: list[Loaded], published: set[int], options: ExecOptions) -> dict[str, PostRun]:
    """Stage 3: run the published executing posts (cached runs are reused), then render them with their results.
    With `ctx.aside` (serve) the runs are made beside the build: a post whose run is not known yet is rendered as
    running."""
    executing = [r.post for r in results if id(r.post) in published and r.post.execute]
    if not executing:
        return {}
    from site_builder.execute import run_posts  # imported when a post executes
    from site_builder.execute.report import failure_lines
    from site_builder.parse import parse_post

    parsed = {id(post): parse_post(post, ctx.content_dir, ctx.math_macros) for post in executing}
    if ctx.aside is not None:
        known = ctx.aside.lookup(list(parsed.values()), ctx.config.exec)
    else:
        known = RunsKnown(
            run_posts(list(parsed.values()), ctx.root / EXEC_CACHE, options, ctx.config.exec, warn=ctx.warnings.append),
            {},
        )
    runs = known.runs
    failed = [run for run in runs.values() if not run.ok]
    if failed and not ctx.keep_going:
        lines = [line for run in failed for line in failure_lines(run)]
        count = sum(len(run.failures) for run in failed)
        raise ExecutionFailed(lines, failed[0].rel, failed[0].failures[0].line, count)
    for r in results:
        if id(r.post) in parsed:
            r.key, r.rendered = _render_run(ctx, r.post, parsed[id(r.post)], known) or (r.key, r.rendered)
    return runs


def run_aside(ctx: BuildContext, post: Post) -> tuple[str, Rendered | None, PostRun | None]:
    """Serve's quick path for one executing post (`ctx.aside` is set): its fragment key, its fragment (None when
    the state holds it under that key), and its run when known (else it is running)."""
    from site_builder.parse import parse_post

    assert ctx.aside is not None
    parsed = parse_post(post, ctx.content_dir, ctx.math_macros)
    known = ctx.aside.lookup([parsed], ctx.config.exec)
    key, rendered = _render_run(ctx, post, parsed, known) or ("", None)
    return key, rendered, known.runs.get(post.rel)


def _render_run(
    ctx: BuildContext, post: Post, parsed: ParsedPost, known: RunsKnown
) -> tuple[str, Rendered | None] | None:
    """An executing post's fragment key and fragment (None: the state holds it) with its run, or as running;
    None when neither is known."""
    from site_builder.render import exec_fence_hook

    run, running = known.runs.get(post.rel), known.running.get(post.rel)
    fragment = fragment_key(post, ctx.math_macros)
    if run is not None:
        key = content_key(fragment, run.key, repr(run.failures), str(ctx.keep_going))
        hook = exec_fence_hook(run, ctx.keep_going)
    elif running is not None:
        from site_builder.running import running_fence_hook

        key = content_key(fragment, "running", repr(running.stale))
        hook = running_fence_hook(running.lines, running.stale)
    else:
        return None
    return key, render_unless_cached(ctx, post, key, hook, parsed)


def render_unless_cached(
    ctx: BuildContext, post: Post, key: str, hook: FenceHook | None = None, parsed: ParsedPost | None = None
) -> Rendered | None:
    """Stages 2 and 4 for one post: a fresh fragment, or None when the state holds a valid one under `key`.

    The fragment's own key (for page keys) adds the stamps of the images it shows to `key`."""
    if _cached(ctx, key):
        return None
    from site_builder.parse import parse_post

    return render_fragment(parsed or parse_post(post, ctx.content_dir, ctx.math_macros), key, hook)


def _cached(ctx: BuildContext, key: str) -> bool:
    """The state holds a valid fragment under `key`."""
    done = ctx.state.fragments.get(key)
    return done is not None and images_unchanged(done)


def render_fragment(parsed: ParsedPost, key: str, hook: FenceHook | None = None) -> Rendered:
    """Stage 4 for one post; the fragment's own key (for page keys) adds the stamps of the images it shows to `key`."""
    from site_builder.render import render_parsed

    rendered = render_parsed(parsed, hook)
    if rendered.images or rendered.unshown:
        stamps = [(u.source, u.stamp) for u in rendered.images] + rendered.unshown
        key = content_key(key, *(f"{path}:{stamp}" for path, stamp in stamps))
    rendered.key = key
    return rendered


def images_unchanged(rendered: Rendered) -> bool:
    """A cached fragment holds its images' sizes (or a note for those it could not show): it stays valid while
    every image file is as it was."""
    return all(file_stamp(use.source) == use.stamp for use in rendered.images) and all(
        file_stamp(path) == stamp for path, stamp in rendered.unshown
    )
