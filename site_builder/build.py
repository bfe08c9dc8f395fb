"""The build pipeline: load -> parse/render (cached, parallel) -> assemble -> write, atomically."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from site_builder import __version__
from site_builder.assemble import assemble, tag_url, year_url
from site_builder.cache import BuildCache, content_key
from site_builder.config import SiteConfig, load_config
from site_builder.feed import atom_feed, robots, sitemap
from site_builder.load import load_posts
from site_builder.models import Page, Rendered
from site_builder.parallel import fork_map
from site_builder.render import RENDER_VERSION, pygments_css, render_post
from site_builder.write import OutputWriter, Theme, check_output_dir, find_theme, make_env, write_pages

CACHE_FILE = Path(".cache") / "build.pickle"


@dataclass
class BuildResult:
    """What a build did, for the CLI's summary line and the benchmark."""

    output: Path
    posts: int
    fragments_rendered: int
    pages: int
    pages_rendered: int
    seconds: float


def _theme_digest(theme: Theme) -> str:
    h = hashlib.sha1()
    for d in theme.dirs:
        for path in sorted(d.rglob("*")):
            if path.is_file():
                st = path.stat()
                h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _site_key(config: SiteConfig, theme: Theme) -> str:
    settings = {k: v for k, v in vars(config).items() if k != "root"}
    return content_key(__version__, RENDER_VERSION, repr(sorted(settings.items(), key=str)), _theme_digest(theme))


def render_fragments(posts, cache: BuildCache) -> tuple[dict[str, Rendered], set[str], int]:
    """Each post's HTML fragment, from the cache when its Markdown is unchanged."""
    keys = {p.permalink: content_key(RENDER_VERSION, p.body) for p in posts}
    missing = [p for p in posts if keys[p.permalink] not in cache.fragments]
    fresh = fork_map(lambda chunk: [render_post(p) for p in chunk], missing, min_per_worker=60)
    for post, rendered in zip(missing, fresh):
        cache.fragments[keys[post.permalink]] = rendered
    return {p.permalink: cache.fragments[keys[p.permalink]] for p in posts}, set(keys.values()), len(missing)


def build_site(root: Path, output: Path, log=lambda msg: None) -> BuildResult:
    """Build the site at `root` into `output`; on any error the previous output is left as it was."""
    start = time.perf_counter()
    root = root.resolve()
    output = (root / output).resolve() if not output.is_absolute() else output.resolve()
    config = load_config(root)
    theme = find_theme(config)
    check_output_dir(root, output)
    posts = load_posts(config)
    cache = BuildCache.open(root / CACHE_FILE)
    rendered, used, fresh = render_fragments(posts, cache)
    site_key = _site_key(config, theme)
    model = assemble(config, posts, rendered, site_key)
    previous = cache.pages if cache.output == str(output) else {}
    env = make_env(config, theme, {"tags": model.tags, "years": model.years, "tag_url": tag_url, "year_url": year_url})
    writer = OutputWriter(output)
    try:
        page_keys, pages_rendered = write_pages(writer, env, theme, model.pages, previous)
        writer.write(config.feed_path, atom_feed(config, model.posts))
        urls = [("/", model.posts[0].post.updated if model.posts else None)]
        urls += [(v.url, v.post.updated) for v in model.posts]
        urls += [("/" + p.path.removesuffix("index.html"), None) for p in model.pages
                 if p.template in ("list.html", "archive.html", "tags.html") and p.path != "index.html"]
        writer.write("sitemap.xml", sitemap(config, urls))
        writer.write("robots.txt", robots(config))
        writer.write("css/pygments.css", pygments_css())
        for d in theme.dirs:  # the site's theme first: its files win
            if (d / "static").is_dir():
                writer.copy_tree(d / "static")
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    cache.pages, cache.output = page_keys, str(output)
    try:
        cache.save(used)
    except OSError as exc:
        log(f"warning: could not save the build cache: {exc}")
    return BuildResult(output, len(posts), fresh, len(model.pages) + 3, pages_rendered,
                       time.perf_counter() - start)
