"""The build pipeline: load -> parse/render (cached, parallel) -> assemble -> write, atomically."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from collections import ChainMap
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from site_builder import __version__
from site_builder.assemble import assemble, feed_part, feed_path, update_posts
from site_builder.cache import BuildCache
from site_builder.check import EXEC_CACHE
from site_builder.config import SiteConfig, load_config
from site_builder.errors import ExecutionFailed, SiteError
from site_builder.execute import ExecOptions, executes, failure_lines, run_posts
from site_builder.feed import atom_feed, robots, sitemap
from site_builder.images import IMAGE_VERSION, ImageError, probe, process_all, variant_outputs
from site_builder.load import check_posts, find_post_files, is_post_path, load_post
from site_builder.models import ImageUse, Post, Rendered
from site_builder.render import RENDER_VERSION, exec_fence_hook, pygments_css, render_post
from site_builder.util.hashing import content_key
from site_builder.util.parallel import fork_map
from site_builder.write import (
    OutputWriter,
    Theme,
    check_output_dir,
    find_theme,
    make_env,
    ui_strings,
    write_late,
    write_pages,
)

CACHE_FILE = Path(".cache") / "build.pickle"
IMAGE_CACHE = Path(".cache") / "images"


@dataclass
class BuildResult:
    """What a build did, for the CLI's summary line and the benchmark."""

    output: Path
    posts: int
    fragments_rendered: int
    pages: int
    pages_rendered: int
    files_changed: int
    seconds: float
    timings: dict
    runs: dict
    changed_paths: list[str]
    cache: BuildCache
    images: int = 0  # local images processed (0 when every variant was already in the output)
    finish: Callable[..., list[str]] | None = None  # with on_update: writes the feeds and sitemap, see write_late


def _theme_digest(theme: Theme) -> str:
    """UI strings and other theme files every page depends on (static files are copied; templates are keyed per
    page by `write.template_digests`, so a template edit rewrites only the pages using it)."""
    h = hashlib.sha1(repr([str(d) for d in theme.dirs]).encode())  # a theme folder appearing changes the loader
    for d in theme.dirs:
        for path in sorted(d.rglob("*")):
            if path.is_file() and path.relative_to(d).parts[0] not in ("static", "templates"):
                st = path.stat()
                h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _site_key(config: SiteConfig, theme: Theme) -> str:
    settings = {k: v for k, v in vars(config).items() if k != "root"}
    return content_key(__version__, RENDER_VERSION, repr(sorted(settings.items(), key=str)), _theme_digest(theme))


def fragment_key(post: Post) -> str:
    """A fragment depends on the Markdown, and (through local images) on where the post is and is published."""
    return content_key(RENDER_VERSION, post.body, str(post.source.parent), post.permalink)


