"""Preprocessing of a post's HTML tree: URLs, code blocks, math, footnotes and odd elements."""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import urljoin

from bs4 import Tag
from bs4.element import Comment, NavigableString

from site_builder.importer.html2md import Doc, attr
from site_builder.importer.math import classes as _classes
from site_builder.importer.math import math_tag
from site_builder.importer.sanitize import KNOWN_TAGS, raw_html
from site_builder.importer.text import code_span, escape_text, md_url, unsafe_url
from site_builder.importer.wordpress import KEPT

_URL_ATTRS = {
    "a": ["href", "data-pswp-src"],
    "img": ["src", "data-src"],
    "source": ["src"],
    "iframe": ["src"],
    "video": ["src", "poster"],
    "audio": ["src"],
    "embed": ["src"],
    "object": ["data"],
    "track": ["src"],
    "link": ["href"],
}
_NO_LANG = {"plaintext", "plain", "none", "nohighlight", "no-highlight", "highlight", "highlighter-rouge", "table"}
_LANG_CLASS = re.compile(r"^(?:language|lang|highlight|brush)[-:]?(?P<lang>[\w+#.-]+)$")
# Code "languages" a Jekyll theme renders in the browser into something else (and this site does not: `mermaid`
# is a diagram here too)
_CLIENT_RENDERED = {
    "pseudocode",
    "typograms",
    "diff2html",
    "chart",
    "echarts",
    "vega_lite",
    "geojson",
    "plotly",
    "tikzjax",
    "abc",
    "wavedrom",
    "markmap",
}


def resolve_urls(doc: Doc) -> None:
    """Make relative links and image URLs absolute against the entry's base; warn about images left without a host."""
    if doc.base:
        _resolve_against_base(doc)
    for img in doc.soup.find_all("img"):
        src = attr(img, "src").strip()
        if src and not src.startswith("data:") and not re.match(r"^([a-z][a-z0-9+.-]*:)?//", src, re.I):
            doc.warn(
                f"image {src} has no host in the feed: put the file at content/{src.lstrip('/')} "
                f"(or give the full URL) before building"
            )


def _resolve_against_base(doc: Doc) -> None:
    for name, attrs in _URL_ATTRS.items():
        for el in doc.soup.find_all(name):
            for name_of in attrs:
                value = el.get(name_of)
                if not value or not isinstance(value, str):
                    continue
                value = value.strip()
                if value.startswith(("#", "data:", "mailto:", "javascript:", "tel:")) or re.match(
                    r"^[a-z][a-z0-9+.-]*:", value, re.I
                ):
                    continue
                el[name_of] = urljoin(doc.base, value)


def strip_noise(doc: Doc) -> None:
    """Comments (a `<!--more-->` stays, as a line of its own), the builder's heading anchors, footnote separators,
    scripts and styles."""
    for c in doc.soup.find_all(string=lambda s: isinstance(s, Comment)):
        if c.strip().split(" ", 1)[0] == "more":  # WordPress's `<!--more-->`: where a list's excerpt ends
            c.replace_with(doc.block("<!--more-->"))
        elif c.startswith(KEPT):  # what the WordPress reader did not convert (wordpress.unknown): kept, hidden
            c.replace_with(doc.block(f"<!-- {c.strip().replace('--', '- -')} -->"))
        else:
            c.extract()
    for el in doc.soup.find_all(["a", "hr"], class_=["header-anchor", "anchorjs-link", "footnotes-sep"]):
        el.decompose()
    for el in doc.soup.find_all("style"):
        doc.warn("dropped an inline <style> element")
        el.decompose()
    for el in doc.soup.find_all("script"):
        src = attr(el, "src")
        if src and not unsafe_url(src):
            doc.warn(f"replaced a <script src> embed by a link to {src}")
            el.replace_with(
                doc.block(f"<{md_url(src)}>" if re.match(r"[a-z][a-z0-9+.-]*:", src, re.I) else escape_text(src))
            )
        elif attr(el, "type").startswith("math/tex"):
            tex = el.get_text()
            display = "mode=display" in (el.get("type") or "")
            el.replace_with(math_tag(doc, tex, display))
        else:
            doc.warn("dropped an inline <script> element")
            el.decompose()


# --- code ---------------------------------------------------------------------------------------


def _tag(found: object) -> Tag | None:
    return found if isinstance(found, Tag) else None


def _code_lang(*els: Tag | None) -> str:
    for el in els:
        if el is None:
            continue
        if el.get("data-lang"):
            return str(el["data-lang"]).strip()
        for cls in _classes(el):
            m = _LANG_CLASS.match(cls)
            if m and cls not in ("highlighter-rouge",):
                lang = m.group("lang")
                return lang[7:] if lang.startswith("source-") else lang  # GitHub's highlight-source-python
        if el.name == "pre" and attr(el, "lang"):
            return attr(el, "lang")
        if el.name in ("code", "pre"):  # Octopress and bare Pygments: <code class='python'>
            known = [cls for cls in _classes(el) if cls.lower() not in _NO_LANG and _is_lexer(cls)]
            if known:
                return known[0]
    return ""


