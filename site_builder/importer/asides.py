"""Content set aside from the text: HTML `<details>` disclosures, al-folio (distill) `<d-footnote>` notes, and
callouts (al-folio, Jekyll themes, GitHub, MkDocs, Quarto) as `::: kind` admonitions.

The first two used to be kept as raw HTML, where the math and Markdown inside them were lost; now their content
is converted like the rest of the post."""

from __future__ import annotations

import re

from bs4 import Tag
from bs4.element import NavigableString

from site_builder.admonitions import ALIASES, KINDS, TITLES
from site_builder.importer.html2md import Doc, attr
from site_builder.importer.math import classes
from site_builder.importer.sanitize import raw_html


def convert_details(doc: Doc) -> None:
    """`<details><summary>S</summary>...</details>` -> the same element as raw HTML lines around the content
    converted to Markdown (blank lines between, so that markdown-it renders what is inside); the summary is HTML
    through nh3."""
    for el in reversed(doc.soup.find_all("details")):  # innermost first
        if not isinstance(el, Tag):
            continue
        summary = el.find("summary", recursive=False)
        head = ""
        if isinstance(summary, Tag):  # HTML, not Markdown: the line is in an HTML block, where no escape works
            for held in summary.select("[data-md-inline]"):  # a formula, a note: as its Markdown
                held.replace_with(NavigableString(doc.inlines[int(attr(held, "data-md-inline"))]))
            head = " ".join(raw_html(summary.extract()).split())
        opened = " open" if el.has_attr("open") else ""
        body = doc.fragment(el)
        el.replace_with(doc.block(f"<details{opened}>\n{head}\n\n{body}\n\n</details>"))


def convert_distill_footnotes(doc: Doc) -> None:
    """al-folio's `<d-footnote>text</d-footnote>` -> a Markdown footnote `[^dN]`, its text at the end."""
    for n, el in enumerate(doc.soup.find_all("d-footnote"), 1):
        if not isinstance(el, Tag):
            continue
        label = f"d{n}"
        doc.add_footnote(label, doc.fragment(el))
        el.replace_with(doc.inline(f"[^{label}]"))


# words of callout classes (al-folio `block-tip`, Chirpy `prompt-info`, Minimal Mistakes `notice--warning`,
# Bootstrap `alert-danger`, Quarto `callout-note`, GitHub `markdown-alert-caution`, MkDocs `admonition note`, ours)
_CALLOUT_CLASS = re.compile(r"(?:block|prompt|notice-|callout|alert|markdown-alert|admonition)-([a-z]+)")
_CALLOUT_WORDS = {
    **{kind: kind for kind in KINDS},
    **ALIASES,
    "success": "tip",
    "primary": "note",
    "secondary": "note",
    "abstract": "note",
    "summary": "note",
    "example": "note",
    "question": "note",
    "todo": "note",
    "failure": "danger",
    "bug": "danger",
}
_TITLE_CLASSES = (
    "admonition-title",
    "markdown-alert-title",
    "callout-title-container",
    "callout-title",
    "alert-heading",
)


def _callout_kind(el: Tag) -> tuple[str, str] | None:
    """(kind, word of the class) of a callout element, else None."""
    names = classes(el)
    for name in names:
        m = _CALLOUT_CLASS.fullmatch(name)
        if m and m.group(1) in _CALLOUT_WORDS:
            return _CALLOUT_WORDS[m.group(1)], m.group(1)
    if "admonition" in names:  # MkDocs, Sphinx: `admonition warning`
        return next(((_CALLOUT_WORDS[n], n) for n in names if n in _CALLOUT_WORDS), ("note", "note"))
    return ("note", "note") if {"notice", "callout"} & set(names) else None


def _callout_title(doc: Doc, el: Tag) -> str:
    """The title a callout shows (taken out of it): an element of a title class, or a heading that opens it."""
    title = el.find(class_=_TITLE_CLASSES)
    if not isinstance(title, Tag):
        first = next((c for c in el.children if isinstance(c, Tag) or str(c).strip()), None)
        title = first if isinstance(first, Tag) and first.name in ("h1", "h2", "h3", "h4", "h5", "h6") else None
    if title is None:
        return ""
    for hidden in title.find_all(class_="admonition-kind"):  # ours: the kind said before a title of its own
        hidden.decompose()
    header = title.find_parent(class_="callout-header")  # Quarto: the title sits in a header with the icon
    text = doc.inline_fragment(title)
    (header if isinstance(header, Tag) and el in header.parents else title).decompose()
    return text


def convert_callouts(doc: Doc) -> None:
    """Callouts (see _CALLOUT_CLASS) -> `::: kind [Title]` blocks; a title that only names the kind is left out."""
    for el in reversed(doc.soup.find_all(["blockquote", "div", "aside", "section", "p"])):  # innermost first
        if not isinstance(el, Tag) or el.has_attr("data-md-block"):
            continue
        found = _callout_kind(el)
        if found is None:
            continue
        kind, word = found
        title = _callout_title(doc, el)
        if title.strip().rstrip(":").lower() in {word, kind} | {t.get(word, t[kind]).lower() for t in TITLES.values()}:
            title = ""
        body = doc.fragment(el)
        colons = ":" * max([3, *(len(m) + 1 for m in re.findall(r"^[ >]*(:{3,})", body, re.M))])
        name = word if word in KINDS or word in ALIASES else kind  # `caution` keeps its own title
        el.replace_with(doc.block(f"{colons} {name}{' ' + title if title else ''}\n{body}\n{colons}"))
