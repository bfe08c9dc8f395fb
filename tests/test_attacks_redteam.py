"""An outside attacker's variants of issue 29's attacks, none of them written in the issue or the other attack
tests: hostile Atom, RSS and WordPress feeds (mXSS and namespace confusion, script URLs spelled every way, CSS,
SVG animation, Markdown and TeX confusion, control characters and bidi in titles, tags and slugs), a hostile
notebook's stored outputs, hostile values code returns, and post code going after the build's secrets by other
routes, in default and in strict mode.

One site holds every hostile input and is imported and built once. Every .html and .xml file of its output is
read with an HTML parser (the HTML a feed carries as text parsed again, as a feed reader shows it): no event
handler, no script URL, no inline `<svg>` from untrusted input. Then Chromium opens every page that holds a post,
with alert, confirm, prompt, print and fetch trapped: none may be called.
"""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import nbformat
import pytest
from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
from helpers import make_site, run_cli, scripts_that_ran, write_post
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)  # a feed read as a browser reads HTML
X = "alert(1)"
IMG = f"<img src=x onerror={X}>"
ESC = html.escape(IMG)  # text that reads as a tag once unescaped

# (slug, title, HTML body); the slug is the path of the entry's link
MXSS = [
    ("noscript-attr", f'<noscript><p title="</noscript>{IMG}"></p></noscript><p>t</p>'),
    ("noscript-style", f"<noscript><style></noscript>{IMG}</style></noscript>"),
    ("style-in-p", f"<p><style>{IMG}</style>t</p><style><!--</style>{IMG}--></style>"),
    ("xmp", f'<xmp><p title="</xmp>{IMG}"></xmp>'),
    ("plaintext", f"<plaintext><a title='</plaintext>{IMG}'>x</a>"),
    ("listing", f"<listing>{ESC}</listing><listing><b title='</listing>{IMG}'>y</b></listing>"),
    ("template", f"<template><img src=x onerror={X}></template><template><style></template>{IMG}</style></template>"),
    ("textarea", f'<textarea><p title="</textarea>{IMG}"></textarea>'),
    ("title-iframe", f"<title><img title='</title>{IMG}'></title><iframe><p title='</iframe>{IMG}'></iframe>"),
    ("noembed", f"<noembed><p title='</noembed>{IMG}'></noembed><noframes><p title='</noframes>{IMG}'></noframes>"),
    ("svg-p-style", f'<svg></p><style><a id="</style>{IMG}">'),
    ("svg-foreign", f"<svg><foreignObject><p><style>{IMG}</style></p></foreignObject></svg>"),
    ("svg-desc", f"<svg><desc><style><a title='</style>{IMG}'>d</a></style></desc><title>{IMG}</title></svg>"),
    (
        "math-mglyph",
        f'<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;'
        f'&lt;img&#9;src=1&#9;onerror={X}&gt;"></mglyph></table></mtext></math>',
    ),
    ("math-form", f"<form><math><mtext></form><form><mglyph><style></math>{IMG}"),
    (
        "annotation-xml",
        f'<math><annotation-xml encoding="text/html"><style>{IMG}</style><img src=x onerror={X}>'
        "</annotation-xml></math>",
    ),
    ("math-svg-nest", f"<math><mi><svg><mtext><style><a title='</style>{IMG}'>m</a></style></mtext></svg></mi></math>"),
    ("svg-math-nest", f"<svg><math><mi><style></math>{IMG}</style></mi></math></svg>"),
    ("comment-tricks", f"<!--><img src=x onerror={X}>--><p>a</p><!--!>{IMG}--><p>b</p><?x {IMG}?>"),
    ("cdata-svg", f"<svg><![CDATA[><img src=x onerror={X}>]]></svg>"),
    ("select-style", f"<select><style><img src=x onerror={X}></style></select><keygen autofocus onfocus={X}>"),
]
URLS = [
    ("tab-entity", f'<p><a href="jav&#x09;ascript:{X}">a</a> <a href="jav&#x0A;ascript:{X}">b</a></p>'),
    (
        "entity-forms",
        f'<p><a href="&#0000106avascript:{X}">a</a> <a href="javascript&#58;{X}">b</a> '
        f'<a href="&Tab;javascript:{X}">c</a> <a href="jAvAsCrIpT&NewLine;:{X}">d</a></p>',
    ),
    ("control-lead", f'<p><a href="&#1;javascript:{X}">a</a> <a href="\x14javascript:{X}">b</a></p>'),
    (
        "data-urls",
        f'<p><a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">a</a> '
        f'<a href="data:image/svg+xml,&lt;svg onload={X}&gt;">b</a> <img src="data:text/html,{ESC}"></p>',
    ),
    ("srcdoc", f'<iframe srcdoc="{ESC}"></iframe><p srcdoc="x">p</p><frame src="javascript:{X}">'),
    (
        "formaction",
        f'<button formaction="javascript:{X}">b</button><input type=image formaction="javascript:{X}">'
        f'<p formaction="javascript:{X}">p</p>',
    ),
    (
        "base-meta",
        f'<base href="javascript:{X}//"><meta http-equiv="refresh" content="0;url=javascript:{X}">'
        f'<link rel="stylesheet" href="javascript:{X}"><p><a href="rel">rel</a></p>',
    ),
    (
        "css",
        f'<p style="background:url(javascript:{X})">a</p><div style="width:expression({X})">b</div>'
        f'<p><span style="behavior:url(x.htc)">c</span></p><style>@import "javascript:{X}";</style>',
    ),
    (
        "svg-animate-href",
        f'<svg><a><animate attributeName="href" values="javascript:{X}"/><text y="9">t</text></a>'
        f'<a><animate attributeName="xlink:href" to="javascript:{X}" begin="0s"/><text>u</text></a></svg>',
    ),
    (
        "svg-set",
        f'<svg><a><set attributeName="href" to="javascript:{X}"/><text y="9">t</text></a>'
        f'<set attributeName="onmouseover" to="{X}"/><handler>{X}</handler></svg>',
    ),
    (
        "svg-xlink",
        f'<svg><a xlink:href="javascript:{X}"><text>t</text></a><image xlink:href="javascript:{X}"/>'
        f'<feImage href="javascript:{X}"/></svg><math><maction actiontype="statusline" xlink:href="javascript:{X}">'
        f'<mi href="javascript:{X}">x</mi></maction></math>',
    ),
    (
        "svg-use-data",
        '<svg><use href="data:image/svg+xml;base64,PHN2ZyBpZD0neCcgeG1sbnM9J2h0dHA6Ly93d3cudzMub3Jn'
        'LzIwMDAvc3ZnJz48aW1hZ2UgaHJlZj0neCcgb25lcnJvcj0nYWxlcnQoMSknLz48L3N2Zz4=#x"/>'
        '<use xlink:href="data:image/svg+xml,&lt;svg id=%22y%22&gt;#y"/></svg>',
    ),
    (
        "srcset-poster",
        f'<img srcset="javascript:{X} 1x, x.png 2x"><video poster="javascript:{X}">'
        f'<source src="javascript:{X}"><track src="javascript:{X}"></video><blockquote cite="javascript:{X}">q'
        "</blockquote>",
    ),
    (
        "data-attrs",
        f'<p data-href="javascript:{X}" data-src="javascript:{X}" data-x="javascript:{X}">d</p>'
        f'<a href="https://example.org/" data-srcset="javascript:{X} 1x">a</a>',
    ),
    (
        "object-embed",
        f'<object data="data:text/html,{ESC}"></object><embed src="data:image/svg+xml,&lt;svg onload'
        f'={X}&gt;"><applet code="x"></applet><portal src="javascript:{X}"></portal>',
    ),
    ("svg-root", f'<svg onload="{X}" width="20" height="10"><circle r="3"/></svg>'),
]
MARKDOWN = [
    ("backticks", f"<p>``{ESC}`` and `{ESC}` and <code>`</code>{ESC}<code>`</code></p>"),
    ("dollars", f"<p>$x$ {ESC} $y$ and $$ {ESC} $$ and \\$ {ESC} \\$</p>"),
    ("paren", f"<p>\\(a\\) {ESC} \\(b\\) and \\\\({ESC}\\\\) and \\[ {ESC} \\]</p>"),
    ("ref-defs", f"<p>[a]: javascript:{X}</p><p>[a] and [b][a]</p><p>[c]: &lt;javascript:{X}&gt;</p><p>[c]</p>"),
    (
        "autolinks",
        f"<p>&lt;javascript:{X}&gt; &lt;JAVASCRIPT:{X}&gt; &lt;data:text/html,x&gt; "
        f"&lt;vbscript:{X}&gt;</p><p><a href='https://a.example/'>&lt;javascript:{X}&gt;</a></p>",
    ),
    (
        "entity-after",
        f"<p>&amp;lt;img src=x onerror={X}&amp;gt; and &amp;#60;img src=x onerror={X}&amp;#62;</p>"
        f"<p>&amp;#x3C;svg onload={X}&amp;#x3E;</p>",
    ),
    (
        "md-link-text",
        f"<p>[x](javascript:{X}) ![y](javascript:{X}) [z](&lt;javascript:{X}&gt;)</p>"
        f"<p><a href='javascript:{X}'>[w](javascript:{X})</a></p>",
    ),
    ("md-attrs", f'<p>text{{: onclick="{X}"}}</p><p>{{:.x onmouseover="{X}"}}</p><h2>h {{#id onclick={X}}}</h2>'),
    ("admonition", f"<p>::: note {ESC}</p><p>body</p><p>:::</p><blockquote><p>[!NOTE] {ESC}</p></blockquote>"),
    (
        "fence-class",
        f'<pre><code class="language-x&quot; onmouseover=&quot;{X}">y</code></pre><pre>```{ESC}\n{ESC}\n```</pre>',
    ),
    ("html-block-start", f"<p>&lt;div&gt;</p><p>{ESC}</p><p>&lt;pre&gt;{ESC}</p><p>&lt;!--</p><p>--&gt;{ESC}</p>"),
    (
        "footnote-label",
        f'<p>N<sup id="fnref:x{ESC}"><a href="#fn:x{ESC}">1</a></sup></p>'
        f'<div class="footnotes"><ol><li id="fn:x{ESC}"><p>{ESC}</p></li></ol></div>',
    ),
    (
        "img-alt",
        f'<p><img src="a.png" alt="&quot; onerror=&quot;{X}"> <img src="b.png" alt="{ESC}" '
        f'title="&quot;&gt;{ESC}"></p>',
    ),
    ("shortcodes", f"<p>{{{{&lt; raw &gt;}}}}{ESC}{{{{&lt; /raw &gt;}}}} {{% raw %}}{ESC}{{% endraw %}}</p>"),
    ("tex-tags", f"<p>\\(\\text{{{ESC}}}\\) \\(\\href{{javascript:{X}}}{{x}}\\) \\(\\style{{x}}{{y}}\\)</p>"),
]
SLUG_LINK = {
    "bidi-title": "https://example.org/blog/bidi\u202e%E2%80%AE/",
    "ctrl-slug": "https://example.org/a%00b%0a%1b/",
}
TITLES = [
    ("bidi-title", f"\u202egnp.exe \u2066{IMG}\u2069 \u200f", "<p>b</p>"),
    ("ctrl-title", "a&#1;b&#27;c&#127;d&#x85;e\u2028f", "<p>c</p>"),
    ("script-title", f"</title></script><script>{X}</script>\"'&lt;svg onload={X}&gt;", "<p>s</p>"),
    ("ctrl-slug", "slug", "<p>d</p>"),
]
ENTRIES = [(slug, slug, body) for slug, body in MXSS + URLS + MARKDOWN] + TITLES
TAGS = ["\u202etag", f"<svg onload={X}>", "a\x01b", '"><img src=x onerror=alert(1)>']


