"""Hostile feeds and settings (issue 17, items 6 and 9): an imported feed cannot read local files, blow up in
memory, put script into the built pages or write outside the site; the feed we write stays well-formed whatever
the titles hold; site.yml cannot inject markup through the url, the title or the author."""

from __future__ import annotations

import json
import time
import xml.dom.minidom
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post

URL_ATTRS = ("href", "src", "srcset", "poster", "action", "formaction", "data", "xlink:href", "background", "cite")
ACTIVE = ("script", "iframe", "frame", "object", "embed", "form", "input", "button", "textarea", "select", "animate")


def atom(entries: list[tuple[str, str, str]], doctype: str = "") -> str:
    """An Atom feed of (slug, title, HTML body) entries at https://example.org/blog/SLUG/."""
    head = f'<?xml version="1.0" encoding="utf-8"?>\n{doctype}<feed xmlns="http://www.w3.org/2005/Atom">\n'
    head += '<title>Hostile</title><link href="https://example.org/"/><id>tag:hostile</id>\n'
    head += "<updated>2024-01-01T00:00:00Z</updated>\n"
    body = "".join(
        f'<entry><title>{title}</title><link href="https://example.org/blog/{slug}/"/><id>tag:{slug}</id>'
        f'<updated>2024-01-01T00:00:00Z</updated><content type="html"><![CDATA[{html}]]></content></entry>\n'
        for slug, title, html in entries
    )
    return head + body + "</feed>\n"


def import_and_build(root: Path, feed_text: str) -> tuple[str, str]:
    """Import `feed_text` into the site at `root` and build it: (import stderr, build stderr)."""
    feed = root / "feed-in.xml"
    feed.write_text(feed_text, encoding="utf-8")
    imported = run_cli("import", str(feed), "--into", "content/posts", cwd=root, check=True)
    built = run_cli("build", "--source", str(root), check=True)
    return imported.stderr, built.stderr


def page(root: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def every_output_file(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root / "output").as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((root / "output").rglob("*"))
        if p.is_file() and p.suffix in (".html", ".xml", ".txt")
    }


# --- item 6: XML attacks on the feed parser ----------------------------------------------------------------

XXE = '<!DOCTYPE feed [<!ENTITY e SYSTEM "file:///etc/passwd"><!ENTITY % pe SYSTEM "file:///etc/passwd"> %pe;]>\n'


def _laughs() -> str:
    decls = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol;" if i == 1 else f"&lol{i - 1};") * 10}">' for i in range(1, 10)
    )
    return f"<!DOCTYPE feed [{decls}]>\n"


QUADRATIC = f'<!DOCTYPE feed [<!ENTITY big "{"A" * 50_000}">]>\n'


@pytest.mark.parametrize(
    ("doctype", "body"),
    [(XXE, "before &e; after"), (_laughs(), "x &lol9; y"), (QUADRATIC, "&big;" * 20_000)],
    ids=["xxe-file", "billion-laughs", "quadratic-blowup"],
)
def test_entities_read_no_file_and_do_not_expand(tmp_path: Path, doctype: str, body: str) -> None:
    root = make_site(tmp_path / "site")
    feed = root / "feed-in.xml"
    text = atom([("entity", "Entity &e; &lol9; &big;", "x")], doctype).replace("<![CDATA[x]]>", body)
    feed.write_text(text, encoding="utf-8")
    started = time.monotonic()
    proc = run_cli("import", str(feed), "--into", "content/posts", cwd=root)
    assert time.monotonic() - started < 30
    assert proc.returncode == 0, proc.stderr
    posts = list((root / "content/posts").glob("*.md"))
    written = "".join(p.read_text(encoding="utf-8") for p in posts) + proc.stdout + proc.stderr
    assert "root:x:0" not in written and "/bin/" not in written
    assert "lollollol" not in written and "A" * 100_000 not in written
    assert sum(p.stat().st_size for p in posts) < 200_000


# --- item 6: imported HTML is cleaned -------------------------------------------------------------------

