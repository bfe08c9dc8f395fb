"""A build with nothing to do: no post file was read, and the settings, the theme's files, the fragments of the
published posts and the output are as the last build left them. The build then stops after rendering (stage 4):
assembling the site and keying every page would only find that no page changed (0.2 s of a 4,000-post rebuild).

Sooner still, before the build cache is opened (unpickling its posts is most of what such a build does): a site
whose posts do not execute is found unchanged from the `Summary` the last one-shot build left beside the cache,
with the post files' stamps alone (`unchanged_since`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from site_builder.build.context import BuildContext
from site_builder.build.posts import SitePosts
from site_builder.build.state import CACHE_FILE
from site_builder.errors import SiteWarning
from site_builder.load import find_post_names
from site_builder.util.files import file_stamp
from site_builder.util.hashing import content_key
from site_builder.util.signed import Outdated, Signer, Unsigned

SUMMARY_FILE = Path(".cache") / "unchanged.pickle"


@dataclass
class Summary:
    """What the last one-shot build left beside the build cache (signed as it is), for the next one to find that
    nothing changed without opening that cache, and to say what it said."""

    key: str  # settings, theme files, folders, what is published (--drafts, --future), every post file's stamp
    due: datetime | None  # the first post left out as dated in the future: the site changes when it comes due
    images: list[tuple[Path, object]]  # every local image the posts show (or could not show), with its stamp
    pages: list[str]  # every file of the output
    posts: int  # published
    drafts: int  # left out
    future: int  # left out
    warnings: list[SiteWarning]  # the posts' and fragments' warnings, and those found after rendering
    standalone: int = 0  # published pages of the pages folder


def unchanged_since(ctx: BuildContext) -> Summary | None:
    """The last build's summary when this one-shot build has nothing to do (every post file, image, setting and
    theme file as it was, no post come due, every output file there); else None, and the build goes on."""
    if ctx.warm or not (ctx.root / CACHE_FILE).exists():
        return None
    try:
        values, later = Signer.for_user().load(ctx.root / SUMMARY_FILE)
        later.fh.close()
        summary = values[0]
    except (OSError, Outdated):
        return None
    except Unsigned as exc:  # damaged or crafted: dropped with one warning (the build then writes a new one)
        (ctx.root / SUMMARY_FILE).unlink(missing_ok=True)
        ctx.warnings.append(SiteWarning(f"build cache summary unusable: {exc}", str(SUMMARY_FILE), None, "ignored"))
        return None
    if not isinstance(summary, Summary) or (summary.due is not None and summary.due <= ctx.include.now):
        return None
    warnings: list[SiteWarning] = []
    stamps = []
    for name in find_post_names(ctx.config, warnings):
        stamp = file_stamp(name)
        if stamp is None:
            return None
        stamps.append(_post_stamp(name, stamp))
    if summary.key != _summary_key(ctx, stamps) or any(file_stamp(p) != stamp for p, stamp in summary.images):
        return None
    output = str(ctx.output)
    if not all(os.path.exists(os.path.join(output, rel)) for rel in summary.pages):  # none removed by hand
        return None
    ctx.warnings += warnings
    return summary


def save_summary(ctx: BuildContext, site: SitePosts) -> None:
    """The summary of the build whose state was just saved, or was found unchanged (none for a site with a post
    that executes: whether its code runs again is for the run cache to say)."""
    records = ctx.state.posts
    fragments = [ctx.state.fragments.get(r.key) for r in records.values()]
    if ctx.warm or any(r.post.execute for r in records.values()):
        return
    shown = [f for f in fragments if f is not None]
    if len(shown) != len(fragments):
        return
    images = [(use.source, use.stamp) for f in shown for use in f.images] + [u for f in shown for u in f.unshown]
    later = [r.post.date for r in records.values() if r.post.date > ctx.include.now]
    stamps = [_post_stamp(name, r.stamp) for name, r in sorted(records.items())]
    summary = Summary(
        _summary_key(ctx, stamps), min(later, default=None), images, list(ctx.state.pages), site.post_count,
        site.drafts_left_out, site.future_left_out, site.warnings() + ctx.state.site_warnings, site.page_count,
    )  # fmt: skip
    Signer.for_user().dump(ctx.root / SUMMARY_FILE, summary)


def forget_summary(ctx: BuildContext) -> None:
    """Before the state is saved: the summary describes the state saved before."""
    (ctx.root / SUMMARY_FILE).unlink(missing_ok=True)


def _post_stamp(name: str, stamp: tuple[int, int]) -> str:
    """A post file's part of the summary's key: the same text whether the stamp was just read or kept."""
    return f"{name}:{stamp[0]}:{stamp[1]}"


def _summary_key(ctx: BuildContext, stamps: Iterable[str]) -> str:
    chosen = repr((ctx.include.drafts, ctx.include.future))
    themes = [f.stamp for f in ctx.theme_files]
    return content_key(ctx.site_key, str(ctx.root), str(ctx.output), chosen, *themes, "", *stamps)


def site_print(ctx: BuildContext, site: SitePosts) -> str:
    """A key of everything the pages are made of, but the posts' records (a build that read no post file keeps
    those): settings, theme files (templates and static files too), the output folder, and every published
    post's fragment key under its URL (which changes when a post comes due, is left out or ran again)."""
    stamps = [f.stamp for f in ctx.theme_files]
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
