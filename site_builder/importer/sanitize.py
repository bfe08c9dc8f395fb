"""Imported HTML is untrusted: nothing in it that can run script or send a form reaches a built page.

Two places, one policy. `clean` is the pass over an entry's tree right after `strip_noise` (MathJax
`<script type="math/tex">` is TeX by then, a `<script src>` a link): it removes scripts' hosts, plug-ins and forms
(an `<iframe>` of a web page becomes a link to it), event handlers and script or data URLs, and says what it removed
in one warning per post. The Markdown written from the tree carries no attributes and escapes its text; the HTML
kept as it is (players, SVG, custom elements, MathML without TeX) goes through nh3 in `raw_html` on its way out.
The tree itself is not put through nh3: parsing it again as a browser does moves things around (a table gains a
`<tbody>`, and with it an empty header row), and the import would no longer give the Markdown it gives now.
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import urljoin

import nh3
from bs4 import Tag

from site_builder.importer.html2md import Doc, attr
from site_builder.importer.text import SAFE_SCHEMES, md_url, unsafe_url

_TAG_NAMES = (
    "a abbr acronym address area article aside audio b base bdi bdo big blockquote body br button canvas caption "
    "center cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption "
    "figure font footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend "
    "li link main map mark menu meta meter nav noscript object ol optgroup option output p param picture pre "
    "progress q rp rt ruby s samp script section select small source span strike strong style sub summary sup table "
    "tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr svg math semantics "
    "annotation mrow mi mo mn ms mtext mfrac msqrt mroot msub msup msubsup munder mover munderover mtable mtr mtd "
    "mspace mstyle mpadded mphantom menclose annotation-xml path g circle rect line polyline polygon ellipse defs "
    "use text tspan symbol clippath lineargradient stop"
)
KNOWN_TAGS = frozenset(_TAG_NAMES.split())  # what HTML, MathML and SVG define; any other tag is made up


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# removed with everything inside: script and what hosts a page or a plug-in, forms and their fields, document tags
DROPPED = _names(
    "script style iframe frame frameset object embed applet param form input button select option optgroup "
    "textarea datalist keygen base meta link template noembed noframes portal"
)
# never kept as elements (their text stays): markup a browser reads differently from a parser's first look
_UNWRAPPED = _names("noscript xmp plaintext listing html head body")
_SVG_CAMEL = ("clipPath", "linearGradient", "radialGradient", "textPath")  # as nh3 names them
_MATHML_MORE = _names("mmultiscripts mprescripts none merror mlabeledtr")
_MATHML_TAGS = _MATHML_MORE | _names(
    "math semantics annotation annotation-xml mrow mi mo mn ms mtext mfrac msqrt mroot msub msup msubsup munder "
    "mover munderover mtable mtr mtd mspace mstyle mpadded mphantom menclose"
)
_SVG_TAGS = _names("svg g path circle rect line polyline polygon ellipse defs use text tspan symbol stop")
SAFE_TAGS = frozenset(KNOWN_TAGS - DROPPED - _UNWRAPPED - {"clippath", "lineargradient"}) | _MATHML_MORE

_GENERIC = {"id", "class", "title", "lang", "dir", "role", "align", "width", "height", "hidden"}
_MATHML_ATTRS = _names(
    "display xmlns alttext displaystyle scriptlevel mathvariant mathsize stretchy fence separator separators accent "
    "accentunder largeop movablelimits lspace rspace minsize maxsize symmetric form linethickness numalign "
    "denomalign bevelled columnalign rowalign columnspacing rowspacing columnlines rowlines frame framespacing "
    "equalrows equalcolumns columnspan rowspan depth voffset notation encoding open close"
)
_SVG_ATTRS = _names(
    "xmlns version x y x1 y1 x2 y2 cx cy r rx ry d dx dy points transform fill fill-opacity fill-rule stroke "
    "stroke-width stroke-linecap stroke-linejoin stroke-dasharray stroke-opacity opacity font-size font-family "
    "font-weight font-style text-anchor dominant-baseline offset stop-color stop-opacity clip-path viewBox "
    "preserveAspectRatio gradientUnits gradientTransform clipPathUnits"
)
_TAG_ATTRS: dict[str, set[str]] = {
    "a": {"href", "name", "hreflang"},
    "img": {"src", "srcset", "sizes", "alt", "loading", "decoding"},
    "source": {"src", "srcset", "sizes", "type", "media"},
    "video": {"src", "poster", "controls", "loop", "muted", "playsinline", "preload", "autoplay"},
    "audio": {"src", "controls", "loop", "muted", "preload"},
    "track": {"src", "kind", "srclang", "label", "default"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "td": {"colspan", "rowspan", "headers"},
    "th": {"colspan", "rowspan", "headers", "scope", "abbr"},
    "col": {"span"},
    "colgroup": {"span"},
    "details": {"open"},
    "time": {"datetime"},
    "ins": {"datetime", "cite"},
    "del": {"datetime", "cite"},
    "q": {"cite"},
    "blockquote": {"cite"},
    "data": {"value"},
    "use": {"href", "xlink:href"},
}
_ATTRIBUTES = {
    "*": _GENERIC,
    **_TAG_ATTRS,
    **{name: _MATHML_ATTRS for name in _MATHML_TAGS},
    **{name: _SVG_ATTRS | _TAG_ATTRS.get(name, set()) for name in _SVG_TAGS | set(_SVG_CAMEL)},
}
_URLS = {"href", "src", "srcset", "poster", "cite", "xlink:href", "action", "formaction", "background"}
_CUSTOM = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")  # a custom element's name: <d-footnote>, <swiper-container>

_SVG_DATA = re.compile(r"data:image/svg\+xml[;,]", re.I)
_SCRIPT_URL = "link or source with a script or data URL"
_PLURAL = {_SCRIPT_URL: "links or sources with a script or data URL"}


def _is_url(name: str) -> bool:
    return name in _URLS or (name.startswith("data-") and name.endswith(("src", "srcset", "href", "original", "url")))


def _url_ok(tag: str, name: str, value: str) -> bool:
    """Whether an attribute may stay: anything that is not a URL; a URL that runs no script and shows no page of
    its own; in `<use>`, only a part of the same drawing."""
    if not _is_url(name):
        return True
    if tag == "use":
        return value.strip().startswith("#")
    if tag == "img" and name == "src" and _SVG_DATA.match(value):
        return True  # a drawing shown as an image runs no script (images.drawing_image makes these)
    urls = [part.split()[0] for part in value.split(",") if part.split()] if name.endswith("srcset") else [value]
    return not any(unsafe_url(url) for url in urls)


def _keep(tag: str, name: str, value: str) -> str | None:
    """nh3's attribute filter."""
    return value if _url_ok(tag, name, value) else None