HOSTILE = [
    ("script", '<p>before</p><script>alert("s1")</script><p>after</p>'),
    ("handlers", '<p onclick="alert(1)" onmouseover="alert(2)">text</p><img src="/a.png" onerror="alert(3)" alt="a">'),
    (
        "links",
        '<p><a href="javascript:alert(1)">one</a> <a href=" JaVaScRiPt:alert(2)">two</a> '
        '<a href="java&#x09;script:alert(3)">three</a> <a href="vbscript:msgbox(4)">four</a> '
        '<a href="data:text/html,&lt;script&gt;alert(5)&lt;/script&gt;">five</a></p>',
    ),
    ("iframes", '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe><iframe src="javascript:alert(2)">'),
    ("objects", '<object data="https://example.org/x.swf"></object><embed src="javascript:alert(1)"><p>text</p>'),
    (
        "form",
        '<form action="https://evil.example/"><input name="q" value="v"><textarea>t</textarea>'
        '<select><option>o</option></select><button formaction="javascript:alert(1)">go</button></form><p>text</p>',
    ),
    (
        "svg",
        '<svg onload="alert(1)"><circle r="3"/><a xlink:href="javascript:alert(2)"><text>t</text></a>'
        '<animate attributeName="href" values="javascript:alert(3)"/></svg>',
    ),
    ("video", '<video src="https://example.org/v.mp4" poster="javascript:alert(1)" onplay="alert(2)"></video>'),
    ("mathml", '<p><math><mi onclick="alert(1)">x</mi><mo href="javascript:alert(2)">+</mo></math></p>'),
    ("widget", '<my-widget onclick="alert(1)"><b>w</b></my-widget>'),
    ("noscript", '<noscript><p title="&lt;/noscript&gt;&lt;img src=x onerror=alert(1)&gt;"></p></noscript><p>t</p>'),
    ("placeholders", '<p>a <span data-md-inline="7">x</span></p><div data-md-block="9">y</div>'),
]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = make_site(tmp_path_factory.mktemp("hostile") / "site")
    extra = [("youtube", '<p>Watch:</p><iframe src="https://www.youtube.com/embed/abc123"></iframe>')]
    warnings, _ = import_and_build(root, atom([(slug, slug, html) for slug, html in HOSTILE + extra]))
    return root, warnings


def active_content(body: BeautifulSoup) -> list[str]:
    """What in a post body could run script or send data: elements, handlers, script URLs."""
    found = [f"<{el.name}>" for el in body.find_all(ACTIVE)]
    for el in body.find_all(True):
        for name, value in el.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            squeezed = "".join(text.split()).lower()
            if name.lower().startswith("on") or name.lower() == "srcdoc":
                found.append(f"{el.name} {name}")
            elif name.lower() in URL_ATTRS and squeezed.startswith(("javascript:", "vbscript:", "data:text")):
                found.append(f"{el.name} {name}={text}")
    found += [s.strip() for s in body.find_all(string=True) if "javascript:" in s.lower() or "alert(" in s]
    return found


@pytest.mark.parametrize("slug", [slug for slug, _ in HOSTILE])
def test_no_script_survives_into_the_built_page(hostile: tuple[Path, str], slug: str) -> None:
    root, _ = hostile
    body = page(root, f"/blog/{slug}/").select_one(".post-body")
    assert body is not None
    assert active_content(body) == []


def test_the_text_around_removed_markup_is_kept(hostile: tuple[Path, str]) -> None:
    root, _ = hostile
    text = {
        slug: " ".join(page(root, f"/blog/{slug}/").select_one(".post-body").get_text(" ").split())
        for slug, _ in HOSTILE
    }
    assert text["script"] == "before after"
    assert text["handlers"].startswith("text")
    assert text["links"] == "one two three four five"
    assert text["widget"] == "w" and text["mathml"] != ""
    assert text["placeholders"] == "a x y"


def test_a_video_iframe_becomes_a_link(hostile: tuple[Path, str]) -> None:
    root, warnings = hostile
    body = page(root, "/blog/youtube/").select_one(".post-body")
    assert body.find("iframe") is None
    assert [a["href"] for a in body.find_all("a")] == ["https://www.youtube.com/embed/abc123"]
    assert "youtube.md: replaced an <iframe> embed by a link to https://www.youtube.com/embed/abc123" in warnings


