"""The HTML -> Markdown pipeline for one post body: preprocessing steps, conversion, footnotes."""

from __future__ import annotations

from collections.abc import Callable

from site_builder.importer import asides, bilingual, images, math, prepare, sanitize
from site_builder.importer.html2md import Doc


def html_to_markdown(html: str, base: str = "", warn: Callable[[str], None] | None = None) -> str:
    """Markdown in the builder's dialect for an HTML fragment; problems go to `warn`."""
    messages: list[str] = []

    def note(msg: str) -> None:
        if msg not in messages:
            messages.append(msg)

    doc = Doc(html, base, note)
    prepare.strip_noise(doc)
    sanitize.clean(doc)
    images.convert_drawings(doc)
    prepare.tidy_breaks(doc)
    prepare.resolve_urls(doc)
    images.unwrap_pictures(doc)
    prepare.convert_code_blocks(doc)
    math.convert_mathml(doc)
    prepare.convert_made_up_tags(doc)
    footnotes = prepare.convert_footnote_refs(doc)
    math.convert_text_math(doc)
    asides.convert_distill_footnotes(doc)
    prepare.convert_tabs(doc)
    images.convert_galleries(doc)
    images.convert_lightbox_groups(doc)
    images.convert_figures(doc)
    asides.convert_details(doc)
    asides.convert_callouts(doc)
    prepare.convert_interactive(doc)
    bilingual.convert_bilingual(doc)
    prepare.convert_footnote_defs(doc, footnotes)
    body = doc.fragment(doc.soup)
    if doc.footnotes:
        multi = any("\n" in text for _, text in doc.footnotes)
        sep = "\n\n" if multi else "\n"
        body += "\n\n" + sep.join(f"[^{label}]: {text}" for label, text in doc.footnotes)
    if warn is not None:
        for msg in messages:
            warn(msg)
    return body.strip("\n") + "\n" if body.strip() else ""