def load_and_render(
    config: SiteConfig,
    cache: BuildCache,
    exec_options: ExecOptions | None = None,
    keep_going: bool = False,
    only: set[str] | None = None,
) -> tuple[list[Post], dict[str, Rendered], int, dict, list[Post]]:
    """Load every post, run the executing ones, render fragments; only changed files are read, in parallel.

    With `only` (post file paths, from a caller that watches the files) just those files are looked at: every
    other post is taken from the cache as it is, without listing or statting the posts folder. Returns the
    published posts, their fragments by permalink, how many fragments were rendered, the runs of executing
    posts and the posts read from disk by this build.
    """
    known, todo = [], []
    content_dir = config.root / "content"
    if only is None:
        paths = find_post_files(config)
    else:
        paths = []
        for name, (stamp, post, key) in cache.posts.items():
            if name in only:
                continue
            if key in cache.fragments:
                known.append((post, stamp, key, None))
            else:
                paths.append(post.source)
        paths += [Path(name) for name in sorted(only) if os.path.isfile(name)]
    for path in paths:
        try:
            st = path.stat()
        except FileNotFoundError:
            if only is None:
                raise
            continue  # deleted since the watcher saw it: the next event says so
        stamp = (st.st_mtime_ns, st.st_size)
        hit = cache.posts.get(str(path))
        if hit and hit[0] == stamp and hit[2] in cache.fragments and _images_unchanged(cache.fragments[hit[2]]):
            known.append((hit[1], stamp, hit[2], None))
        else:
            todo.append((path, stamp))

    def work(chunk: list[tuple[Path, tuple]]) -> list[tuple[Post, tuple, str, Rendered | None]]:
        out = []
        for path, stamp in chunk:
            post = load_post(path, config)
            key = "" if executes(post) else fragment_key(post)  # executing posts are rendered after their code ran
            rendered = _render_unless_cached(post, key, cache, content_dir) if key else None
            out.append((post, stamp, key, rendered))
        return out

    loaded = fork_map(work, todo, min_per_worker=60)
    results = known + loaded
    results.sort(key=lambda r: str(r[0].source))
    posts = check_posts([post for post, _, _, _ in results])
    runs = run_posts([p for p in posts if executes(p)], config.root / EXEC_CACHE, exec_options or ExecOptions())
    failed = [run for run in runs.values() if not run.ok]
    if failed and not keep_going:
        raise ExecutionFailed(
            [line for run in failed for line in failure_lines(run)], failed[0].rel, failed[0].failures[0][0]
        )
    for i, (post, stamp, key, rendered) in enumerate(results):
        run = runs.get(post.rel)
        if run is not None:
            key = content_key(fragment_key(post), run.key, repr(run.failures), str(keep_going))
            rendered = _render_unless_cached(post, key, cache, content_dir, exec_fence_hook(run, keep_going))
            results[i] = (post, stamp, key, rendered)
    fresh = 0
    for _, _, key, rendered in results:
        if rendered is not None:
            cache.fragments[key] = rendered
            fresh += 1
    cache.loaded_posts_changed = bool(todo) or len(results) != len(cache.posts)
    cache.posts = {str(post.source): (stamp, post, key) for post, stamp, key, _ in results}
    published = {id(p) for p in posts}
    return (
        posts,
        {p.permalink: cache.fragments[k] for p, _, k, _ in results if id(p) in published},
        fresh,
        runs,
        [post for post, _, _, _ in loaded],
    )


def _render_unless_cached(post: Post, key: str, cache: BuildCache, content_dir: Path, hook=None) -> Rendered | None:
    """A fresh fragment for `post`, or None when the cache holds a valid one under `key`.

    The fragment's own key (for page keys) adds the stamps of the images it shows to `key`."""
    done = cache.fragments.get(key)
    if done is not None and _images_unchanged(done):
        return None
    rendered = render_post(post, hook, content_dir)
    if rendered.images:
        key = content_key(key, *(f"{u.source}:{u.stamp}" for u in rendered.images))
    rendered.key = key
    return rendered


def _images_unchanged(rendered: Rendered) -> bool:
    """A cached fragment holds its images' sizes: it stays valid while every image file is as it was."""
    return all(_stamp(use.source) == use.stamp for use in rendered.images)


def publish_images(
    writer: OutputWriter, rendered: list[Rendered], cache_dir: Path, claimed: dict[str, ImageUse] | None = None
) -> int:
    """Stage every local image's WebP variants and its original; only images whose outputs changed are worked on.

    Returns how many images were processed (0 when the output already holds them all). `claimed` (output path ->
    image) is shared by calls that publish one build's images in parts: an image an earlier call published is skipped.
    """
    claimed = {} if claimed is None else claimed
    uses: dict[str, ImageUse] = {}
    for r in rendered:
        for use in r.images:
            if use.out not in claimed:
                uses.setdefault(use.out, use)
    todo: list[tuple[ImageUse, list[tuple[str, int | None]]]] = []
    for use in uses.values():
        stem = f"{use.source}:{use.stamp}:{IMAGE_VERSION}"
        outputs = [(use.out, None), *variant_outputs(use.out, use.widths)]
        for rel, _ in outputs:
            other = claimed.setdefault(rel, use)
            if other is not use:
                raise SiteError(
                    f"images {os.path.basename(other.source)} and {os.path.basename(use.source)} would both "
                    f"publish {rel} (rename one)",
                    use.rel,
                    use.line,
                )
        wanted = [(rel, w) for rel, w in outputs if writer.needs(rel, f"image:{stem}:{w}")]
        if wanted:
            todo.append((use, wanted))
    if not todo:
        return 0
    infos = [probe(use.source) if _stamp(use.source) == use.stamp else None for use, _ in todo]
    results = process_all([i for i in infos if i is not None], cache_dir) if any(infos) else []
    it = iter(results)
    for (use, wanted), info in zip(todo, infos, strict=False):
        result = next(it) if info is not None else ImageError("changed while the site was building; build again")
        if isinstance(result, ImageError):
            raise SiteError(f"image {os.path.basename(use.source)}: {result}", use.rel, use.line)
        for rel, width in wanted:
            writer.copy_file(rel, result.original if width is None else result.variants[width])
    return len(todo)