def _atom(entries: list[tuple[str, str, str]]) -> str:
    out = ['<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">']
    out.append(
        "<title>Red</title><link href='https://example.org/'/><id>tag:red</id><updated>2024-01-01T00:00:00Z</updated>"
    )
    for slug, title, body in entries:
        link = SLUG_LINK.get(slug, f"https://example.org/blog/{slug}/")
        cats = "".join(f"<category term={quoteattr(t)}/>" for t in TAGS) if slug == "bidi-title" else ""
        out.append(
            f"<entry><title type='html'>{escape(title)}</title><link href={quoteattr(link)}/><id>tag:{slug}</id>"
            f"<updated>2024-01-01T00:00:00Z</updated>{cats}<content type='html'>{escape(body)}</content></entry>"
        )
    return "\n".join(out) + "\n</feed>\n"


XHTML = [  # Atom's type="xhtml": markup in other namespaces, prefixed, as a feed's XML holds it
    ("xh-svg", f'<svg:svg xmlns:svg="http://www.w3.org/2000/svg" onload="{X}"><svg:circle r="2"/></svg:svg>'),
    ("xh-script", f'<h:script xmlns:h="http://www.w3.org/1999/xhtml">{X}</h:script><p>t</p>'),
    ("xh-img", f'<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="x" onerror="{X}"/><p>u</p>'),
    (
        "xh-math",
        f'<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mtext><h:style xmlns:h="http://www.w3.org/'
        f'1999/xhtml">&lt;/style&gt;&lt;img src=x onerror={X}&gt;</h:style></m:mtext></m:math>',
    ),
    ("xh-base", f'<p xml:base="javascript:{X}//"><a href="rel">r</a></p>'),
]