@cache
def _is_lexer(name: str) -> bool:
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        find_lexer_class_by_name(name.lower())
    except ClassNotFound:
        return False
    return True


def _is_code_wrapper(el: Tag) -> bool:
    if el.name == "pre" or (el.name == "table" and "highlighttable" in _classes(el)):  # Pygments' line numbers
        return True
    if el.name in ("div", "figure") and el.find("pre") is not None:
        cls = _classes(el)
        return (
            "highlighter-rouge" in cls
            or "highlight" in cls
            or "codehilite" in cls
            or any(c.startswith("language-") for c in cls)
        )
    return False


def fence(code: str, lang: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = code[:-1] if code.endswith("\n") else code
    return f"{ticks}{lang}\n{body}\n{ticks}" if body or code else f"{ticks}{lang}\n{ticks}"


def code_text(pre: Tag) -> str:
    """The exact text of a <pre>: entities decoded, <br> as newlines, HTML's leading newline dropped."""
    for br in pre.find_all("br"):
        br.replace_with("\n")
    text = pre.get_text().replace("\r\n", "\n").replace("\r", "\n")
    first = next(iter(pre.children), None)
    if isinstance(first, NavigableString) and str(first).startswith("\n"):
        text = text[1:]
    return text


def convert_code_blocks(doc: Doc) -> None:
    """Rouge, Pygments, our own and bare <pre> blocks -> fenced code with the language."""
    while True:
        el = doc.soup.find(lambda t: isinstance(t, Tag) and _is_code_wrapper(t))
        if el is None:
            return
        pres = [
            p
            for p in ([el] if el.name == "pre" else el.find_all("pre"))
            if not ({"lineno", "gutter"} & set(_classes(p)))
            and not p.find_parent(class_=("gutter", "linenos", "linenodiv"))
        ]
        found = pres[-1] if pres else el.find("pre")
        pre = found if isinstance(found, Tag) else el
        lang = _code_lang(
            _tag(pre.find("code")), pre, _tag(el.find("code")), el, el.parent if el.name == "pre" else None
        )
        if lang.lower() in _NO_LANG:
            lang = ""
        if lang.lower() in _CLIENT_RENDERED:
            doc.warn(f"kept a `{lang}` block as code; the original site rendered it in the browser")
        text = code_text(pre)
        el.replace_with(doc.block(fence(text, lang), code_span(text)))


# --- math ---------------------------------------------------------------------------------------


# --- footnotes ----------------------------------------------------------------------------------

_BACKREF = {"reversefootnote", "footnote-backref", "footnote-back"}


def _footnote_containers(doc: Doc) -> list[Tag]:
    found: list[Tag] = []
    for el in doc.soup.find_all(["div", "section", "ol", "aside"]):
        cls = _classes(el)
        if ("footnotes" in cls or el.get("role") == "doc-endnotes") and not any(el in f.descendants for f in found):
            found.append(el)
    return found


def _label(li_id: str, n: int) -> str:
    m = re.match(r"^(?:fn|footnote)[:\-_]?(.+)$", li_id or "")
    label = m.group(1) if m else (li_id or str(n))
    label = re.sub(r"[\s\]\[^]+", "-", label).strip("-")
    return label or str(n)


def convert_footnote_refs(doc: Doc) -> list[tuple[Tag, list[tuple[Tag, str]]]]:
    """Replace footnote references by `[^label]`; returns the definitions still to convert."""
    result = []
    labels: dict[str, str] = {}
    for container in _footnote_containers(doc):
        ol = container if container.name == "ol" else container.find("ol")
        items = ol.find_all("li", recursive=False) if ol else []
        defs = []
        for n, li in enumerate(items, 1):
            label = _label(attr(li, "id"), n)
            if attr(li, "id"):
                labels[attr(li, "id")] = label
            defs.append((li, label))
        result.append((container, defs))
    if not labels:
        return result
    for a in doc.soup.find_all("a", href=True):
        href = attr(a, "href")
        if not href.startswith("#") or href[1:] not in labels:
            continue
        if set(_classes(a)) & _BACKREF or a.get("role") == "doc-backlink":
            continue
        target = a
        sup = a.find_parent("sup")
        if sup is not None and sup.get_text().strip() == a.get_text().strip():
            target = sup
        target.replace_with(doc.inline(f"[^{labels[href[1:]]}]"))
    return result


def convert_footnote_defs(doc: Doc, found: list[tuple[Tag, list[tuple[Tag, str]]]]) -> None:
    """Turn collected definitions into `[^label]: text` and drop the footnotes section."""
    for container, defs in found:
        for li, label in defs:
            for a in li.find_all("a"):
                if set(_classes(a)) & _BACKREF or a.get("role") == "doc-backlink":
                    prev = a.previous_sibling
                    if isinstance(prev, NavigableString):
                        prev.replace_with(str(prev).rstrip(" \t\n\u00a0"))
                    a.decompose()
            doc.add_footnote(label, doc.fragment(li.extract()))
        prev = container.find_previous_sibling()
        if prev is not None and prev.name == "hr" and _next_tag(prev) is container:
            prev.decompose()
        container.decompose()


def _next_tag(el: Tag) -> Tag | None:
    sib = el.next_sibling
    while isinstance(sib, NavigableString) and not str(sib).strip():
        sib = sib.next_sibling
    return sib if isinstance(sib, Tag) else None


# --- everything else ----------------------------------------------------------------------------


def convert_tabs(doc: Doc) -> None:
    """jekyll-tabs (`ul.tab` + `ul.tab-content`) -> a `:::: tab Label` block per tab (tabs.py: consecutive ones are
    one set), its content Markdown (four colons: a tab may hold `:::` blocks)."""
    for tabs in doc.soup.find_all("ul", class_="tab"):
        content = _next_tag(tabs)
        if not (isinstance(content, Tag) and content.name == "ul" and "tab-content" in _classes(content)):
            continue
        names = [" ".join(li.get_text(" ", strip=True).split()) for li in tabs.find_all("li", recursive=False)]
        panes = content.find_all("li", recursive=False)
        blocks = [f":::: tab {name}\n\n{doc.fragment(pane)}\n\n::::" for name, pane in zip(names, panes, strict=False)]
        tabs.decompose()
        content.replace_with(doc.block("\n\n".join(blocks)))


def _original_tag_text(doc: Doc, el: Tag) -> str:
    line, col = getattr(el, "sourceline", None), getattr(el, "sourcepos", None)
    if line is None or col is None:
        return f"<{el.name}>"
    lines = doc.html.split("\n")
    if line - 1 >= len(lines):
        return f"<{el.name}>"
    rest = "\n".join(lines[line - 1 :])[col:]
    m = re.match(r"<[^<>]*>", rest)
    return m.group() if m else f"<{el.name}>"


_INTERACTIVE = {"video", "audio", "canvas", "details", "svg"}  # iframes, plug-ins and forms are gone (sanitize)


def convert_interactive(doc: Doc) -> None:
    """Embeds, players, widgets and custom elements stay raw HTML, with a warning."""

    def interactive(t: object) -> bool:
        return isinstance(t, Tag) and (t.name in _INTERACTIVE or "-" in t.name)

    while (el := doc.soup.find(interactive)) is not None:
        raw = re.sub(r"\n\s*\n", "\n", raw_html(el)).strip()
        doc.warn(f"kept <{el.name}> as raw HTML")
        el.replace_with(doc.block(raw, raw.replace("\n", " ")))


def convert_made_up_tags(doc: Doc) -> None:
    """Tags no HTML knows (`<CLS>` typed into prose) -> the literal text the author meant. Inside a drawing they
    are SVG's own (`<animate>`, `<marker>`): kept as HTML is, through the sanitizer that drops what is unsafe."""

    def made_up(t: Tag) -> bool:
        return t.name not in KNOWN_TAGS and "-" not in t.name and t.find_parent("svg") is None

    for el in doc.soup.find_all(made_up):
        original = _original_tag_text(doc, el)
        doc.warn(f"unknown HTML element {original} kept as literal text")
        el.insert_before(NavigableString(original))
        el.unwrap()


def tidy_breaks(doc: Doc) -> None:
    """No whitespace around <br>, and none at the very end of a paragraph."""
    for br in doc.soup.find_all("br"):
        nxt, prev = br.next_sibling, br.previous_sibling
        if isinstance(nxt, NavigableString) and not isinstance(nxt, Comment):
            nxt.replace_with(str(nxt).lstrip(" \t\n"))
        if isinstance(prev, NavigableString) and not isinstance(prev, Comment):
            prev.replace_with(str(prev).rstrip(" \t\n"))
    for br in doc.soup.find_all("br"):
        sib = br.next_sibling
        while isinstance(sib, NavigableString) and not str(sib).strip():
            sib = sib.next_sibling
        if sib is None or (
            isinstance(sib, Tag)
            and (sib.name in ("p", "div", "ul", "ol", "table", "blockquote", "pre") or sib.has_attr("data-md-block"))
        ):
            br.decompose()
