"""The build pipeline: load -> parse/render (cached, parallel) -> assemble -> write, atomically."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from site_builder import __version__
from site_builder.assemble import assemble, feed_path
from site_builder.cache import BuildCache, content_key
from site_builder.check import EXEC_CACHE
from site_builder.config import SiteConfig, load_config
from site_builder.errors import ExecutionFailed, SiteError
from site_builder.execute import ExecOptions, executes, failure_lines, run_posts
from site_builder.feed import atom_feed, robots, sitemap
from site_builder.load import check_posts, find_post_files, load_post
from site_builder.images import IMAGE_VERSION, ImageError, probe, process_all, variant_name
from site_builder.models import ImageUse, Post, Rendered
from site_builder.parallel import fork_map
from site_builder.render import RENDER_VERSION, exec_fence_hook, pygments_css, render_post
from site_builder.write import OutputWriter, Theme, check_output_dir, find_theme, make_env, ui_strings, write_pages

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
    images: int = 0         # local images processed (0 when every variant was already in the output)


def _theme_digest(theme: Theme) -> str:
    """Templates and UI strings: what pages depend on (static files are copied, pages do not change)."""
    h = hashlib.sha1()
    for d in theme.dirs:
        for path in sorted(d.rglob("*")):
            if path.is_file() and path.relative_to(d).parts[0] != "static":
                st = path.stat()
                h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _site_key(config: SiteConfig, theme: Theme) -> str:
    settings = {k: v for k, v in vars(config).items() if k != "root"}
    return content_key(__version__, RENDER_VERSION, repr(sorted(settings.items(), key=str)), _theme_digest(theme))


def fragment_key(post: Post) -> str:
    return content_key(RENDER_VERSION, post.body)


def load_and_render(config: SiteConfig, cache: BuildCache, exec_options: ExecOptions | None = None,
                    keep_going: bool = False) -> tuple[list[Post], dict[str, Rendered], int, dict]:
    """Load every post, run the executing ones, render fragments; only changed files are read, in parallel."""
    known, todo = [], []
    content_dir = config.root / "content"
    for path in find_post_files(config):
        st = path.stat()
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
            rendered = None
            if key and key not in cache.fragments:
                rendered = render_post(post, content_dir=content_dir)
                rendered.key = key
            out.append((post, stamp, key, rendered))
        return out

    results = known + fork_map(work, todo, min_per_worker=60)
    results.sort(key=lambda r: str(r[0].source))
    posts = check_posts([post for post, _, _, _ in results])
    runs = run_posts([p for p in posts if executes(p)], config.root / EXEC_CACHE, exec_options or ExecOptions())
    failed = [run for run in runs.values() if not run.ok]
    if failed and not keep_going:
        raise ExecutionFailed([line for run in failed for line in failure_lines(run)],
                              failed[0].rel, failed[0].failures[0][0])
    for i, (post, stamp, key, rendered) in enumerate(results):
        run = runs.get(post.rel)
        if run is not None:
            key = content_key(RENDER_VERSION, post.body, run.key, repr(run.failures), str(keep_going))
            if key not in cache.fragments or not _images_unchanged(cache.fragments[key]):
                rendered = render_post(post, exec_fence_hook(run, keep_going), content_dir)
                rendered.key = key
            results[i] = (post, stamp, key, rendered)
    fresh = 0
    for _, _, key, rendered in results:
        if rendered is not None:
            cache.fragments[key] = rendered
            fresh += 1
    cache.loaded_posts_changed = bool(todo) or len(results) != len(cache.posts)
    cache.posts = {str(post.source): (stamp, post, key) for post, stamp, key, _ in results}
    published = {id(p) for p in posts}
    return posts, {p.permalink: cache.fragments[k] for p, _, k, _ in results if id(p) in published}, fresh, runs


def _images_unchanged(rendered: Rendered) -> bool:
    """A cached fragment holds its images' sizes: it stays valid while every image file is as it was."""
    for use in rendered.images:
        try:
            st = os.stat(use.source)
        except OSError:
            return False
        if (st.st_mtime_ns, st.st_size) != use.stamp:
            return False
    return True


