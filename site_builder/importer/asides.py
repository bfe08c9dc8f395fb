"""Content set aside from the text: HTML `<details>` disclosures and al-folio (distill) `<d-footnote>` notes.

Both used to be kept as raw HTML, where the math and Markdown inside them were lost; now their content is
converted like the rest of the post."""

from __future__ import annotations

from bs4 import Tag

from site_builder.importer.html2md import Doc


def convert_details(doc: Doc) -> None:
    """`<details><summary>S</summary>...</details>` -> the same element as raw HTML lines around the content
    converted to Markdown (blank lines between, so that markdown-it renders what is inside)."""
    for el in reversed(doc.soup.find_all("details")):  # innermost first
        if not isinstance(el, Tag):
            continue
        summary = el.find("summary", recursive=False)
        head = ""
        if isinstance(summary, Tag):
            head = f"<summary>{doc.inline_fragment(summary.extract())}</summary>"
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