def test_each_removal_is_a_warning_for_its_post(hostile: tuple[Path, str]) -> None:
    _, warnings = hostile
    lines = warnings.splitlines()

    def about(slug: str) -> str:
        return "\n".join(line for line in lines if f"-> {slug}.md:" in line)

    assert "dropped an inline <script> element" in about("script")
    assert "2 <iframe>" in about("iframes")
    assert "1 <object>" in about("objects") and "1 <embed>" in about("objects")
    assert "1 <form>" in about("form")
    assert about("handlers") == "" and about("noscript") == ""  # handlers go silently: nothing seen goes with them
    assert "5 links or sources with a script or data URL" in about("links")


# --- item 6: what real blogs need survives ------------------------------------------------------------------

REAL = (
    '<p id="intro">Inline <script type="math/tex">a^2+b^2</script> and</p>'
    '<script type="math/tex; mode=display">\\int_0^1 x\\,dx</script>'
    "<details><summary>More</summary><p>Hidden <sup>1</sup> H<sub>2</sub>O</p></details>"
    '<figure><img src="https://example.org/p.jpg" srcset="https://example.org/p2.jpg 2x" alt="A photo">'
    "<figcaption>Caption</figcaption></figure>"
    "<table><thead><tr><th>k</th></tr></thead><tbody><tr><td>v</td></tr></tbody></table>"
    '<pre><code class="language-python">print("hi")</code></pre>'
    '<p>Note<sup id="fnref:1"><a href="#fn:1" class="footnote">1</a></sup></p>'
    '<div class="footnotes"><ol><li id="fn:1"><p>The note. <a href="#fnref:1" class="reversefootnote">↩</a></p></li>'
    "</ol></div>"
    '<video src="https://example.org/v.mp4" controls></video><audio src="https://example.org/a.mp3"></audio>'
    '<p><img src="data:image/png;base64,iVBORw0KGgo=" alt="dot"></p>'
)


def test_what_real_blogs_need_survives_the_cleaning(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site")
    warnings, _ = import_and_build(root, atom([("real", "Real", REAL)]))
    body = page(root, "/blog/real/").select_one(".post-body")
    assert [a.get_text() for a in body.find_all("annotation")] == ["a^2+b^2", "\\int_0^1 x\\,dx"]
    assert body.find("details").find("summary").get_text() == "More"
    assert body.find("sup") is not None and body.find("sub").get_text() == "2"
    assert body.find("img", src="https://example.org/p.jpg") is not None
    assert body.find("td").get_text() == "v"
    assert "language-python" in body.find("code")["class"]
    assert len(body.select(".footnotes li")) == 1
    assert body.find("video")["src"] == "https://example.org/v.mp4"
    assert body.find("audio")["src"] == "https://example.org/a.mp3"
    assert body.find("img", alt="dot")["src"].startswith("data:image/png")
    assert "unsafe" not in warnings and "removed" not in warnings


# --- item 6: the feed we write ------------------------------------------------------------------------------

ODD_TITLE = "Odd ]]> \\x01 \\x0b </title><script>alert(1)</script> שלום עולם مرحبا 😀"


def test_odd_titles_give_a_well_formed_feed(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site")
    write_post(root, "odd.md", f'title: "{ODD_TITLE}"\ndate: 2024-01-02\ntags: ["a]]>b"]\nsummary: "s ]]> \\x01"')
    write_post(root, "plain.md", "title: Plain\ndate: 2024-01-01", "Body \x0b with ]]> in it.\n")
    run_cli("build", "--source", str(root), check=True)
    data = (root / "output" / "feed.xml").read_bytes()
    xml.dom.minidom.parseString(data)
    parsed = feedparser.parse(data, sanitize_html=False)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    odd = next(e for e in parsed.entries if e.link.endswith("/odd/"))
    shown = BeautifulSoup(odd.title, "html.parser")
    assert shown.find("script") is None
    assert shown.get_text() == "Odd ]]>   </title><script>alert(1)</script> שלום עולם مرحبا 😀"
    assert [t.term for t in odd.tags] == ["a]]>b"]


# --- item 6: entry links with dot segments -------------------------------------------------------------------


def test_entry_links_with_dot_segments_stay_inside_the_site(tmp_path: Path) -> None:
    root = make_site(tmp_path / "sub" / "site")
    links = {
        "up": "https://example.org/../../../../sub/pwned/",
        "encoded": "https://example.org/blog/%2e%2e/%2E%2E/%2e%2e/escaped/",
        "relative": "../../../../escaped-rel/",
        "backslash": "https://example.org/a/..\\..\\..\\escaped-bs/",
        "home": "https://example.org/../index.html",
    }
    feed = atom([(slug, slug, "x") for slug in links])
    for slug, link in links.items():
        feed = feed.replace(f'href="https://example.org/blog/{slug}/"', f'href="{link}"')
    import_and_build(root, feed)  # the build refuses a permalink with `..`: it passes
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.iterdir()) == ["sub"]
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["site"]
    pages = sorted(p.parent.relative_to(root / "output").as_posix() for p in (root / "output").rglob("index.html"))
    assert {"sub/pwned", "escaped", "escaped-rel", "escaped-bs", "blog/2024/home"} <= set(pages)
    assert page(root, "/").select_one(".post-body") is None, "the home page is still the list of posts"


def test_categories_spelled_as_paths_are_imported_as_names(tmp_path: Path) -> None:
    """The build refuses a tag that is a path (`../../etc`); the importer keeps its words, so the import builds."""
    root = make_site(tmp_path / "site")
    feed = atom([("cats", "Cats", "x")])
    terms = ["../../etc", "..", "/root", "CI/CD"]
    feed = feed.replace(
        "<title>Cats</title>", "<title>Cats</title>" + "".join(f'<category term="{t}"/>' for t in terms)
    )
    import_and_build(root, feed)
    tags = {p.parent.name for p in (root / "output/blog/tag").glob("*/index.html")}
    assert {"etc", "root", "cicd"} <= tags
    assert all((root / "output/blog/tag" / t).resolve().is_relative_to(root / "output") for t in tags)


# --- item 9: site.yml ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", 'https://example.org/"><script>alert(1)</script>', "https://example.org/a b"],
    ids=["javascript", "markup", "space"],
)
def test_a_url_that_is_not_a_plain_http_address_is_refused(tmp_path: Path, url: str) -> None:
    root = make_site(tmp_path / "site", f"title: T\nurl: '{url}'\n")
    write_post(root, "a.md", "title: A\ndate: 2024-01-02")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: site.yml:2: url must be an absolute http(s) address"), proc.stderr
    assert not (root / "output").exists()
    (root / "site.yml").write_text("title: T\nurl: https://example.org\n", encoding="utf-8")
    flag = run_cli("build", "--source", str(root), "--base-url", url)
    assert flag.returncode == 1 and flag.stderr.startswith("error: --base-url must be an absolute http(s) address")