def publish_images(writer: OutputWriter, rendered: list[Rendered], cache_dir: Path) -> int:
    """Stage every local image's WebP variants and its original; only images whose outputs changed are worked on.

    Returns how many images were processed (0 when the output already holds them all).
    """
    uses: dict[str, ImageUse] = {}
    for r in rendered:
        for use in r.images:
            uses.setdefault(use.out, use)
    todo: list[tuple[ImageUse, list[tuple[str, int | None]]]] = []
    claimed: dict[str, ImageUse] = {}
    for use in uses.values():
        stem = f"{use.source}:{use.stamp}:{IMAGE_VERSION}"
        folder = use.out.rsplit("/", 1)[0] + "/" if "/" in use.out else ""
        outputs = [(use.out, None)] + [(folder + variant_name(use.out.rsplit("/", 1)[-1], w), w) for w in use.widths]
        for rel, _ in outputs:
            other = claimed.setdefault(rel, use)
            if other is not use:
                raise SiteError(f"images {os.path.basename(other.source)} and {os.path.basename(use.source)} would both "
                                f"publish {rel} (rename one)", use.rel, use.line)
        wanted = [(rel, w) for rel, w in outputs if writer.needs(rel, f"image:{stem}:{w}")]
        if wanted:
            todo.append((use, wanted))
    if not todo:
        return 0
    infos = [probe(use.source) if _stamp(use.source) == use.stamp else None for use, _ in todo]
    results = process_all([i for i in infos if i is not None], cache_dir) if any(infos) else []
    it = iter(results)
    for (use, wanted), info in zip(todo, infos):
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


def _feed_key(site_key: str, views) -> str:
    return content_key(site_key, *(f"{v.post.id}|{v.key}|{v.post.updated}|{v.post.title}|{v.post.tags}|{v.post.summary}|{v.url}"
                                   for v in views))


def build_site(root: Path, output: Path, log=lambda msg: None, exec_options: ExecOptions | None = None,
               keep_going: bool = False, warm: BuildCache | None = None) -> BuildResult:
    """Build the site at `root` into `output`; on any error the previous output is left as it was.

    `warm` is a cache kept in memory by a long-running caller (the dev server), instead of `.cache/` on disk.
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
    loading_key = content_key(config.permalink, config.url, config.language, config.posts_dir, repr(config.languages))
    if cache.loading_key != loading_key:  # loaded posts depend on these settings
        cache.posts, cache.loading_key = {}, loading_key
    lap("setup")
    posts, rendered, fresh, runs = load_and_render(config, cache, exec_options, keep_going)
    lap("load+render")
    site_key = _site_key(config, theme)
    model = assemble(config, posts, rendered, site_key)
    strings, warnings = ui_strings(config, theme)
    for warning in warnings:
        log(warning)
    env = make_env(config, theme, {}, strings)
    previous = cache.pages if cache.output == str(output) else {}
    writer = OutputWriter(output, previous, build_id=uuid.uuid4().hex, previous_id=cache.build_id)
    lap("assemble")
    try:
        pages_rendered = write_pages(writer, env, theme, model.pages)
        lap("pages")
        images = publish_images(writer, list(rendered.values()), root / IMAGE_CACHE)
        lap("images")
        feed_key = _feed_key(site_key, model.posts)
        writer.put(config.feed_path, feed_key, lambda: atom_feed(config, model.posts, entry_cache=cache.feed_entries))
        for code, lsite in model.languages.items():  # each other language: a feed of the posts written in it
            if code != config.language:
                lang = lsite.lang
                writer.put(feed_path(config, lang), content_key(_feed_key(site_key, lsite.own), code),
                           lambda lsite=lsite, lang=lang: atom_feed(
                               config, lsite.own, feed_path=feed_path(config, lang), lang=lang.code,
                               title=lang.title or f"{config.title} ({lang.name})", home=lang.prefix,
                               entry_cache=cache.feed_entries))
        urls = [("/", model.posts[0].post.updated if model.posts else None)]
        urls += [(v.url, v.post.updated) for v in model.posts]
        urls += [("/" + p.path.removesuffix("index.html"), None) for p in model.pages
                 if p.template in ("list.html", "archive.html", "tags.html") and p.path != "index.html"]
        writer.put("sitemap.xml", content_key(feed_key, *(u for u, _ in urls)), lambda: sitemap(config, urls))
        writer.put("robots.txt", content_key(site_key, "robots"), lambda: robots(config))
        writer.put("css/pygments.css", content_key(site_key, "pygments"), pygments_css)
        for d in theme.dirs:  # the site's theme first: its files win
            if (d / "static").is_dir():
                writer.copy_tree(d / "static")
        lap("feed+assets")
        changed = writer.commit()
        lap("commit")
    except BaseException:
        writer.abort()
        raise
    unchanged = not changed and not fresh and cache.pages == writer.keys and cache.output == str(output)
    cache.pages, cache.output, cache.build_id = writer.keys, str(output), writer.build_id
    try:
        if warm is None and (not unchanged or cache.loaded_posts_changed):
            cache.save({key for _, _, key in cache.posts.values()})
    except OSError as exc:
        log(f"warning: could not save the build cache: {exc}")
    lap("save cache")
    return BuildResult(output, len(posts), fresh, len(writer.keys), pages_rendered, changed,
                       time.perf_counter() - start, timings, runs, writer.changed, cache, images)
