"""Script that reaches a built page (issue 29): a hostile feed's text that becomes Markdown (TeX holding `$`, `<kbd>`,
`<code>` with `|` in a table cell, and variants), SVG that code returns, a notebook stores or a run cache holds, and
the smaller defects found beside them (control characters in a title, an `image` climbing out of the site, entry
links naming the site's own files).

The feed is imported and built once; every built page is searched for event handlers, script URLs and inline SVG,
and then opened in a real headless Chromium, which must run no handler.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, scripts_that_ran, write_post
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell
from test_attacks_feed import atom, import_and_build

from site_builder.importer.verify import checked_markdown
from site_builder.parse import make_parser

IMG = "&lt;img src=x onerror=alert(1)&gt;"  # as a feed escapes it: text that reads as a tag once unescaped
FEED_ATTACKS = [
    ("tex-inline", f"<p>\\(x$ {IMG} $y\\)</p>"),
    ("tex-display", f"<p>\\[x$$ {IMG} $$y\\]</p>"),
    ("tex-display-in-text", f"<p>a \\[x$$ {IMG} $$y\\] b</p><table><tr><th>\\[x$$ {IMG} $$y\\]</th></tr></table>"),
    (
        "tex-annotation",
        f'<p><math><semantics><mi>x</mi><annotation encoding="application/x-tex">x$ {IMG} $y'
        "</annotation></semantics></math></p>",
    ),
    (
        "tex-annotation-display",
        f'<p><math display="block"><semantics><mi>x</mi><annotation '
        f'encoding="application/x-tex">x$$ {IMG} $$y</annotation></semantics></math></p>',
    ),
    ("tex-script", f'<script type="math/tex">x$ {IMG} $y</script>'),
    ("tex-blank-line", f"<p>\\(a\n\n{IMG}\\)</p>"),
    ("tex-backslash", f"<p>\\(a\\\\\\) and \\(b\\\\\\) then \\({IMG}\\)</p>"),
    (
        "tex-label",
        f'<div class="math" id="x{IMG}"><math display="block"><semantics><mi>x</mi><annotation '
        'encoding="application/x-tex">x</annotation></semantics></math></div>',
    ),
    ("kbd", f"<p>Press <kbd>{IMG}</kbd></p>"),
    ("kbd-nested", f"<p><kbd><kbd>Ctrl</kbd>+<kbd>{IMG}</kbd></kbd></p>"),
    ("code-table", f"<table><tr><th>h</th></tr><tr><td><code>a|{IMG}|b</code></td></tr></table>"),
    ("code-table-3", f"<table><tr><th>h</th><th>i</th><th>j</th></tr><tr><td><code>a|{IMG}|b</code></td></tr></table>"),
    ("pre-table", f"<table><tr><th>h</th></tr><tr><td><pre><code>a`b|{IMG}|c</code></pre></td></tr></table>"),
    ("pre-link", f'<p><a href="https://example.org/"><pre>a`b {IMG}</pre></a></p>'),
    ("samp", f"<p><samp>{IMG}</samp></p>"),
    ("details-ontoggle", '<details open ontoggle="alert(1)"><summary>s</summary><p>x</p></details>'),
    ("mathml-mtext-img", "<p><math><mtext><img src=x onerror=alert(1)></mtext></math></p>"),
    (
        "mathml-mglyph-style",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    ),
    (
        "entity-javascript",
        '<p><a href="&#106;avascript:alert(1)">a</a> <a href="javascript&colon;alert(1)">b</a> '
        '<a href="&#x6A;&#x61;vascript:alert(1)">c</a></p>',
    ),
    ("markdown-link-text", "<p>[x](javascript:alert(1)) and &lt;javascript:alert(1)&gt;</p>"),
    ("comment-break", f"<p>a&lt;!-- --&gt;{IMG}</p>"),
    ("script-src-space", '<script src="https://x.example/a b<img src=x onerror=alert(1)>"></script>'),
    ("details-summary", f"<details><summary>{IMG} <b>More</b></summary><p>{IMG}</p></details>"),
    (
        "callout-title",
        f'<div class="callout callout-note"><div class="callout-header"><h5>{IMG} a|b</h5></div><p>body</p></div>',
    ),
    (
        "heading-footnote",
        f'<h2>{IMG} ##</h2><p>N<sup id="fnref:{IMG}"><a href="#fn:{IMG}" class="footnote">1</a>'
        f'</sup></p><div class="footnotes"><ol><li id="fn:{IMG}"><p>{IMG}</p></li></ol></div>',
    ),
    ("fence-info", '<pre class="highlight" data-lang="a&quot;onmouseover=&quot;alert(1)"><code>y</code></pre>'),
    ("html-in-text", f"<p>&lt;div onclick=alert(1)&gt;x&lt;/div&gt;</p><p>&lt;!-- x --&gt;{IMG}</p>"),
    (
        "svg-use-data",
        '<svg><use href="data:image/svg+xml,&lt;svg id=x xmlns=http://www.w3.org/2000/svg&gt;&lt;image '
        'href=1 onerror=alert(1) /&gt;&lt;/svg&gt;#x"/></svg><svg><style><img src=x onerror=alert(1)></style></svg>',
    ),
    ("svg-onload", '<svg/onload="alert(1)"><rect width="2" height="2"/></svg>'),
    ("svg-animate", '<svg><animate onbegin="alert(1)" attributeName="x" dur="1s"/></svg>'),
]
TEXT_ATTRS = {"alt", "title", "content", "aria-label"}  # text, not an address (a meta description quotes the post)
ACTIVE = re.compile(r"<(?:script|iframe|object|embed|form|foreignobject)\b", re.I)


def handlers_and_script_urls(html: str) -> list[str]:
    """What in a page could run script: event handler attributes, javascript:/vbscript: URLs, inline <svg> with a
    handler, script elements other than the theme's own (src under /js/, JSON-LD, the color scheme)."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for el in soup.find_all(True):
        for name, value in el.attrs.items():
            text = "".join((" ".join(value) if isinstance(value, list) else str(value)).split()).lower()
            if name.lower().startswith("on"):
                found.append(f"<{el.name} {name}>")
            elif name not in TEXT_ATTRS and text.startswith(("javascript:", "vbscript:", "data:text/html")):
                found.append(f"<{el.name} {name}={text}>")
    body = soup.select_one(".post-body")
    if body is not None:
        found += [f"<{el.name}>" for el in body.find_all(["script", "iframe", "object", "embed", "style"])]
    return found


