"""Figures, captions and image grids (al-folio, lightbox libraries, our own) -> images and `::: gallery`."""

from __future__ import annotations

import re

from bs4 import Tag
from bs4.element import NavigableString

from site_builder.importer.html2md import Doc, attr, drawing_html, drawing_src
from site_builder.importer.text import escape_alt, md_url, useful_alt

_IMG_EXT = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)(?:$|[?#])", re.I)
_LIGHTBOX_ATTRS = ("data-lightbox", "data-fancybox", "data-gall", "data-pswp-width", "data-pswp-src")
_LIGHTBOX_CLASSES = {"venobox", "glightbox", "spotlight", "lightbox", "fancybox", "image-popup"}


def _classes(el: object) -> list[str]:
    return attr(el, "class").split() if isinstance(el, Tag) else []


def _next_tag(el: Tag) -> Tag | None:
    sib = el.next_sibling
    while isinstance(sib, NavigableString) and not str(sib).strip():
        sib = sib.next_sibling
    return sib if isinstance(sib, Tag) else None


def _img_src(img: Tag) -> str:
    src = attr(img, "src")
    lazy = attr(img, "data-src") or attr(img, "data-original")
    if lazy and (not src or src.startswith("data:")):
        src = lazy
    if not src and attr(img, "srcset").strip(","):
        src = (attr(img, "srcset").split(",")[0].split() or [""])[0]
    return src.strip()


def unwrap_pictures(doc: Doc) -> None:
    """`<picture>` -> its `<img>` (the webp `<source>`s are only alternatives)."""
    for pic in doc.soup.find_all("picture"):
        for source in pic.find_all("source"):
            source.decompose()
        pic.unwrap()


def _is_caption(el: object) -> bool:
    return isinstance(el, Tag) and el.name in ("div", "p") and "caption" in _classes(el) and el.find("img") is None


def _text_without_captions(el: Tag) -> str:
    parts = []
    for s in el.find_all(string=True):
        if any(p.name == "figcaption" or _is_caption(p) for p in s.parents if isinstance(p, Tag)):
            continue
        if any(p.name in ("script", "style") for p in s.parents if isinstance(p, Tag)):
            continue
        parts.append(str(s))
    return "".join(parts).strip()


def _plain(el: Tag | None) -> str:
    return " ".join(el.get_text(" ").split()) if el is not None else ""


def _image_md(img: Tag, unit: Tag | None, caption: str | None = None, scope: Tag | None = None) -> str:
    """`![caption](url)`, using a lightbox link's full-size image when there is one.

    `unit` is the element standing for this one image (a figure, a grid cell, a link...);
    `scope` is the element being replaced: only a link inside it is taken into the image.
    """
    url = _img_src(img)
    link = None
    anchor = img.find_parent("a")
    scope = scope if scope is not None else unit
    if anchor is not None and not (anchor is scope or (scope is not None and scope in anchor.parents)):
        anchor = None
    if anchor is not None:
        big = attr(anchor, "data-pswp-src") or attr(anchor, "href")
        if big and _IMG_EXT.search(big):
            url = big
        elif big and not big.startswith("#") and big != url:
            link = big
    if caption is None:
        figcaption = unit.find("figcaption") if isinstance(unit, Tag) and unit is not img else None
        caption = _plain(figcaption) or useful_alt(attr(img, "alt"), url) or attr(img, "title")
    title = attr(img, "title")
    title_part = f' "{title}"' if title and title != caption and '"' not in title else ""
    md = drawing_html(img, url, caption) if drawing_src(url) else f"![{escape_alt(caption)}]({md_url(url)}{title_part})"
    return f"[{md}]({md_url(link)})" if link else md


def _layout(el: Tag) -> str | None:
    cls = set(_classes(el))
    if el.name == "figure" and "gallery" in cls:
        for c in cls:
            if c.startswith("gallery-") and c[8:] in ("masonry", "grid", "row"):
                return c[8:]
        return "masonry"
    if "masonry" in cls:
        return "masonry"
    if cls & {"spotlight-group", "pswp-gallery", "wp-block-gallery", "gallery", "lightgallery", "image-gallery"}:
        return "grid"
    if el.name == "swiper-container" or cls & {"swiper", "swiper-container", "carousel"}:
        return "grid"
    if el.name == "img-comparison-slider":
        return "row"
    if el.name == "div" and (("d-flex" in cls and "flex-wrap" in cls) or "row" in cls):
        return "row"
    return None


def _units(container: Tag) -> list[tuple[Tag, Tag]]:
    """(img, unit) pairs: the unit is the image's own figure, else the container's child holding it."""
    pairs = []
    for img in container.find_all("img"):
        if not _img_src(img):
            continue
        unit = img.find_parent("figure")
        if unit is None or unit is container or container not in unit.parents:
            unit = img
            while unit.parent is not None and unit.parent is not container:
                unit = unit.parent
        pairs.append((img, unit))
    return pairs


def _caption_md(doc: Doc, el: Tag | None) -> str:
    if el is None:
        return ""
    text = doc.inline_fragment(el)
    return text.strip()


def _gallery(doc: Doc, layout: str, pairs: list[tuple[Tag, Tag]], caption: Tag | None, scope: Tag) -> Tag:
    head = "::: gallery" if layout == "masonry" else f"::: gallery {layout}"
    items = [_image_md(img, unit, scope=scope) for img, unit in pairs]
    if any(drawing_src(_img_src(img)) for img, _ in pairs):  # a gallery takes Markdown images, and no drawing
        if caption is not None:
            items.append(_caption_md(doc, caption))
            caption.decompose()
        return doc.block("\n\n".join(item for item in items if item))
    lines = [head, *items, ":::"]
    cap = _caption_md(doc, caption)
    if cap:
        lines.append(": " + cap)
    if caption is not None:
        caption.decompose()
    return doc.block("\n".join(lines), " ".join(lines[1 : 1 + len(pairs)]))


def _single(doc: Doc, img: Tag, unit: Tag, caption: Tag | None, scope: Tag | None = None) -> Tag:
    text = _plain(caption) if caption is not None else None
    figcaption = unit.find("figcaption") if isinstance(unit, Tag) else None
    if not text and figcaption is not None:
        text = _plain(figcaption)
    md = _image_md(img, unit, text if text else None, scope=scope)
    if caption is not None:
        caption.decompose()
    return doc.block(md, md)


def convert_galleries(doc: Doc) -> None:
    """Image grids -> `::: gallery [layout]` blocks; a grid of one image is a plain image."""
    seen: set[int] = set()

    def candidate(t: object) -> bool:
        return isinstance(t, Tag) and id(t) not in seen and _layout(t) is not None and t.find("img") is not None

    while (el := doc.soup.find(candidate)) is not None:
        seen.add(id(el))
        layout = _layout(el)
        strict = el.name == "div" and ("row" in _classes(el) or "d-flex" in _classes(el))
        if strict and _text_without_captions(el):
            continue  # a layout row holding text: not an image grid
        pairs = _units(el)
        if not pairs:
            continue
        caption = None
        if el.name == "figure":
            caption = el.find("figcaption", class_="gallery-caption", recursive=False) or el.find(
                "figcaption", recursive=False
            )
        after = _next_tag(el)
        if caption is None and _is_caption(after):
            caption = after
        if el.name == "swiper-container" or "swiper" in _classes(el):
            doc.warn(f"an image slider with {len(pairs)} images became a gallery")
        elif el.name == "img-comparison-slider":
            doc.warn("an image comparison slider became a gallery of its two images")
        if len(pairs) == 1:
            img, unit = pairs[0]
            el.replace_with(_single(doc, img, unit, caption, el))
        else:
            el.replace_with(_gallery(doc, layout or "grid", pairs, caption, el))


def _lightbox_anchor(t: object) -> bool:
    if not (isinstance(t, Tag) and t.name == "a" and t.find("img") is not None):
        return False
    return any(t.has_attr(a) for a in _LIGHTBOX_ATTRS) or bool(set(_classes(t)) & _LIGHTBOX_CLASSES)


def convert_lightbox_groups(doc: Doc) -> None:
    """A paragraph holding only lightbox links around images (lightbox2, Venobox...) -> a grid."""
    for p in doc.soup.find_all(["p", "div"]):
        if p.parent is None:
            continue
        kids = [c for c in p.children if isinstance(c, Tag) or str(c).strip()]
        anchors = [k for k in kids if isinstance(k, Tag) and _lightbox_anchor(k)]
        if len(kids) < 2 or len(anchors) != len(kids):
            continue
        pairs = [(img, a) for a in anchors if isinstance(img := a.find("img"), Tag)]
        caption = _next_tag(p)
        p.replace_with(_gallery(doc, "grid", pairs, caption if _is_caption(caption) else None, p))


def convert_figures(doc: Doc) -> None:
    """Figures (and lone images followed by an al-folio caption) -> `![caption](url)` paragraphs."""
    for fig in doc.soup.find_all("figure"):
        if fig.parent is None:
            continue
        imgs = [i for i in fig.find_all("img") if _img_src(i)]
        if not imgs:
            continue
        if _text_without_captions(fig):
            continue  # a figure with more than pictures: convert its parts as they are
        caption = fig.find("figcaption")
        after = _next_tag(fig)
        if (caption is None or not _plain(caption)) and _is_caption(after):
            caption = after
        if len(imgs) == 1:
            fig.replace_with(_single(doc, imgs[0], fig, caption))
        else:
            fig.replace_with(_gallery(doc, "row", [(i, i) for i in imgs], caption, fig))
    for cap in doc.soup.find_all(_is_caption):
        if cap.parent is None:
            continue
        prev = cap.previous_sibling
        while isinstance(prev, NavigableString) and not str(prev).strip():
            prev = prev.previous_sibling
        if not isinstance(prev, Tag) or prev.name not in ("p", "div", "a", "img"):
            continue
        imgs = [prev] if prev.name == "img" else prev.find_all("img")
        if len(imgs) != 1 or _text_without_captions(prev) or prev.has_attr("data-md-block"):
            continue
        prev.replace_with(_single(doc, imgs[0], prev, cap))


_SVG_NS = ' xmlns="http://www.w3.org/2000/svg"'
_XLINK_NS = ' xmlns:xlink="http://www.w3.org/1999/xlink"'
_LENGTH = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*")


def _drawing_size(el: Tag) -> tuple[str, str]:
    """A drawing's width and height in CSS pixels, as an `<img>` takes them: its own, else its viewBox's."""
    width, height = (_LENGTH.fullmatch(attr(el, name)) for name in ("width", "height"))
    if width and height:
        return str(round(float(width.group(1)))), str(round(float(height.group(1))))
    box = attr(el, "viewbox").replace(",", " ").split()
    if len(box) == 4 and all(_LENGTH.fullmatch(v) for v in box[2:]):
        w, h = float(box[2]), float(box[3])
        if width:  # one of them given: the other follows the drawing's proportions
            return str(round(float(width.group(1)))), str(round(float(width.group(1)) * h / w)) if w else ""
        if height:
            return str(round(float(height.group(1)) * w / h)) if h else "", str(round(float(height.group(1))))
        return str(round(w)), str(round(h))
    return "", ""


def drawing_image(el: Tag) -> Tag | None:
    """An inline `<svg>` of a feed as an `<img>` of a `data:image/svg+xml` URL, its size kept (issue 29: untrusted
    SVG is never inlined; a browser runs no script and loads nothing in an image). The drawing is written as nh3
    gives it back (SVG's camelCase names restored), with its namespaces; None when that is not well-formed XML."""
    import base64
    import xml.etree.ElementTree as ET

    from site_builder.importer.sanitize import raw_html

    svg = raw_html(el).replace("&nbsp;", "&#160;")
    head = svg[: svg.find(">")]
    if not svg.startswith("<svg"):
        return None
    if "xmlns=" not in head:
        svg = "<svg" + _SVG_NS + svg[4:]
    if "xlink:" in svg and "xmlns:xlink" not in head:
        svg = "<svg" + _XLINK_NS + svg[4:]
    try:
        ET.fromstring(svg)
    except ET.ParseError:
        return None
    title = el.find("title")
    img = Tag(name="img")
    img["src"] = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    img["alt"] = " ".join((title.get_text(" ") if title else attr(el, "aria-label")).split())
    width, height = _drawing_size(el)
    if width and height:
        img["width"], img["height"] = width, height
    return img


def convert_drawings(doc: Doc) -> None:
    """Every inline `<svg>` of an entry -> an `<img>` of its drawing (a `data:` URL), or its title if it has none
    an image can show."""
    for el in doc.soup.find_all("svg"):
        if el.parent is None or el.find_parent("svg") is not None:
            continue  # inside one replaced already
        img = drawing_image(el)
        if img is None:
            doc.warn("an inline <svg> is not well-formed XML; shown as its title")
            title = el.find("title")
            el.replace_with(NavigableString(title.get_text(" ") if title else ""))
        else:
            el.replace_with(img)
