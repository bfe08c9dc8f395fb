"""What code returned, as a page shows it: the value a block ends with (notebook style, `<div class="output value">`),
and a notebook's stored outputs. Used by the render stage and by notebooks read at the load stage.

The runner sends the value's repr (`text/plain`) and its richest other form (`text/html`, `image/svg+xml`,
`image/png` as base64): the box shows the first of HTML, SVG, PNG, text that can be shown safely. What the runner
or a cache file gives is untrusted: HTML goes through nh3 (no script, `<style>`, event handlers or script URLs;
tables, classes and a few style properties kept), SVG is an image of a data: URL (`images.svg_image`, as figures
are: never inlined, so no script of it runs), a PNG must be one (a data: URL); anything else is left out, down to
the repr as text.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from html import escape

import nh3

from site_builder.images import svg_image


def _names(text: str) -> set[str]:
    return set(text.split())


_TAGS = _names(
    "a abbr b bdi bdo blockquote br caption cite code col colgroup dd del details dfn div dl dt em figcaption "
    "figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong sub summary sup table "
    "tbody td tfoot th thead time tr tt u ul var wbr"
)
# removed with what is inside: what runs script, hosts a page or a form, styles the whole page; SVG and MathML
# (whose text alone would be noise)
_DROPPED = _names(
    "script style template iframe frame frameset object embed applet noscript noembed noframes textarea select "
    "option title xmp head link meta base form input button svg math"
)
_ATTRIBUTES = {
    "*": {"class", "title", "lang", "dir", "style"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start", "reversed"},
    "details": {"open"},
    "time": {"datetime"},
}
_STYLES = _names(
    "color background-color text-align vertical-align font-weight font-style font-variant-numeric "
    "text-decoration white-space border border-top border-bottom border-left border-right border-color "
    "padding padding-top padding-bottom padding-left padding-right width min-width max-width"
)
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}\Z")
_PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def _keep(tag: str, name: str, value: str) -> str | None:
    """nh3's attribute filter: a data: URL only as an image's source, and only of a raster image."""
    if name in ("href", "src") and value.strip().lower().startswith("data:"):
        return value if tag == "img" and name == "src" and _DATA_IMAGE.match(value.strip()) else None
    return value


def clean_html(html: str) -> str:
    """A value's HTML without what can run script or restyle the page."""
    return nh3.clean(
        html,
        tags=_TAGS,
        clean_content_tags=_DROPPED,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto", "data"},
        attribute_filter=_keep,
        filter_style_properties=_STYLES,
        strip_comments=True,
    )


def _html(data: str, text: str) -> str:
    cleaned = clean_html(data).strip()
    return f'<div class="value-body" tabindex="0">{cleaned}</div>' if cleaned else ""  # a wide table scrolls


def _svg(data: str, text: str) -> str:
    image = svg_image(data, text if len(text) <= 200 else text[:199] + "…")
    return f'<div class="value-body">{image}</div>' if image else ""


def _png(data: str, text: str) -> str:
    data = "".join(data.split())
    if not _BASE64.match(data):
        return ""
    try:
        head = base64.b64decode(data[:32])
    except (binascii.Error, ValueError):
        return ""
    if not head.startswith(_PNG_HEAD):
        return ""
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    alt = escape(text if len(text) <= 200 else text[:199] + "…")
    return (
        f'<div class="value-body"><img src="data:image/png;base64,{data}" alt="{alt}" width="{width}" '
        f'height="{height}"></div>'
    )


def _text(data: str, text: str) -> str:
    return f'<pre tabindex="0"><code>{escape(data)}</code></pre>'


_SHOWN: tuple[tuple[str, str, Callable[[str, str], str]], ...] = (
    ("text/html", "html", _html),
    ("image/svg+xml", "svg", _svg),
    ("image/png", "png", _png),
    ("text/plain", "text", _text),
)


def value_html(value: object) -> str:
    """The box showing a block's value; "" when it has none (None, hidden by `;`) or none that can be shown."""
    if not isinstance(value, dict):
        return ""
    text = value.get("text/plain")
    text = text if isinstance(text, str) else ""
    for mime, kind, show in _SHOWN:
        data = value.get(mime)
        body = show(data, text) if isinstance(data, str) else ""
        if body:
            return f'<div class="output value value-{kind}"><span class="value-label">Out:</span>{body}</div>\n'
    return ""
