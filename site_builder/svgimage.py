"""An author's own SVG file shown by a post (`![](fig.svg)`): published as the file it is and shown as an `<img>`
(never inlined: a browser runs no script in an image), its size from the root element's `width`/`height` or
`viewBox` when it gives one. Pillow reads no SVG, so this is the probe for `.svg` files."""

from __future__ import annotations

import re
from pathlib import Path

from site_builder.images import ImageError, ImageInfo, probe

SVG = "SVG"  # ImageInfo.format of an SVG file: published as it is, no WebP variants
_HEAD = 65536  # the root element is at the start of the file (after an XML declaration, a DOCTYPE, comments)
_ROOT = re.compile(rb"<svg\b[^>]*>", re.I)
_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$")  # a length in user units or px (not %, em, cm...)


def probe_image(path: Path) -> ImageInfo:
    """`images.probe` for a raster image; for an `.svg` file, its size from its root element (0 x 0 when it
    gives none); ImageError for a file that is missing, unreadable or holds no `<svg>` element."""
    if Path(path).suffix.lower() != ".svg":
        return probe(path)
    try:
        st = path.stat()
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
    except FileNotFoundError:
        raise ImageError("file not found") from None
    except OSError as exc:
        raise ImageError(f"cannot read: {(exc.strerror or str(exc)).lower()}") from None
    root = _ROOT.search(head)
    if root is None:
        raise ImageError("not an SVG image (no <svg> element)")
    width, height = svg_size(root.group().decode("utf-8", "replace"))
    return ImageInfo(path, (st.st_mtime_ns, st.st_size), width, height, SVG, (), True)


def _attr(tag: str, name: str) -> str | None:
    found = re.search(rf"""\s{name}\s*=\s*(["'])(.*?)\1""", tag, re.S)
    return found.group(2) if found else None


def _length(value: str | None) -> float | None:
    found = _LENGTH.match(value or "")
    return float(found.group(1)) if found and float(found.group(1)) > 0 else None


def svg_size(tag: str) -> tuple[int, int]:
    """The displayed size of an SVG root element `<svg ...>`, as a browser sizes it: `width` and `height` in px
    (one of them with the other from the `viewBox`'s ratio), else the `viewBox`'s; (0, 0) when neither says."""
    width, height = _length(_attr(tag, "width")), _length(_attr(tag, "height"))
    box = (_attr(tag, "viewBox") or "").replace(",", " ").split()
    try:
        vw, vh = (float(box[2]), float(box[3])) if len(box) == 4 else (0.0, 0.0)
    except ValueError:
        vw = vh = 0.0
    if width and height:
        return round(width), round(height)
    if vw > 0 and vh > 0:
        if width:
            return round(width), round(width * vh / vw)
        if height:
            return round(height * vw / vh), round(height)
        return round(vw), round(vh)
    return 0, 0