SUMMARY = f"{IMG} $\\text{{{ESC}}}$ and $${IMG}$$ and \\({IMG}\\)"  # a summary: the cards' formulas
LANGS = [f'en" onmouseover="{X}', "../../x", "fr\u202e", "de"]  # a language that is no language tag


def _atom_xhtml(entries: list[tuple[str, str]]) -> str:
    body = "".join(
        f"<entry xml:base='javascript:{X}//' xml:lang={quoteattr(LANGS[i % len(LANGS)])}><title>{slug}</title><link href='https://example.org/x/{slug}/'/>"
        f"<id>tag:{slug}</id><updated>2024-01-01T00:00:00Z</updated><author><name>{escape(IMG)}</name>"
        f"<uri>javascript:{X}</uri></author><summary type='html'>{escape(SUMMARY)}</summary><content type='xhtml'>"
        f'<div xmlns="http://www.w3.org/1999/xhtml">{markup}</div></content></entry>\n'
        for i, (slug, markup) in enumerate(entries)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>X</title>'
        f"<id>tag:x</id><updated>2024-01-01T00:00:00Z</updated>\n{body}</feed>\n"
    )


def _rss(entries: list[tuple[str, str, str]]) -> str:
    items = "".join(
        f"<item><title>{escape(title)}</title><link>https://example.org/rss/{slug}/</link><guid>rss-{slug}</guid>"
        f"<pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate><description>{escape(body)}</description></item>\n"
        for slug, title, body in entries
    )
    return f'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>R</title><link>https://example.org/</link>{items}</channel></rss>\n'


def _wxr(entries: list[tuple[str, str, str]]) -> str:
    items = "".join(
        f"<item><title>{escape(title)}</title><link>https://example.org/wp/{slug}/</link>"
        f"<pubDate>Mon, 01 Jan 2024 00:00:00 +0000</pubDate><dc:creator>a</dc:creator><guid>wp-{slug}</guid>"
        f"<content:encoded><![CDATA[{body.replace(']]>', ']]]]><![CDATA[>')}]]></content:encoded>"
        f"<wp:post_id>{i}</wp:post_id><wp:post_date>2024-01-01 00:00:00</wp:post_date>"
        f"<wp:post_name>{escape(name)}</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>"
        f'<category domain="post_tag" nicename="x"><![CDATA[{TAGS[i % len(TAGS)]}]]></category></item>\n'
        for i, (slug, title, body, name) in enumerate(entries)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/'
        'content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">'
        f"<channel><title>W</title><link>https://example.org</link><wp:wxr_version>1.2</wp:wxr_version>{items}"
        "</channel></rss>\n"
    )


# --- a hostile notebook's stored outputs and hostile values code returns -----------------------------------

SVG_EVIL = (
    f'<svg xmlns="http://www.w3.org/2000/svg" onload="{X}"><script>{X}</script><rect width="4" height="4"/></svg>'
)
HTML_EVIL = (
    f"<p>v</p><script>{X}</script><svg onload={X}><rect/></svg><iframe srcdoc='{ESC}'></iframe>"
    f"<a href='jav&#x09;ascript:{X}'>a</a><math><mtext><table><mglyph><style><img src=x onerror={X}>"
    f"<noscript><p title='</noscript>{IMG}'></noscript><form><button formaction='javascript:{X}'>b</button></form>"
)
MD_EVIL = f"{IMG} [x](javascript:{X}) <svg onload={X}></svg> `a` <details open ontoggle={X}>"
TEX_EVIL = f"$\\href{{javascript:{X}}}{{x}}$ {IMG} $$\\text{{{IMG}}}$$"