@pytest.fixture(scope="module")
def fed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = make_site(tmp_path_factory.mktemp("fed") / "site")
    warnings, _ = import_and_build(root, atom([(slug, slug, html) for slug, html in FEED_ATTACKS]))
    return root, warnings


def post_html(root: Path, slug: str) -> str:
    return (root / "output" / "blog" / slug / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("slug", [slug for slug, _ in FEED_ATTACKS])
def test_no_handler_or_script_url_from_a_feed_reaches_the_page(fed: tuple[Path, str], slug: str) -> None:
    root, _ = fed
    html = post_html(root, slug)
    assert handlers_and_script_urls(html) == []
    assert not ACTIVE.search(str(BeautifulSoup(html, "html.parser").select_one(".post-body")))


def test_the_hostile_text_is_shown_as_text(fed: tuple[Path, str]) -> None:
    root, _ = fed

    def text(slug: str) -> str:
        body = BeautifulSoup(post_html(root, slug), "html.parser").select_one(".post-body")
        return " ".join(body.get_text(" ").split())

    assert "<img src=x onerror=alert(1)>" in text("kbd")
    assert BeautifulSoup(post_html(root, "kbd"), "html.parser").select_one(".post-body kbd") is not None
    cell = BeautifulSoup(post_html(root, "code-table"), "html.parser").select("td")
    assert [c.get_text() for c in cell] == ["a|<img src=x onerror=alert(1)>|b"]
    assert "<img src=x onerror=alert(1)>" in text("samp")
    assert text("markdown-link-text") == "[x](javascript:alert(1)) and <javascript:alert(1)>"


UNSAFE_MARKDOWN = [
    "<img src=x onerror=alert(1)>",
    "> <div onclick=alert(1)>\n> hi</div>",
    "<details open ontoggle=alert(1)><summary>s</summary></details>",
    '<a href="jav&#x61;script:alert(1)">x</a> and <a href="java\tscript:alert(2)">y</a>',
    "- item <svg onload=alert(1)><rect/></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "`<img src=x onerror=alert(1)>` then <img src=x onerror=alert(1)>",
    "| a | b |\n| - | - |\n| <img src=x onerror=alert(1)> | <b onmouseover=alert(1)>b</b> |",
    "<!-- --><iframe srcdoc='<script>alert(1)</script>'></iframe>",
]


@pytest.mark.parametrize("markdown", UNSAFE_MARKDOWN)
def test_the_importers_own_check_writes_raw_html_nh3_would_change_as_text(markdown: str) -> None:
    """The last line of defence, whatever a step before it missed: the Markdown the importer is about to write,
    parsed by the site's parser; raw HTML nh3 would change becomes text, with one warning."""
    warnings: list[str] = []
    checked = checked_markdown(markdown, warnings.append)
    assert len(warnings) == 1 and warnings[0].startswith("wrote as text"), warnings
    html = make_parser().render(checked)
    assert handlers_and_script_urls(html) == [] and not ACTIVE.search(html), html
    shown = BeautifulSoup(html, "html.parser").get_text()
    assert "alert(" in shown, shown  # the tag is shown as text a reader sees, not dropped without a word


def test_the_importers_own_check_keeps_what_nh3_keeps() -> None:
    kept = (
        "a <sup>1</sup> <kbd>Ctrl</kbd> <!-- --> $x$\n\n<details open>\n<summary>s</summary>\n\nx\n\n</details>\n\n"
        '<d-footnote>n</d-footnote> <a href="https://x.org/">x</a>'
    )
    warnings: list[str] = []
    assert checked_markdown(kept, warnings.append) == kept and warnings == []


# --- SVG: a value's _repr_svg_, a notebook's stored image/svg+xml, a run cache's figure --------------------

SVGS = [
    '<svg xmlns="http://www.w3.org/2000/svg"/onload="alert(1)"><rect width="4" height="4"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><scr<script></script>ipt>alert(2)</scr<script></script>ipt></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><rect title="a&quot;&gt;" width="1"/><a title="\\">'
    '<img src=x onerror=alert(3)>"></a></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><img/src/onerror=alert(4)></foreignObject>'
    "<img/src/onerror=alert(5)></svg>",
]
VALUE_POST = """
```python
class Svg:
    def __init__(self, text):
        self.text = text

    def _repr_svg_(self):
        return self.text


Svg({svg!r})
```
"""
FIGURE_POST = """
```python
print("figure")
```
"""


def write_notebook(root: Path) -> None:
    nb = new_notebook()
    outputs = [new_output("display_data", data={"image/svg+xml": svg, "text/plain": "<svg>"}) for svg in SVGS]
    nb.cells = [
        new_raw_cell("---\ntitle: Stored\ndate: 2024-03-04\n---"),
        new_markdown_cell("Stored outputs."),
        new_code_cell("show()", outputs=outputs),
    ]
    nbformat.write(nb, str(root / "content" / "posts" / "stored.ipynb"))


@pytest.fixture(scope="module")
def svg_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_site(tmp_path_factory.mktemp("svg") / "site")
    front = "title: {}\ndate: 2024-01-0{}\nexecute: true"
    body = "".join(textwrap.dedent(VALUE_POST).format(svg=svg) for svg in SVGS)
    write_post(root, "values.md", front.format("Values", 1), body)
    write_post(root, "figures.md", front.format("Figures", 2), textwrap.dedent(FIGURE_POST))
    write_notebook(root)
    run_cli("build", "--source", str(root), check=True)
    for cache in (root / ".cache" / "exec").glob("*.json"):  # the run of figures.md, given hostile figures
        data = json.loads(cache.read_text(encoding="utf-8"))
        text = json.dumps(data)
        if '"figure\\n"' in text:
            for block in data["blocks"]:
                block["figures"] = SVGS
            cache.write_text(json.dumps(data), encoding="utf-8")
            break
    else:
        raise AssertionError("no run cache file for figures.md")
    write_post(root, "figures.md", front.format("Figures", 2), textwrap.dedent(FIGURE_POST) + "\nRead again.\n")
    run_cli("build", "--source", str(root), check=True)
    return root


@pytest.mark.parametrize("url", ["/blog/2024/values/", "/blog/2024/figures/", "/blog/2024/stored/"])
def test_untrusted_svg_is_an_image_never_inline(svg_site: Path, url: str) -> None:
    html = (svg_site / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8")
    assert handlers_and_script_urls(html) == []
    body = BeautifulSoup(html, "html.parser").select_one(".post-body")
    images = [img["src"] for img in body.find_all("img") if img["src"].startswith("data:image/svg+xml")]
    assert len(images) == len(SVGS), body
    assert "<svg" not in str(body)


# --- every built page in a real browser ---------------------------------------------------------------------

CATCH = """
window.__ran = [];
for (const name of ["alert", "confirm", "prompt", "print"]) { window[name] = (...a) => window.__ran.push(name + a); }
"""


def test_no_handler_runs_in_chromium(fed: tuple[Path, str], svg_site: Path) -> None:
    outputs = [fed[0] / "output", svg_site / "output"]
    opened = "for (const d of document.querySelectorAll('details')) d.open = !d.open;"
    assert scripts_that_ran(outputs, CATCH, opened) == {}


# --- smaller defects --------------------------------------------------------------------------------------


def test_control_characters_of_a_title_reach_no_page(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", 'title: "Nul \\0 and \\x01 and \\x1b end"\ndate: 2024-01-02\nsummary: "s \\x02"')
    run_cli("build", "--source", str(root), check=True)
    pages = sorted((root / "output").rglob("*.html"))
    assert len(pages) > 3
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", text), path
    title = BeautifulSoup((root / "output/blog/2024/a/index.html").read_text(encoding="utf-8"), "html.parser").h1
    assert " ".join(title.get_text().split()) == "Nul and and end"


def test_an_image_climbing_out_of_the_site_is_a_warning_and_no_preview(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-02\nimage: ../../../../../etc/passwd")
    write_post(root, "b.md", "title: B\ndate: 2024-01-03\nimage: ../pics/b.png")  # /blog/2024/pics/b.png: fine
    proc = run_cli("build", "--source", str(root), check=True)
    assert "warning: content/posts/a.md:4: image '../../../../../etc/passwd' climbs out of the site" in proc.stderr
    assert "b.md" not in proc.stderr
    soup = BeautifulSoup((root / "output/blog/2024/a/index.html").read_text(encoding="utf-8"), "html.parser")
    assert soup.find("meta", property="og:image") is None
    assert "passwd" not in str(soup.head)
    soup = BeautifulSoup((root / "output/blog/2024/b/index.html").read_text(encoding="utf-8"), "html.parser")
    assert soup.find("meta", property="og:image")["content"] == "https://example.org/blog/2024/pics/b.png"


SITE_FILES = ["/.htaccess", "/.nojekyll", "/.well-known/security.txt", "/pagefind/pagefind.js", "/sitemap.xml"]


def test_entry_links_naming_site_files_are_errors_reported_together(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site")
    feed = atom([(f"p{i}", f"p{i}", "x") for i in range(len(SITE_FILES))] + [("fine", "fine", "y")])
    for i, path in enumerate(SITE_FILES):
        feed = feed.replace(f'href="https://example.org/blog/p{i}/"', f'href="https://example.org{path}"')
    (root / "feed-in.xml").write_text(feed, encoding="utf-8")
    run_cli("import", str(root / "feed-in.xml"), "--into", "content/posts", cwd=root, check=True)
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: content/posts/")]
    assert len(errors) == len(SITE_FILES), proc.stderr
    for path in SITE_FILES:
        assert len([line for line in errors if f"permalink {path} " in line]) == 1, (path, proc.stderr)
    assert len({line.split(":", 2)[1] for line in errors}) == len(SITE_FILES)  # each at its own file
    assert proc.stderr.splitlines()[-1] == f"error: stopped with {len(SITE_FILES)} errors"
    assert not (root / "output").exists()