def raw_html(el: Tag) -> str:
    """An element as sanitized HTML, for the places that keep imported HTML as it is (embeds, SVG, MathML)."""
    return clean_html(str(el), {t.name for t in [el, *el.find_all(True)]})


def clean_html(html: str, names: set[str]) -> str:
    """HTML through nh3 with the import's policy; `names`: the tags it holds (a custom element's is kept)."""
    custom = {name for name in names if _CUSTOM.fullmatch(name) and name not in KNOWN_TAGS}
    return nh3.clean(
        html,
        tags=set(SAFE_TAGS | custom | set(_SVG_CAMEL)),
        clean_content_tags=set(DROPPED),
        attributes=_ATTRIBUTES,
        generic_attribute_prefixes={"data-", "aria-"},
        url_schemes=set(SAFE_SCHEMES) | {"data"},
        attribute_filter=_keep,
        link_rel=None,
        strip_comments=True,
    )


def _embed_link(doc: Doc, el: Tag) -> str | None:
    """The web address an `<iframe>` shows (a video player, a map), absolute; None for anything else."""
    src = attr(el, "src").strip()
    url = urljoin(doc.base, src) if doc.base and src else src
    url = "https:" + url if url.startswith("//") else url
    return url if re.match(r"https?://[^/\s]", url, re.I) and not unsafe_url(url) else None


def clean(doc: Doc) -> None:
    """Remove from `doc.soup` what can run script or send data; one warning counts what went."""
    dropped: Counter[str] = Counter()
    for el in doc.soup.find_all(DROPPED):
        if el.parent is None or el.find_parent(DROPPED) is not None:
            continue  # inside one removed already
        url = _embed_link(doc, el) if el.name == "iframe" else None
        if url is not None:
            doc.warn(f"replaced an <iframe> embed by a link to {url}")
            el.replace_with(doc.block(f"<{md_url(url)}>"))
        else:
            dropped[f"<{el.name}>"] += 1
            el.decompose()
    for el in doc.soup.find_all(True):
        for name in list(el.attrs):
            value = attr(el, name)
            if name.startswith("on") or name == "srcdoc":
                del el[name]  # event handlers: themes put them on images, nothing the reader sees goes with them
            elif not _url_ok(el.name, name, value):
                del el[name]
                dropped[_SCRIPT_URL] += 1
    if dropped:
        parts = [f"{n} {what if n == 1 else _PLURAL.get(what, what)}" for what, n in sorted(dropped.items())]
        doc.warn(f"removed HTML that could run script or send data: {', '.join(parts)}")