def hostile_notebook(root: Path) -> None:
    def out(data: dict[str, str], kind: str = "display_data") -> nbformat.NotebookNode:
        return new_output(
            kind, data={"text/plain": "x", **data}, **({"execution_count": 1} if kind != "display_data" else {})
        )

    widget = {"model_id": "abc", "version_major": 2, "version_minor": 0}
    outputs = [
        out({"text/html": HTML_EVIL}),
        out({"image/svg+xml": SVG_EVIL}),
        out({"application/javascript": f"{X}"}),
        out({"text/markdown": MD_EVIL}),
        out({"text/latex": TEX_EVIL}),
        out({"application/vnd.jupyter.widget-view+json": widget, "text/html": HTML_EVIL}),
        out({"image/png": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", "text/html": HTML_EVIL}, "execute_result"),
        new_output("stream", name="stdout", text=f"{IMG}\n"),
        new_output("error", ename=f"E{IMG}", evalue=f"<svg onload={X}>", traceback=[f"\x1b[31m{IMG}\x1b[0m"]),
    ]
    md = new_markdown_cell("A drawing: ![d](attachment:d.svg) ![e](attachment:e.png)")
    md["attachments"] = {"d.svg": {"image/svg+xml": SVG_EVIL}, "e.png": {"image/svg+xml": SVG_EVIL}}
    nb = new_notebook(
        cells=[new_raw_cell("---\ntitle: Stored\ndate: 2024-03-04\n---"), md, new_code_cell("show()", outputs=outputs)]
    )
    nb.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {
            "state": {"abc": {"model_name": "HTMLModel", "state": {"value": HTML_EVIL}}},
            "version_major": 2,
            "version_minor": 0,
        }
    }
    nbformat.write(nb, str(root / "content" / "posts" / "stored.ipynb"))


VALUES = f"""
```python
class V:
    def __init__(self, **reprs):
        self.reprs = reprs

    def __getattr__(self, name):
        if name.startswith("_repr_") and name[6:-1] in self.reprs:
            return lambda *a, **k: self.reprs[name[6:-1]]
        raise AttributeError(name)


V(html={HTML_EVIL!r})
```

```python
V(svg={SVG_EVIL!r})
```

```python
V(markdown={MD_EVIL!r})
```

```python
V(latex={TEX_EVIL!r})
```

```python
V(javascript="{X}", json={{"a": {IMG!r}}})
```

```python
V(mimebundle=({{"text/html": {HTML_EVIL!r}, "image/svg+xml": {SVG_EVIL!r}, "text/markdown": {MD_EVIL!r}}}, {{}}))
```

```python
V(png={SVG_EVIL.encode()!r}, jpeg=b"<svg onload=x>")
```

```python
print({IMG!r})
```
"""


# --- the site: every hostile input, imported and built once -------------------------------------------------


def import_feed(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text, encoding="utf-8")
    return run_cli("import", str(root / name), "--into", "content/posts", cwd=root, check=True).stderr


@pytest.fixture(scope="module")
def red(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_site(tmp_path_factory.mktemp("red") / "site")
    import_feed(root, "atom.xml", _atom(ENTRIES))
    few = [(slug, slug, body) for slug, body in (MXSS[:6] + URLS[:6] + MARKDOWN[:4])]
    import_feed(root, "rss.xml", _rss(few))
    names = ["../../etc/x", "a\u202eb", "c\x01d", ".htaccess", "%2e%2e", "z" * 300]
    wxr = [(f"wp{i}", f"wp{i}\u202e{IMG}", body, names[i % len(names)]) for i, (_, _, body) in enumerate(few)]
    import_feed(root, "wxr.xml", _wxr(wxr))
    import_feed(root, "xhtml.xml", _atom_xhtml(XHTML))
    hostile_notebook(root)
    write_post(root, "values.md", "title: Values\ndate: 2024-01-01\nexecute: true", textwrap.dedent(VALUES))
    built = run_cli("build", "--source", str(root), check=True)
    assert "search index not updated" not in built.stderr, built.stderr  # a feed cannot stop the search index
    return root


URL_ATTRS = re.compile(
    r"^(href|src|srcset|action|formaction|poster|data|background|cite|xlink:href|content|to|"
    r"values|from|by|ping|manifest|icon|codebase|longdesc|lowsrc|dynsrc)$"
)
THEME_SCRIPT = re.compile(r"^(/js/|https?://[^/]+/js/|/pagefind/)")


def _squeeze(value: str) -> str:
    """An attribute value as a browser reads its URL: entities decoded, whitespace and control characters gone."""
    return re.sub(r"[\x00-\x20\x7f]", "", html.unescape(value)).lower()


def findings(markup: str, where: str, theme: bool) -> list[str]:
    """What in `markup` could run script: handlers, script URLs anywhere in an attribute that holds a URL,
    srcdoc/formaction, <base>/<meta refresh>, SVG animation of href, inline <svg> and script outside the theme's."""
    found = []
    soup = BeautifulSoup(markup, "html.parser")
    for el in soup.find_all(True):
        for name, value in el.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            squeezed = _squeeze(text)
            name = name.lower()
            if name.startswith("on") or name in ("srcdoc", "formaction"):
                found.append(f"{where}: <{el.name} {name}>")
            elif URL_ATTRS.match(name) and re.search(
                r"(^|[;,=\s]|url\()(javascript|vbscript|data:text/html)", squeezed
            ):
                found.append(f"{where}: <{el.name} {name}={text!r}>")
            elif name == "style" and ("expression(" in squeezed or "javascript:" in squeezed):
                found.append(f"{where}: <{el.name} style={text!r}>")
            elif name == "attributename" and squeezed in ("href", "xlink:href"):
                found.append(f"{where}: <{el.name} attributeName={text}>")
        if el.name in ("base", "iframe", "frame", "object", "embed", "applet", "portal", "set", "handler"):
            found.append(f"{where}: <{el.name}>")
        if el.name == "meta" and str(el.get("http-equiv", "")).lower() == "refresh":
            found.append(f"{where}: <meta refresh>")
        if el.name == "svg" and not (theme and el.get("aria-hidden") == "true"):
            found.append(f"{where}: inline <svg>")
        if el.name == "script" and not (theme and (THEME_SCRIPT.match(el.get("src", "")) or not el.get("src"))):
            found.append(f"{where}: <script src={el.get('src')}>")
    for el in soup.find_all("script", type="application/ld+json"):  # a post's words inside: data, not script
        try:
            json.loads(el.string or "")
        except ValueError:
            found.append(f"{where}: JSON-LD cut short {(el.string or '')[:80]!r}")
    return found


def scan_output(root: Path) -> tuple[list[str], int]:
    """Every .html and .xml of the output, and the HTML each .xml carries as text, searched: (findings, files)."""
    found: list[str] = []
    files = [p for p in sorted((root / "output").rglob("*")) if p.suffix in (".html", ".xml") and p.is_file()]
    for path in files:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(root / "output").as_posix()
        found += findings(text, rel, theme=path.suffix == ".html")
        if path.suffix == ".xml":  # the HTML a feed entry holds, as a feed reader renders it
            soup = BeautifulSoup(text, "html.parser")
            for node in soup.find_all(string=True):
                if "<" in node:
                    found += findings(str(node), f"{rel} (entry HTML)", theme=False)
    return found, len(files)


def test_no_handler_script_url_or_inline_svg_in_any_output_file(red: Path) -> None:
    found, files = scan_output(red)
    assert files > 60
    assert found == []


def test_every_hostile_entry_was_imported_and_built(red: Path) -> None:
    posts = list((red / "content" / "posts").glob("*.md"))
    assert len(posts) >= len(ENTRIES) + 2 * 16 + len(XHTML) + 1
    bodies = list((red / "output").rglob("index.html"))
    assert sum("post-body" in p.read_text(encoding="utf-8") for p in bodies) >= len(posts) + 1
    for path in (red / "output").rglob("*"):
        rel = path.relative_to(red / "output").as_posix()
        assert not re.search("[\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069]", rel), rel
        assert path.resolve().is_relative_to((red / "output").resolve())


def test_no_page_holds_a_control_character_or_a_bidi_override_in_its_head(red: Path) -> None:
    for path in (red / "output").rglob("*.html"):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        text = str(soup.head) if soup.head else ""
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", path.read_text(encoding="utf-8")), path
        for tag in soup.select("script[type='application/ld+json']"):
            json.loads(tag.string)  # a title's </script> did not end it
        assert "<script>alert" not in text.lower()


CATCH = """
window.__ran = [];
for (const name of ["alert", "confirm", "prompt", "print"]) { window[name] = (...a) => window.__ran.push(name + a); }
const f = window.fetch; window.fetch = (u, ...a) => { if (!String(u).includes("pagefind")) window.__ran.push("fetch " + u); return f(u, ...a); };
"""


def test_nothing_runs_in_chromium(red: Path) -> None:
    poke = (
        "for (const d of document.querySelectorAll('details')) d.open = !d.open;"
        "for (const a of document.querySelectorAll('.post-body svg a, .post-body a[href^=javascript]'))"
        " a.dispatchEvent(new MouseEvent('click', {bubbles: true}));"
    )
    assert scripts_that_ran([red / "output"], CATCH, poke) == {}


# --- post code going after the build's secrets by routes the other tests do not take -------------------------

ROUTES = """
```python
import ctypes, os, stat
TOKEN = {token!r}.encode()
libc = ctypes.CDLL(None, use_errno=True)
found = []


def check(what, data):
    if TOKEN in data:
        found.append(what)


def read(path, n=1 << 20):
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except (OSError, ValueError):
        return b""


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid())
for pid in pids:
    for what in ("environ", "cmdline", "auxv", "stack", "syscall", "maps", "smaps", "io"):
        check(f"/proc/pid/{{what}}", read(f"/proc/{{pid}}/{{what}}"))
    for task in os.listdir(f"/proc/{{pid}}/task") if os.path.isdir(f"/proc/{{pid}}/task") else []:
        check("/proc/pid/task/tid/environ", read(f"/proc/{{pid}}/task/{{task}}/environ"))
    check("/proc/pid/root/proc/pid/environ", read(f"/proc/{{pid}}/root/proc/{{pid}}/environ"))
    try:
        for fd in os.listdir(f"/proc/{{pid}}/fd"):
            if stat.S_ISREG(os.stat(f"/proc/{{pid}}/fd/{{fd}}").st_mode):  # a pipe would wait
                check("/proc/pid/fd/N", read(f"/proc/{{pid}}/fd/{{fd}}", 1 << 16))
    except OSError:
        pass
    # the stack, where a process's environment lies, read with process_vm_readv
    buf = ctypes.create_string_buffer(1 << 16)
    for start in (0x7ff000000000, 0x7ffffffde000, 0x7fffffffe000):
        local, remote = IoVec(ctypes.addressof(buf), len(buf)), IoVec(start, len(buf))
        if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
            found.append("process_vm_readv")
# the build's processes, from the post's parent up: ptrace them (other posts' processes are as open to it as
# they are to each other; they hold no token)
pid = os.getppid()
while pid > 1:
    if libc.ptrace(0x4206, pid, None, None) == 0:  # PTRACE_SEIZE
        found.append("ptrace")
        libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    pid = int(read(f"/proc/{{pid}}/stat").rsplit(b")", 1)[1].split()[1] or 1)
# whatever descriptors the post was given
for fd in range(3, 256):
    try:
        os.set_blocking(fd, False)
        check("inherited fd", os.pread(fd, 1 << 16, 0) if os.lseek(fd, 0, os.SEEK_CUR) >= 0 else b"")
    except OSError:
        try:
            check("inherited fd", os.read(fd, 1 << 16))
        except OSError:
            pass
print(sorted(set(found)))
```

```output
[]
```
"""
# a process that outlives the post (a session of its own, and not marked as the post's), watching for the build's
# later processes: Pagefind, the probes the build starts
WATCHER = """
```python
import os, resource, time
TOKEN, MARK = {token!r}.encode(), {mark!r}
if os.fork() == 0:
    os.setsid()
    soft, hard = resource.getrlimit(10)  # RLIMIT_LOCKS, the mark of a post's processes
    resource.setrlimit(10, (hard - 1, hard - 1))
    if os.fork() == 0:
        for fd in range(0, 3):
            os.close(fd)
        seen, end = set(), time.monotonic() + {seconds}
        open(MARK + ".alive", "w").write("watching")
        while time.monotonic() < end:
            for p in os.listdir("/proc"):
                if p.isdigit() and p not in seen:
                    try:
                        data = open(f"/proc/{{p}}/environ", "rb").read()
                        seen.add(p)
                        if TOKEN in data:
                            name = open(f"/proc/{{p}}/cmdline", "rb").read().replace(b"\\0", b" ")[:120]
                            open(MARK, "a").write(name.decode(errors="replace") + "\\n")
                    except OSError:
                        pass
            time.sleep(0.002)
        os._exit(0)
    os._exit(0)
os.wait()
print("left")
```

```output
left
```
"""
# a post that hands the build a link where it reads the post's log, then crashes: the log's tail is shown
LOG_LINK = """
```python
import os
os.remove(".runner.log")
os.symlink({target!r}, ".runner.log")
os._exit(3)
```
"""


def red_run(
    site: Path, home: Path, token: str, *args: str, timeout: float = 120, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "GITHUB_TOKEN")}
    env.update(HOME=str(home), GITHUB_TOKEN=token)
    return subprocess.run(
        [*prefix, sys.executable, "-m", "site_builder", *args, "--source", str(site)],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_default_mode_post_code_finds_no_token_by_other_routes(tmp_path: Path) -> None:
    home, token = tmp_path / "home", "ghp_" + secrets.token_hex(12)
    home.mkdir()
    site = make_site(tmp_path / "site")
    write_post(site, "routes.md", "title: R\ndate: 2024-01-01\nexecute: true", ROUTES.format(token=token))
    write_post(
        site,
        "net.md",
        "title: N\ndate: 2024-01-02\nexecute: true\nexec: {network: false}",
        "```python\nprint(1)\n```\n",
    )
    key = home / ".cache" / "site-builder" / "cache.key"
    write_post(site, "link.md", "title: L\ndate: 2024-01-04\nexecute: true", LOG_LINK.format(target=str(key)))
    proc = red_run(site, home, token, "build", "--keep-going")
    assert "Traceback" not in proc.stderr, proc.stderr
    failed = [line for line in (proc.stdout + proc.stderr).splitlines() if "routes.md:" in line]
    assert failed == [], proc.stdout + proc.stderr
    assert "link.md" in proc.stdout + proc.stderr  # it crashed, as it meant to
    raw = key.read_bytes()
    assert raw.decode("utf-8", "replace") not in proc.stdout + proc.stderr, "the build printed its key"
    pieces = [p.encode() for p in raw.decode("utf-8", "replace").split("\ufffd") if len(p.encode()) >= 4]
    for path in (site / "output").rglob("*.html"):
        text = path.read_bytes()
        assert not any(p in text for p in pieces), path


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux's setpriv")
def test_a_process_a_post_leaves_finds_no_token_in_the_programs_the_build_starts(tmp_path: Path) -> None:
    """A post can leave a process running on purpose (README: default mode does not stop that); it watches every
    process the build starts afterwards (Pagefind). The build runs with no capability, as any user's but root's
    does (root's holds capabilities, which alone keep a post from reading its children's environment)."""
    home, token, mark = tmp_path / "home", "ghp_" + secrets.token_hex(12), tmp_path / "seen"
    home.mkdir()
    site = make_site(tmp_path / "site")
    write_post(
        site,
        "watch.md",
        "title: W\ndate: 2024-01-03\nexecute: true",
        WATCHER.format(token=token, mark=str(mark), seconds=20),
    )
    capless = ("setpriv", "--bounding-set=-all", "--inh-caps=-all")
    proc = red_run(site, home, token, "build", prefix=capless if os.geteuid() == 0 else ())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "search index not" not in proc.stderr, proc.stderr  # Pagefind ran
    assert (tmp_path / "seen.alive").exists(), "the watcher did not outlive its post"
    time.sleep(0.5)
    assert not mark.exists(), f"a program the build started held its token: {mark.read_text()}"


ESCAPE = """
```python
import ctypes, os
KEY, SITE = {key!r}, {site!r}
libc = ctypes.CDLL(None, use_errno=True)
got = []


def try_read(how, path, dir_fd=None):
    try:
        fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
        os.read(fd, 64)
        got.append("read " + how)
    except OSError:
        pass


def try_write(how, path, dir_fd=None):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dir_fd)
        os.write(fd, b"pwned")
        got.append("wrote " + how)
    except OSError:
        pass


up = "../" * 30
routes = {{"direct": "", "proc-self-root": "/proc/self/root", "proc-1-root": "/proc/1/root",
          "proc-ppid-root": f"/proc/{{os.getppid()}}/root", "dotdot": os.getcwd() + "/" + up}}
for how, prefix in routes.items():
    try_read(how, prefix + KEY)
    try_write(how, prefix + SITE + "/content/posts/pwned.md")
    try_write(how, prefix + SITE + "/output/pwned.html")
for fd in range(3, 256):  # descriptors the post was given: a folder of the host, a file open for writing
    try:
        os.fstat(fd)
    except OSError:
        continue
    try_read(f"fd {{fd}}", up + KEY.lstrip("/"), dir_fd=fd)
    try_write(f"fd {{fd}}", up + SITE.lstrip("/") + "/content/posts/pwned.md", dir_fd=fd)
    target = os.readlink(f"/proc/self/fd/{{fd}}")
    if not target.startswith(os.getcwd() + "/"):  # its own files (results, log) are in its folder
        got.append(f"fd {{fd}}: {{target}}")
for line in open("/proc/self/mountinfo"):
    if SITE in line or os.path.dirname(KEY) in line:
        got.append("mount " + line.split()[4])
os.symlink(SITE + "/content/posts", "posts-link")  # for the build to follow when it cleans up
os.symlink(KEY, "key-link")
if libc.mount(b"none", b"/", None, 0x1000 | 0x4000, None) == 0:  # MS_BIND | MS_REC: no capability, no mount
    got.append("mount")
print(got)
```

```output
[]
```
"""
FIFO = """
```python
import os
os.remove(".runner.log")
os.mkfifo(".runner.log")
os._exit(5)
```
"""
JUNK = """
```python
import json, os
junk = {"index": 0, "status": "passed", "stdout": 5, "stderr": ["x"], "figures": [1], "seconds": "x",
        "value": {"text/html": 7}, "error": {"type": 1}}
open(".results.jsonl", "w").write(json.dumps(junk) + "\\n" + json.dumps([1]) + "\\n")
os._exit(0)
```
"""
FENCE_BREAK = """
```python
print("ok\\n```\\n\\n<img src=x onerror=alert(1)>\\n\\n```python\\nopen('pwned', 'w')")
```

```output
stale
```
"""


def test_strict_mode_post_code_reads_no_key_and_writes_nothing_into_the_site(tmp_path: Path) -> None:
    home, token = tmp_path / "home", "ghp_" + secrets.token_hex(12)
    home.mkdir()
    site = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nexec:\n  isolation: strict\n")
    (site / "output").mkdir()
    key = home / ".cache" / "site-builder" / "cache.key"
    write_post(
        site, "escape.md", "title: E\ndate: 2024-01-01\nexecute: true", ESCAPE.format(key=str(key), site=str(site))
    )
    write_post(site, "link.md", "title: L\ndate: 2024-01-02\nexecute: true", LOG_LINK.format(target=str(key)))
    write_post(site, "fifo.md", "title: F\ndate: 2024-01-03\nexecute: true", FIFO)
    write_post(site, "junk.md", "title: J\ndate: 2024-01-04\nexecute: true", JUNK)
    first = red_run(site, home, token, "build", "--keep-going", timeout=90)  # makes the key
    assert "Traceback" not in first.stderr, first.stderr
    assert key.exists()
    for f in (site / ".cache").glob("exec/*"):
        f.unlink()
    proc = red_run(site, home, token, "build", "--keep-going", timeout=90)
    shown = proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, shown
    assert not [line for line in shown.splitlines() if "escape.md:" in line], shown
    assert "link.md:" in shown and "fifo.md:" in shown  # they crashed, as they meant to
    assert "junk.md:9: Crash: the Python process running the post exited (status 0) before its last block ran" in shown
    raw = key.read_bytes()
    pieces = [p.encode() for p in raw.decode("utf-8", "replace").split("\ufffd") if len(p.encode()) >= 3]
    for path in (site / "output").rglob("*.html"):
        assert not any(p in path.read_bytes() for p in pieces), path
    assert not list(site.rglob("pwned*")) and not list(home.rglob("pwned*"))
    assert sorted(p.name for p in (site / "content" / "posts").iterdir()) == [
        "escape.md",
        "fifo.md",
        "junk.md",
        "link.md",
    ]


def test_check_update_writes_a_strict_posts_output_inside_its_block(tmp_path: Path) -> None:
    """What strict code prints goes into the post's file with `check --update`: it stays one output block, and the
    page shows no tag of it."""
    site = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nexec:\n  isolation: strict\n")
    post = write_post(site, "fence.md", "title: F\ndate: 2024-01-01\nexecute: true", FENCE_BREAK)
    update = run_cli("check", "--update", "--source", str(site))
    assert "not updated: what it printed has a line that would end its output block" in update.stderr, update.stderr
    proc = run_cli("build", "--source", str(site))
    assert "Traceback" not in proc.stderr, proc.stderr
    found, _ = scan_output(site)
    assert found == [], post.read_text(encoding="utf-8")
    assert not list(site.rglob("pwned*"))


def test_the_importers_own_check_writes_an_inline_svg_as_text() -> None:
    """Whatever step would let one through, the importer's last check writes an `<svg>` in its Markdown as text."""
    from site_builder.importer.verify import checked_markdown

    warnings: list[str] = []
    checked = checked_markdown(
        'a\n\n<svg viewBox="0 0 2 2"><path d="M0 0"/></svg>\n\nb <svg><rect/></svg>\n', warnings.append
    )
    assert "<svg" not in checked and checked.count("&lt;svg") == 2, checked
    assert len(warnings) == 1


def test_a_feed_drawing_keeps_its_size_as_an_image(red: Path) -> None:
    body = BeautifulSoup((red / "output/blog/svg-root/index.html").read_text(encoding="utf-8"), "html.parser")
    img = body.select_one(".post-body img")
    assert img is not None and img["src"].startswith("data:image/svg+xml;base64,")
    assert (img["width"], img["height"]) == ("20", "10")
    import base64

    drawing = base64.b64decode(img["src"].split(",", 1)[1]).decode()
    assert drawing.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "<circle" in drawing
    assert "onload" not in drawing  # cleaned as well, though an image runs none


@pytest.mark.parametrize("mode", ["default", "strict"])
def test_a_declared_file_linking_out_of_the_posts_folder_is_not_copied(tmp_path: Path, mode: str) -> None:
    """`exec: files` names a file next to the post; one that is a link to the cache key (which the build can read
    even where the post cannot: sealed, as root) or anywhere else outside the post's folder is refused."""
    home, token = tmp_path / "home", "ghp_" + secrets.token_hex(12)
    home.mkdir()
    site = make_site(tmp_path / "site", f"title: T\nurl: https://example.org\nexec:\n  isolation: {mode}\n")
    key = home / ".cache" / "site-builder" / "cache.key"
    posts = site / "content" / "posts"
    (posts / "data.bin").symlink_to(key)
    (posts / "folder").symlink_to(key.parent)
    code = "```python\nimport os\nprint(sorted(os.path.getsize(n) for n in ('data.bin', 'folder/cache.key') if os.path.exists(n)))\n```\n"
    for name, files in (("one.md", "[data.bin]"), ("two.md", "[folder/cache.key]")):
        write_post(
            site,
            name,
            f"title: F\ndate: 2024-01-01\nexecute: true\nexec: {{files: {files}}}",
            code + "\n```output\n[]\n```\n",
        )
    red_run(site, home, token, "build", "--keep-going")  # makes the key
    assert key.exists()
    for f in (site / ".cache").glob("exec/*"):
        f.unlink()
    proc = red_run(site, home, token, "check")
    shown = proc.stdout + proc.stderr
    assert "Traceback" not in shown, shown
    assert "one.md:5: FileNotFoundError: exec: files lists data.bin, which is not next to the post" in shown, shown
    assert "two.md:5: FileNotFoundError: exec: files lists folder/cache.key, which is not next to the post" in shown
    assert "OutputMismatch" not in shown, shown


def test_requires_runs_no_code_of_the_site(tmp_path: Path) -> None:
    """`exec: requires` is checked without importing anything: a package of the site's own folder named there
    (`evil.sub`) once ran with the build's environment, outside strict mode's jail."""
    home, token, mark = tmp_path / "home", "ghp_" + secrets.token_hex(12), tmp_path / "ran"
    home.mkdir()
    site = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nexec:\n  isolation: strict\n")
    (site / "evil").mkdir()
    (site / "evil" / "__init__.py").write_text(
        f"import os\nopen({str(mark)!r}, 'w').write(os.environ.get('GITHUB_TOKEN', ''))\n"
    )
    post = "```python\nimport json\nprint(1)\n```\n"
    write_post(
        site, "evil.md", "title: E\ndate: 2024-01-01\nexecute: true\nexec: {requires: [evil.sub, json.decoder]}", post
    )
    write_post(
        site, "fine.md", "title: F\ndate: 2024-01-02\nexecute: true\nexec: {requires: [json.decoder, os.path]}", post
    )
    proc = red_run(site, home, token, "check")
    assert not mark.exists(), f"the site's code ran in the build: {mark.read_text()!r}"
    assert "evil.md:5: ModuleNotFoundError: the post requires evil.sub, which cannot be imported here" in proc.stdout, (
        proc.stdout
    )
    assert "content/posts/fine.md: ran (new): 1 passed" in proc.stdout, proc.stdout


def test_a_static_file_linking_out_of_the_site_is_an_error_and_not_published(tmp_path: Path) -> None:
    """A link in `static/` (a pull request can hold one) to the cache key, which the build can read where nothing
    else can (sealed, as root), or to any file outside the site: the build stops naming it, publishing nothing."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the key", encoding="utf-8")
    site = make_site(tmp_path / "site")
    write_post(site, "a.md", "title: A\ndate: 2024-01-01")
    (site / "static" / "ok").mkdir(parents=True)
    (site / "static" / "ok" / "a.txt").write_text("a", encoding="utf-8")
    (site / "static" / "b.txt").symlink_to(site / "static" / "ok" / "a.txt")  # inside the site: fine
    (site / "static" / "k.txt").symlink_to(secret)
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "error: static/k.txt: static/k.txt is a link to a file outside the site" in proc.stderr, proc.stderr
    assert not (site / "output").exists() or not any(
        "the key" in p.read_text() for p in (site / "output").rglob("*.txt")
    )
    (site / "static" / "k.txt").unlink()
    run_cli("build", "--source", str(site), check=True)
    assert (site / "output" / "b.txt").read_text(encoding="utf-8") == "a"


@pytest.mark.parametrize(
    "html_in",
    [
        '<figure><svg viewBox="0 0 40 20"><rect width="40" height="20"/></svg><figcaption>Cap</figcaption></figure>',
        '<div class="row"><div class="col"><svg width="5" height="5"><rect/></svg></div>'
        '<div class="col"><img src="https://example.org/a.png" alt="a"></div></div>',
        '<p><a href="https://example.org/"><svg width="5" height="5"><rect/></svg></a> and <b>text</b></p>',
        '<table><tr><th>h</th></tr><tr><td><svg width="5" height="5"><title>a|b</title><rect/></svg></td></tr></table>',
    ],
    ids=["figure", "gallery", "link", "table-cell"],
)
def test_a_feed_drawing_is_an_image_wherever_it_stands(html_in: str) -> None:
    """A drawing in a figure, an image grid, a link or a table cell: an `<img>` of its `data:` URL in the page, never
    Markdown a parser shows as text (Markdown takes no SVG `data:` URL), and no `<svg>`."""
    from site_builder.importer.convert import html_to_markdown
    from site_builder.parse import make_parser

    warnings: list[str] = []
    page_html = make_parser().render(html_to_markdown(html_in, "", warnings.append))
    soup = BeautifulSoup(page_html, "html.parser")
    drawings = [img for img in soup.find_all("img") if img["src"].startswith("data:image/svg+xml;base64,")]
    assert len(drawings) == 1 and drawings[0].get("width") in ("40", "5"), page_html
    assert "<svg" not in page_html and "](data:" not in page_html and warnings == []