def _stamp(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


QUICK_MAX = 8  # more changed posts than this (a checkout, a search and replace): load them on every core


def _quick_rebuild(config: SiteConfig, cache: BuildCache, only: set[str], site_key: str, state: tuple) -> tuple | None:
    """A save that changed some posts but not where they are listed (their text, title or summary): read just
    those files and update the last build's model in place. Returns what `load_and_render` and `assemble` would
    have, or None (nothing changed in the cache) when the save is anything else: a new, deleted, executing or
    draft post, a changed date, permalink, tags, language or translation key. `state` is what the last build
    (which succeeded) left: its published posts, their fragments and the runs of executing posts."""
    memo = cache.memo.get("assemble")
    if memo is None or len(only) > QUICK_MAX:
        return None
    posts, rendered, runs = state
    content_dir = config.root / "content"
    todo, fresh = [], 0
    for name in sorted(only):
        hit = cache.posts.get(name)
        try:
            st = os.stat(name)
        except FileNotFoundError:
            if hit is None:
                continue  # came and went
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if hit is None:
            return None  # a new post
        if hit[0] == stamp and hit[2] in cache.fragments:
            continue  # as it was
        old = hit[1]
        if executes(old) or old.meta.get("draft"):
            return None
        post = load_post(Path(name), config)
        if executes(post) or post.meta.get("draft"):
            return None
        key = fragment_key(post)
        done = _render_unless_cached(post, key, cache, content_dir)
        if done is None:
            done = cache.fragments[key]
        else:
            cache.fragments[key] = done  # kept even if this returns None: the full way finds it
            fresh += 1
        todo.append((name, stamp, old, post, key, done))
    where = {id(p): i for i, p in enumerate(posts)}
    if any(id(old) not in where for _, _, old, _, _, _ in todo):
        return None
    model = update_posts(memo, site_key, [(old, post, done) for _, _, old, post, _, done in todo])
    if model is None:
        return None
    for name, stamp, old, post, key, done in todo:
        cache.posts[name] = (stamp, post, key)
        posts[where[id(old)]] = post
        rendered[post.permalink] = done
    return posts, rendered, fresh, runs, [post for _, _, _, post, _, _ in todo], model


def _changed_posts(config: SiteConfig, cache: BuildCache, changed: list[str] | None) -> set[str] | None:
    """The post files among `changed` (named as `find_post_files` names them); None when something else changed,
    or nothing is known, and every post must be looked at."""
    if changed is None or not cache.posts:
        return None
    only = set()
    for name in changed:
        path = config.root / name
        if not is_post_path(path, config):
            return None
        only.add(str(path))
    return only


def _feed_key(site_key: str, views, limit: int) -> str:
    """Everything a feed shows of its posts (the newest `limit`, 0: all): their files (the digest), fragments and
    URLs."""
    return content_key(site_key, "\n".join([feed_part(v) for v in (views[:limit] if limit else views)]))


def build_site(
    root: Path,
    output: Path,
    log=lambda msg: None,
    exec_options: ExecOptions | None = None,
    keep_going: bool = False,
    warm: BuildCache | None = None,
    changed: list[str] | None = None,
    on_update=None,
) -> BuildResult:
    """Build the site at `root` into `output`; on any error the previous output is left as it was.

    `warm` is a cache kept in memory by a long-running caller (the dev server), instead of `.cache/` on disk.
    With it, `changed` lists the files (relative to `root`) changed since the build that left `warm`, as a file
    watcher saw them: when they are all post files, only those are read again (None: look at every file).
    `on_update(paths)`, when the output is updated in place, is called as soon as the pages of the posts read
    again are in the output (each file whole), before the rest (lists, tags, neighbours) is written; a build
    that fails after that has changed those pages only. The feeds and the sitemap are then left as they were:
    the caller writes them with `result.finish(cancelled)` (it can stop early when a newer change is waiting).
    """
    start = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(name: str) -> None:
        timings[name] = time.perf_counter() - start - sum(timings.values())

    root = root.resolve()
    output = (root / output).resolve()
    config = load_config(root)
    theme = find_theme(config)
    check_output_dir(root, output)
    cache = warm if warm is not None else BuildCache.open(root / CACHE_FILE)
    loading_key = content_key(
        RENDER_VERSION, config.permalink, config.url, config.language, config.posts_dir, repr(config.languages)
    )
    if cache.loading_key != loading_key:  # loaded posts depend on these settings, their fragments on the renderer
        cache.posts, cache.loading_key = {}, loading_key
    only = _changed_posts(config, cache, changed) if warm is not None else None
    state = cache.memo.pop(
        "state", None
    )  # what the last build left for a quick rebuild; only a build that succeeds leaves it
    site_key = _site_key(config, theme)
    lap("setup")
    quick = _quick_rebuild(config, cache, only, site_key, state) if only is not None and state is not None else None
    if quick is not None:
        posts, rendered, fresh, runs, loaded, model = quick
        lap("load+render (quick)")
    else:
        posts, rendered, fresh, runs, loaded = load_and_render(config, cache, exec_options, keep_going, only)
        lap("load+render")
        model = assemble(config, posts, rendered, site_key, cache.memo.setdefault("assemble", {}))
    if warm is not None and len(cache.fragments) > 2 * len(cache.posts) + 100:  # edits leave old fragments behind
        cache.prune({key for _, _, key in cache.posts.values()})
    env_key = content_key(site_key, str(root))
    kept = cache.memo.get("env")
    env = kept[1] if kept and kept[0] == env_key else None
    if env is None:  # templates are compiled once per environment: a warm caller keeps it while nothing it uses changed
        strings, warnings = ui_strings(config, theme)
        for warning in warnings:
            log(warning)
        env = make_env(config, theme, strings)
        cache.memo["env"] = (env_key, env)
    previous = cache.pages if cache.output == str(output) else {}
    writer = OutputWriter(
        output, previous, build_id=uuid.uuid4().hex, previous_id=cache.build_id, trust_output=warm is not None
    )
    lap("assemble")
    feeds = _feeds(config, model, site_key)
    late = on_update is not None and writer.incremental
    try:
        pages = model.pages
        pages_rendered = 0
        if late:
            for rel, _, _ in feeds:
                writer.keep(rel)  # written by `finish`, after this build
            feed_jobs = []
        else:  # made by workers of their own while the pages are rendered: the feeds are the biggest files
            feed_jobs = [
                (rel, partial(_made_with_entries, make, cache.feed_entries))
                for rel, key_of, make in feeds
                if writer.needs(rel, key_of())
            ]
        if on_update is not None and writer.incremental and loaded:  # the edited posts' pages first
            first = [model.post_pages[p.permalink] for p in loaded if p.permalink in model.post_pages]
            claimed: dict[str, ImageUse] = {}
            pages_rendered += write_pages(writer, env, theme, first)[0]
            images = publish_images(
                writer, [rendered[p.permalink] for p in loaded if p.permalink in rendered], root / IMAGE_CACHE, claimed
            )
            moved = writer.commit_early()
            lap("first pages")
            if moved:
                on_update(moved)
            done = {id(page) for page in first}
            pages_rendered += write_pages(writer, env, theme, [page for page in pages if id(page) not in done])[0]
            lap("pages")
            images += publish_images(writer, list(rendered.values()), root / IMAGE_CACHE, claimed)
            lap("images")
        else:
            rendered_now, new_entries = write_pages(writer, env, theme, pages, feed_jobs)
            pages_rendered += rendered_now
            for entries in new_entries:
                cache.feed_entries.update(entries)
            lap("pages")  # with the feeds, made beside them
            images = publish_images(writer, list(rendered.values()), root / IMAGE_CACHE)
            lap("images")
        writer.put("robots.txt", content_key(site_key, "robots"), lambda: robots(config))
        writer.put("css/pygments.css", content_key(site_key, "pygments"), pygments_css)
        for d in theme.dirs:  # the site's theme first: its files win
            if (d / "static").is_dir():
                writer.copy_tree(d / "static")
        lap("assets")
        files_changed = writer.commit()
        lap("commit")
    except BaseException:
        writer.abort()
        if writer.early:  # already in the output: the next build must write (or remove) them again
            cache.pages = {**cache.pages, **dict.fromkeys(writer.early, "")}
        raise
    unchanged = not files_changed and not fresh and cache.pages == writer.keys and cache.output == str(output)
    cache.pages, cache.output, cache.build_id = writer.keys, str(output), writer.build_id
    try:
        if warm is None and (not unchanged or cache.loaded_posts_changed):
            cache.save({key for _, _, key in cache.posts.values()})
    except OSError as exc:
        log(f"warning: could not save the build cache: {exc}")
    lap("save cache")
    cache.memo["state"] = (posts, rendered, runs)  # for the next build with this cache kept warm
    result = BuildResult(
        output,
        len(posts),
        fresh,
        len(writer.keys),
        pages_rendered,
        files_changed,
        time.perf_counter() - start,
        timings,
        runs,
        writer.changed,
        cache,
        images,
    )
    if late:
        items = [(rel, key_of, partial(make, cache.feed_entries)) for rel, key_of, make in feeds]
        result.finish = lambda cancelled=lambda: False: write_late(output, cache.pages, items, cancelled)
    return result


def _made_with_entries(make: Callable[[dict], str], entries: dict) -> tuple[str, dict]:
    """A feed made with the feed entries cached so far, and the entries it made anew (for the cache)."""
    fresh: dict = {}
    return make(ChainMap(fresh, entries)), fresh


def _feeds(config: SiteConfig, model, site_key: str) -> list[tuple]:
    """The feeds and the sitemap, as (output path, key function, producer taking the feed entry cache): each
    lists every post, so they are the biggest files."""
    out = [
        (
            config.feed_path,
            lambda: _feed_key(site_key, model.posts, config.feed_limit),
            lambda entries: atom_feed(config, model.posts, entry_cache=entries),
        )
    ]
    for code, lsite in model.languages.items():  # each other language: a feed of the posts written in it
        if code != config.language:
            lang = lsite.lang
            out.append(
                (
                    feed_path(config, lang),
                    lambda lsite=lsite, code=code: content_key(_feed_key(site_key, lsite.own, config.feed_limit), code),
                    lambda entries, lsite=lsite, lang=lang: atom_feed(
                        config,
                        lsite.own,
                        feed_path=feed_path(config, lang),
                        lang=lang.code,
                        title=lang.title or f"{config.title} ({lang.name})",
                        home=lang.prefix,
                        entry_cache=entries,
                    ),
                )
            )

    urls: list[tuple] = []

    def sitemap_key() -> str:  # called before the producer
        urls[:] = [("/", model.posts[0].post.updated if model.posts else None)]
        urls.extend((v.url, v.post.updated) for v in model.posts)
        urls.extend(
            ("/" + p.path.removesuffix("index.html"), None)
            for p in model.pages
            if p.template in ("list.html", "archive.html", "tags.html") and p.path != "index.html"
        )
        return content_key(site_key, "sitemap", "\n".join([f"{u} {m}" for u, m in urls]))

    out.append(("sitemap.xml", sitemap_key, lambda entries: sitemap(config, urls)))
    return out
