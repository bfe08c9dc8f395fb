"""Stage 6 of a build, write: pages, feeds, images and theme files staged, then moved into the output in one step."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

from site_builder.assemble import SiteModel
from site_builder.build.context import BuildContext
from site_builder.build.feeds import FeedJob, FeedText, feed_jobs, make_with_entries
from site_builder.build.state import IMAGE_CACHE, KeptEnv
from site_builder.errors import SiteError, SiteWarning
from site_builder.images import (
    IMAGE_VERSION,
    ImageError,
    ImageInfo,
    Processed,
    process_all,
    resolves_inside,
    variant_outputs,
)
from site_builder.models import DIAGRAM, ImageUse, Rendered
from site_builder.rawlinks import missing_links
from site_builder.svgimage import SVG, probe_image
from site_builder.util.files import file_stamp
from site_builder.util.hashing import content_key
from site_builder.write.output import OutputWriter
from site_builder.write.pages import write_pages
from site_builder.write.static import write_static
from site_builder.write.templates import make_env, ui_strings


@dataclass
class Written:
    """What the write stage did, for the summary line."""

    pages_rendered: int = 0
    images: int = 0
    files_changed: int = 0
    claimed: dict[str, ImageUse] = field(default_factory=dict)  # image outputs published so far, by path


def template_env(ctx: BuildContext) -> KeptEnv:
    """The Jinja environment; a warm state keeps it (and its compiled templates) while settings and theme stay."""
    key = content_key(ctx.site_key, str(ctx.root))
    kept = ctx.state.warm.env
    if kept is not None and kept.key == key:
        return kept
    strings, warnings = ui_strings(ctx.config, ctx.theme)
    ctx.warnings += warnings
    env = make_env(ctx.config, ctx.theme, strings)
    # A one-shot build's templates do not change while it runs: no stat of every included file on every page (4%
    # of page rendering). serve keeps its environment and must see a template edit, so it keeps checking.
    env.auto_reload = ctx.warm
    ctx.state.warm.env = kept = KeptEnv(key, env)
    return kept


def open_writer(ctx: BuildContext) -> OutputWriter:
    """A writer that stages beside the output; it updates the output in place when it holds the last build's files."""
    previous = ctx.state.pages if ctx.state.output == str(ctx.output) else {}
    return OutputWriter(
        ctx.output, previous, build_id=uuid.uuid4().hex, previous_id=ctx.state.build_id, trust_output=ctx.warm
    )


def write_site(ctx: BuildContext, writer: OutputWriter, model: SiteModel, rendered: dict[str, Rendered]) -> Written:
    """Every page and feed (the feeds made by workers of their own beside the pages), images, theme files."""
    kept = template_env(ctx)
    jobs = [job for job in feed_jobs(ctx.config, model, ctx.site_key) if writer.needs(job.rel, job.key())]
    files = [(job.rel, partial(_feed_file, job, ctx.state.feed_entries)) for job in jobs]
    done = Written()
    done.pages_rendered, new_entries = write_pages(
        writer, kept.env, ctx.theme, model.pages, files, kept.refs, prepare=ctx.state.fill_html
    )
    for entries in new_entries:
        ctx.state.feed_entries.update(entries)
    ctx.timings.lap("pages")  # with the feeds, made beside them
    done.images = publish_images(writer, list(rendered.values()), ctx, done.claimed)
    ctx.timings.lap("images")
    write_assets(ctx, writer, rendered.values())
    check_raw_links(ctx, writer, rendered.values())
    return done


def check_raw_links(ctx: BuildContext, writer: OutputWriter, rendered: Iterable[Rendered]) -> None:
    """A warning at each line of a post that links to a file, page or section the output does not have (called
    once every file is staged: `writer.keys` is the whole output; a page is read where this build staged it, else
    in the output, for its ids)."""

    def read(rel: str) -> str | None:
        for folder in (writer.staging, writer.output):
            try:
                return (folder / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
        return None

    ctx.warnings += missing_links((link for r in rendered for link in r.raw_links), writer.keys, read)


def _feed_file(job: FeedJob, entries: dict[tuple[str, ...], str]) -> tuple[str, dict[tuple[str, ...], str]]:
    made: FeedText = make_with_entries(job, entries)
    return made.text, made.new_entries


def write_assets(ctx: BuildContext, writer: OutputWriter, rendered: Iterable[Rendered]) -> None:
    """The static files; Mermaid's when a post draws a diagram (render.DIAGRAM)."""
    diagrams = any(DIAGRAM in r.html for r in rendered)
    write_static(writer, ctx.config, ctx.theme, ctx.site_key, diagrams)
    ctx.timings.lap("assets")


@dataclass
class ImageJob:
    """A local image whose outputs (original and WebP variants, by width; None: the original) must be written."""

    use: ImageUse
    wanted: list[tuple[str, int | None]]


def publish_images(
    writer: OutputWriter, rendered: list[Rendered], ctx: BuildContext, claimed: dict[str, ImageUse]
) -> int:
    """Stage every local image's WebP variants and its original; only images whose outputs changed are worked on.

    Returns how many images were processed (0 when the output already holds them all). `claimed` (output path ->
    image) is shared by calls that publish one build's images in parts: an image an earlier call published is skipped.
    """
    todo = _images_to_write(writer, rendered, claimed)
    if not todo:
        return 0
    infos = [_probe_again(job.use, ctx) for job in todo]
    usable = [i for i in infos if isinstance(i, ImageInfo) and i.format != SVG]
    results = iter(process_all(usable, ctx.root / IMAGE_CACHE) if usable else [])
    for job, info in zip(todo, infos, strict=True):
        if isinstance(info, ImageInfo):  # an SVG is published as it is
            result = Processed(info.path, {}, False) if info.format == SVG else next(results)
        else:
            result = info
        if isinstance(result, ImageError):  # the page keeps its alt text; the build goes on
            name = os.path.basename(job.use.source)
            ctx.warnings.append(SiteWarning(f"image {name}: {result}", job.use.rel, job.use.line, "not published"))
            for rel, _ in job.wanted:
                writer.drop(rel)
            continue
        for rel, width in job.wanted:
            writer.copy_file(rel, result.original if width is None else result.variants[width])
    return len(todo)


def _probe_again(use: ImageUse, ctx: BuildContext) -> ImageInfo | ImageError:
    """An image as the page that shows it found it, or why it cannot be published (a fragment cached before a link
    was made to point outside content/ included)."""
    if not resolves_inside(use.source, ctx.content_dir):
        return ImageError("a link to a file outside content/")
    if file_stamp(use.source) != use.stamp:
        return ImageError("changed while the site was building; build again")
    try:
        return probe_image(use.source)
    except ImageError as exc:
        return exc


def _images_to_write(writer: OutputWriter, rendered: list[Rendered], claimed: dict[str, ImageUse]) -> list[ImageJob]:
    uses: dict[str, ImageUse] = {}
    for r in rendered:
        for use in r.images:
            if use.out not in claimed:
                uses.setdefault(use.out, use)
    todo = []
    for use in uses.values():
        stem = f"{use.source}:{use.stamp}:{IMAGE_VERSION}"
        outputs: list[tuple[str, int | None]] = [(use.out, None), *variant_outputs(use.out, use.widths)]
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
            todo.append(ImageJob(use, wanted))
    return todo
