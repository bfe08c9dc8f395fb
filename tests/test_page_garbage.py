"""Rendering pages leaves no garbage in reference cycles. A build runs with the cycle collector off (it found
nothing to free and cost seconds at 16,000 posts), so anything a page leaves in a cycle stays until the process
ends: a theme macro defined in the page's own template (each render makes it, and it holds the render's context,
which holds it) kept ~4 KB a page, 17 MB more peak memory for 4,000 posts and ~250 MB for 64,000."""

from __future__ import annotations

import gc
import importlib.util
from pathlib import Path

from helpers import REPO

from site_builder.assemble import assemble
from site_builder.assemble.memo import AssembleMemo
from site_builder.build.context import BuildContext
from site_builder.build.posts import read_posts
from site_builder.build.publish import open_writer, template_env
from site_builder.execute.options import ExecOptions
from site_builder.write.pages import write_pages


def _bench_site(root: Path, posts: int) -> None:
    spec = importlib.util.spec_from_file_location("bench_build", REPO / "bench" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make_site(root, posts, search=True)  # with the search form: every part of the theme's header


def test_rendering_every_page_leaves_nothing_in_cycles(tmp_path):
    _bench_site(tmp_path / "site", 60)
    ctx = BuildContext.open(tmp_path / "site", tmp_path / "out", None, False, print, False, None, None)
    site = read_posts(ctx, ExecOptions())
    model = assemble(ctx.config, site.posts, site.rendered, ctx.site_key, AssembleMemo())
    env = template_env(ctx).env
    pages = len(model.pages)  # (plain numbers in the asserts: pytest would print the model, which is large)
    assert pages > 60  # posts, home pages, tags, archive, 404
    write_pages(open_writer(ctx), env, ctx.theme, model.pages)  # the templates loaded and compiled: once a build
    gc.collect()
    gc.disable()
    try:
        rendered, _ = write_pages(open_writer(ctx), env, ctx.theme, model.pages)
        left = gc.collect()
    finally:
        gc.enable()
    assert rendered == pages
    assert left < pages, f"{left} objects left in cycles by {rendered} pages"