def test_title_and_author_with_markup_are_escaped_everywhere(tmp_path: Path) -> None:
    evil = "</title><script>alert(1)</script>"
    root = make_site(tmp_path / "site", f"title: '{evil}'\nauthor: '{evil}'\nurl: https://example.org\n")
    write_post(root, "a.md", f"title: 'Post {evil}'\ndate: 2024-01-02\nauthor: 'Guest {evil}'")
    write_post(root, "b.md", "title: B\ndate: 2024-01-03")
    run_cli("build", "--source", str(root), check=True)
    files = every_output_file(root)
    assert [rel for rel, text in files.items() if "<script>alert" in text] == []
    for rel, text in files.items():
        if rel.endswith(".html"):
            soup = BeautifulSoup(text, "html.parser")
            assert soup.title is not None and evil in soup.title.get_text(), rel
            scripts = soup.find_all("script")
            data = [s.get_text() for s in scripts if s.get("type") == "application/ld+json"]  # JSON-LD: data
            assert [s for s in scripts if "alert" in s.get_text() and s.get("type") != "application/ld+json"] == []
            assert all("<" not in d for d in data), rel  # no `</script>` can end it
            if rel == "blog/2024/a/index.html":
                assert [json.loads(d)["headline"] for d in data] == [f"Post {evil}"]
    parsed = feedparser.parse(files["feed.xml"].encode(), sanitize_html=False)
    assert parsed.bozo == 0
    assert BeautifulSoup(parsed.feed.title, "html.parser").get_text() == evil
    assert parsed.feed.author == evil
    post = next(e for e in parsed.entries if e.link.endswith("/a/"))
    assert BeautifulSoup(post.title, "html.parser").get_text() == f"Post {evil}"
    assert post.author == f"Guest {evil}"
