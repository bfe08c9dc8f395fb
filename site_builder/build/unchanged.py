"""A build with nothing to do: no post file was read, and the settings, the theme's files, the fragments of the
published posts and the output are as the last build left them. The build then stops after rendering (stage 4):
assembling the site and keying every page would only find that no page changed (0.2 s of a 4,000-post rebuild)."""

from __future__ import annotations

import os

from site_builder.build.context import BuildContext
from site_builder.build.posts import SitePosts
from site_builder.util.hashing import content_key


def site_print(ctx: BuildContext, site: SitePosts) -> str:
    """A key of everything the pages are made of, but the posts' records (a build that read no post file keeps
    those): settings, theme files (templates and static files too), the output folder, and every published
    post's fragment key under its URL (which changes when a post comes due, is left out or ran again)."""
    stamps = []
    for folder in ctx.theme.dirs:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                st = path.stat()
                stamps.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    fragments = (f"{url}\0{fragment.key}" for url, fragment in sorted(site.rendered.items()))
    return content_key(ctx.site_key, str(ctx.root), str(ctx.output), *stamps, *fragments)


def nothing_to_do(ctx: BuildContext, fingerprint: str) -> bool:
    """True when a one-shot build would change nothing: see the module's docstring."""
    state = ctx.state
    if ctx.warm or state.loaded_posts_changed or not state.site_print or state.site_print != fingerprint:
        return False
    if state.output != str(ctx.output):
        return False
    output = str(ctx.output)
    return all(os.path.exists(os.path.join(output, rel)) for rel in state.pages)  # none removed by hand
