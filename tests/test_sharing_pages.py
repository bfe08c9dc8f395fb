"""Feeds and sharing (a feed per tag, Open Graph, Twitter cards, JSON-LD, rel=me, favicon), pages of their own
(content/pages: header navigation, translations, kept out of lists and feeds) and related posts: built by the real
CLI, read as a feed reader, a link preview and a browser read them; axe-core on the pages showing them."""

from __future__ import annotations

import json
import re
import xml.dom.minidom
from collections.abc import Iterator
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import Served, assert_one_line_error, make_site, run_cli, serve_folder, wait_for, write_post
from PIL import Image
from test_accessibility import axe_violations
from test_serve import page_text

CONFIG = """title: Notes
url: https://example.org
author: Ada
nav: [projects, about]
social:
  GitHub: https://github.com/ada
  Email: mailto:ada@example.org
languages:
  en: {}
  zh: {}
"""
EVIL = "A </script><script>alert(1)</script>"


def write_page(root: Path, name: str, front: str, body: str = "A page.\n") -> Path:
    path = root / "content" / "pages" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front.strip()}\n---\n\n{body}", encoding="utf-8")
    return path


def make_notes(root: Path, config: str = CONFIG) -> Path:
    make_site(root, config)
    write_page(root, "about.md", "title: About", "I write notes about *things*.\n")
    write_page(root, "about.zh.md", "title: 关于", "我写笔记。\n")
    write_page(root, "projects.md", "title: Projects\npermalink: /work/", "Things I made.\n")
    write_page(root, "colophon.md", "title: Colophon", "Set in the default theme.\n")
    write_post(root, "a.md", f"title: '{EVIL}'\ndate: 2024-01-01\ntags: [x, y]\nimage: /img/card.png", "Alpha.\n")
    write_post(root, "b.md", "title: B\ndate: 2024-02-01\ntags: [x, y]", "![Pic](https://cdn.example.org/p.png)\n")
    write_post(root, "c.md", "title: C\ndate: 2024-03-01\ntags: [x]", "Gamma.\n")
    write_post(root, "d.md", "title: D\ndate: 2024-04-01\ntags: [y, x, z]", "Delta.\n")
    write_post(root, "e.md", "title: E\ndate: 2024-05-01\ntags: [X]", "Epsilon, with one tag spelt otherwise.\n")
    write_post(root, "f.md", "title: F\ndate: 2024-06-01\ntags: [q]", "No tag in common.\n")
    write_post(root, "g.zh.md", "title: 庚\ndate: 2024-07-01\ntags: [x, y]", "中文。\n")
    return root


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    root = make_notes(tmp_path_factory.mktemp("sharing") / "site")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    return root / "output"


def soup(out: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((out / path.lstrip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def meta(page: BeautifulSoup, key: str) -> str | None:
    tag = page.find("meta", attrs={"property": key}) or page.find("meta", attrs={"name": key})
    return None if tag is None else str(tag["content"])


# --- a feed per tag ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/", "/zh/"])
def test_each_tag_has_a_well_formed_feed_linked_from_its_page(out, prefix):
    main = feedparser.parse((out / prefix.lstrip("/") / "feed.xml").read_bytes())
    everything = feedparser.parse((out / "feed.xml").read_bytes())
    ids = {e.id for e in everything.entries}
    for tag in ("x", "y", "z", "q"):
        path = out / prefix.lstrip("/") / "blog" / "tag" / tag / "feed.xml"
        xml.dom.minidom.parse(str(path))
        feed = feedparser.parse(path.read_bytes())
        assert feed.bozo == 0, feed.get("bozo_exception")
        assert feed.entries and {e.id for e in feed.entries} <= ids, "entry ids are the main feed's"
        assert all(tag in [t.term.lower() for t in e.tags] for e in feed.entries)
        page = soup(out, f"{prefix}blog/tag/{tag}/")
        url = f"{prefix}blog/tag/{tag}/feed.xml"
        assert page.find("link", rel="alternate", type="application/atom+xml", href=url) is not None
        assert page.select_one(f"main a[href='{url}']") is not None, "a visible link"
    assert main.bozo == 0
    x = feedparser.parse((out / "blog/tag/x/feed.xml").read_bytes())
    assert [e.title for e in x.entries][:2] == ["庚", "E"], "the posts the tag page lists, newest first"


# --- link previews ----------------------------------------------------------------------------------------------


def test_open_graph_and_twitter_cards_with_absolute_images(out):
    a, b, c = soup(out, "/blog/2024/a/"), soup(out, "/blog/2024/b/"), soup(out, "/blog/2024/c/")
    assert meta(a, "og:image") == "https://example.org/img/card.png", "front matter image, made absolute"
    assert meta(b, "og:image") == "https://cdn.example.org/p.png", "else the post's first image"
    assert meta(c, "og:image") is None
    assert [meta(p, "twitter:card") for p in (a, b, c)] == ["summary_large_image"] * 2 + ["summary"]
    assert meta(c, "og:title") == "C" and meta(c, "twitter:title") == "C"
    assert meta(c, "og:description") == "Gamma." == meta(c, "twitter:description"), "its first paragraph"
    assert meta(c, "og:url") == "https://example.org/blog/2024/c/"
    assert a.find("meta", attrs={"name": "description"})["content"] == "Alpha."


def test_json_ld_blog_posting_cannot_be_broken_out_of(out):
    html = (out / "blog/2024/a/index.html").read_text(encoding="utf-8")
    page = BeautifulSoup(html, "html.parser")
    scripts = page.find_all("script", type="application/ld+json")
    assert len(scripts) == 1
    data = json.loads(scripts[0].string)
    assert data["@type"] == "BlogPosting" and data["headline"] == EVIL
    assert data["datePublished"].startswith("2024-01-01") and data["dateModified"].startswith("2024-01-01")
    assert data["author"] == {"@type": "Person", "name": "Ada"}
    assert data["url"] == "https://example.org/blog/2024/a/" and data["image"] == "https://example.org/img/card.png"
    assert data["inLanguage"] == "en"
    assert "<script>alert(1)" not in html, "the title never closes a script element"
    assert not [s for s in page.find_all("script") if "alert(1)" in (s.string or "") and not s.get("type")]
    zh = json.loads(soup(out, "/zh/blog/2024/g/").find("script", type="application/ld+json").string)
    assert zh["inLanguage"] == "zh-Hans"


def test_previews_under_a_subpath(tmp_path):
    root = make_notes(tmp_path / "site", CONFIG.replace("https://example.org", "https://example.org/notes/"))
    Image.new("RGB", (1200, 630), (200, 30, 30)).save(root / "content/posts/red.jpg")
    write_post(root, "h.md", "title: H\ndate: 2024-08-01", "Text first.\n\n![Red](red.jpg)\n")
    run_cli("build", "--source", str(root), check=True)
    out = root / "output"
    h = soup(out, "/blog/2024/h/")
    image = meta(h, "og:image")
    assert image == "https://example.org/notes/" + h.select_one("article img")["src"].removeprefix("/notes/")
    assert (out / image.removeprefix("https://example.org/notes/")).is_file(), "a local image: the published file"
    assert meta(h, "twitter:image") == image and meta(h, "twitter:card") == "summary_large_image"
    a = soup(out, "/blog/2024/a/")
    assert meta(a, "og:image") == "https://example.org/notes/img/card.png"
    assert meta(a, "og:url") == "https://example.org/notes/blog/2024/a/"
    assert json.loads(a.find("script", type="application/ld+json").string)["url"] == meta(a, "og:url")
    assert a.find("link", rel="alternate", href="/notes/blog/tag/x/feed.xml") is None  # a post page: no tag feed
    assert soup(out, "/blog/tag/x/").find("link", type="application/atom+xml", href="/notes/blog/tag/x/feed.xml")
    assert [a["href"] for a in soup(out, "/").select("header nav a")][4:6] == ["/notes/work/", "/notes/about/"]
    x = feedparser.parse((out / "blog/tag/x/feed.xml").read_bytes())
    assert x.bozo == 0 and x.feed.link == "https://example.org/notes/blog/tag/x/"


# --- rel=me, footer, favicon ------------------------------------------------------------------------------------


def test_social_links_are_rel_me_in_the_head_and_in_the_footer(out):
    for path in ("/", "/about/", "/blog/2024/a/", "/zh/blog/tag/x/"):
        page = soup(out, path)
        assert [link["href"] for link in page.find_all("link", rel="me")] == [
            "https://github.com/ada",
            "mailto:ada@example.org",
        ]
        assert [a.text for a in page.select("footer a[rel~=me]")] == ["GitHub", "Email"]
        assert page.select_one("footer a[href='/feed.xml'], footer a[href='/zh/feed.xml']") is not None
        assert "site_builder" in page.find("footer").text and "© Ada" in page.find("footer").text


@pytest.mark.parametrize(
    "social",
    ["{evil: 'javascript:alert(1)'}", "[{name: x, url: 'data:text/html,hi'}]", "{x: 'https:no-host'}", "[1, 2]"],
)
def test_a_social_link_that_is_no_web_address_is_an_error_at_its_line(tmp_path, social):
    root = make_site(tmp_path / "s", f"title: T\nurl: https://example.org\nsocial: {social}\n")
    write_post(root, "p.md", "title: P\ndate: 2024-01-01")
    assert_one_line_error(run_cli("build", "--source", str(root)), r"^error: site\.yml:3: social")


def test_favicon_from_site_yml_or_drawn_from_the_initial(tmp_path):
    root = make_site(tmp_path / "s", "title: Zebra\nurl: https://example.org\n")
    write_post(root, "p.md", "title: P\ndate: 2024-01-01")
    run_cli("build", "--source", str(root), check=True)
    icon = soup(root / "output", "/").find("link", rel="icon")["href"]
    assert icon.startswith("data:image/svg+xml,") and ">Z<" in icon.replace("%3E", ">").replace("%3C", "<")
    (root / "site.yml").write_text("title: Zebra\nurl: https://example.org/z/\nfavicon: icon.png\n")
    run_cli("build", "--source", str(root), check=True)
    assert soup(root / "output", "/").find("link", rel="icon")["href"] == "/z/icon.png"
    (root / "site.yml").write_text("title: Zebra\nfavicon: 'javascript:alert(1)'\n")
    assert_one_line_error(run_cli("build", "--source", str(root)), r"^error: site\.yml:2: favicon")


# --- pages ------------------------------------------------------------------------------------------------------


def test_pages_are_built_with_translations_and_the_header_shows_them_in_site_yml_order(out):
    about = soup(out, "/about/")
    assert about.find("h1").text == "About" and "I write notes" in about.find("article").text
    assert soup(out, "/zh/about/").find("h1").text == "关于"
    assert soup(out, "/work/").find("h1").text == "Projects", "its own permalink"
    assert soup(out, "/colophon/").find("h1").text == "Colophon", "not in nav: built all the same"
    nav = [(a["href"], a.text) for a in soup(out, "/blog/").select("header nav > a")]
    assert nav[4:] == [("/work/", "Projects"), ("/about/", "About")]
    zh_nav = [(a["href"], a.text) for a in soup(out, "/zh/").select("header nav > a")]
    assert zh_nav[4:] == [("/work/", "Projects"), ("/zh/about/", "关于")], "a page's own language where it has one"
    assert about.select_one("header nav a[aria-current=page]")["href"] == "/about/"
    assert about.find("link", rel="alternate", hreflang="zh-Hans")["href"] == "https://example.org/zh/about/"
    assert meta(about, "og:type") == "website" and meta(about, "og:url") == "https://example.org/about/"


def test_pages_are_in_the_sitemap_but_in_no_list_or_feed(out):
    locs = re.findall(r"<loc>([^<]+)</loc>", (out / "sitemap.xml").read_text())
    for url in ("/about/", "/zh/about/", "/work/", "/colophon/"):
        assert f"https://example.org{url}" in locs
    lists = [p.relative_to(out) for p in out.rglob("*") if p.name in ("index.html", "feed.xml")]
    for rel in lists:
        text = (out / rel).read_text(encoding="utf-8")
        if rel.name == "feed.xml":
            assert "Colophon" not in text and "/about/" not in text, rel
        elif not re.search(r"^(zh/)?(about|work|colophon)/", str(rel)):
            main = BeautifulSoup(text, "html.parser").find("main")
            assert "Colophon" not in main.text and not main.select("a[href$='/about/'], a[href='/work/']"), rel


def test_the_summary_line_counts_pages_apart_from_posts(tmp_path):
    root = make_notes(tmp_path / "site")
    for _ in ("cold", "nothing changed"):
        proc = run_cli("build", "--source", str(root), check=True)
        assert re.search(r"^built 7 posts and 4 pages into ", proc.stdout, re.M), proc.stdout


def test_a_page_on_a_posts_permalink_is_an_error_at_its_line(tmp_path):
    root = make_site(tmp_path / "s")
    write_post(root, "p.md", "title: P\ndate: 2024-01-01\ntags: [t]")
    write_page(root, "clash.md", "title: Clash\nlang: en\npermalink: /blog/2024/p/")
    message = r"^error: content/pages/clash\.md:4: permalink /blog/2024/p/ is also used by content/posts/p\.md$"
    assert_one_line_error(run_cli("build", "--source", str(root)), message)
    for taken in ("/blog/", "/blog/tag/t/feed.xml"):  # the site's own pages and feeds
        write_page(root, "clash.md", f"title: Clash\nlang: en\npermalink: {taken}")
        message = rf"^error: content/pages/clash\.md:4: permalink {taken} collides with the site's own"
        assert_one_line_error(run_cli("build", "--source", str(root)), message)


def test_a_nav_name_with_no_page_is_a_warning(tmp_path):
    root = make_site(tmp_path / "s", "title: T\nnav: [about]\n")
    write_post(root, "p.md", "title: P\ndate: 2024-01-01")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0 and "nav: no page 'about'" in proc.stderr


# --- related posts ----------------------------------------------------------------------------------------------


def test_related_posts_most_shared_tags_first_then_newest_same_language(out):
    def related(path: str) -> list[str]:
        return [a.text for a in soup(out, path).select(".related li a")]

    assert related("/blog/2024/a/") == ["D", "B", "E"], "two shared tags (newest first), then one"
    assert related("/blog/2024/c/") == ["E", "D", "B"]
    assert related("/blog/2024/f/") == [], "no tag in common"
    assert related("/zh/blog/2024/g/") == [], "same language only"
    page = soup(out, "/blog/2024/a/")
    assert page.select_one(".post-nav").find_next("section")["class"] == ["related"]
    assert [a.select_one(".nav-title").text for a in page.select(".post-nav a")] == ["B"]


# --- serve ------------------------------------------------------------------------------------------------------


def nav_link(title: str) -> str:
    return f'<a href="/about/" lang="en">{title}</a>'


def test_serve_picks_up_a_new_page_an_edited_page_and_its_nav_title(tmp_path):
    root = make_site(tmp_path / "site", "title: Live\nurl: https://example.org\nnav: [about]\n")
    write_post(root, "one.md", "title: One\ndate: 2024-01-01\ntags: [t]", "First.\n")
    write_post(root, "two.md", "title: Two\ndate: 2024-02-01\ntags: [t]", "Second.\n")
    server = Served(root)
    try:
        assert "Two" in page_text(server, "/blog/2024/one/").split('class="related"')[1]
        about = write_page(root, "about.md", "title: About me", "Hello there.\n")
        wait_for(lambda: "Hello there." in page_text(server, "/about/"))
        wait_for(lambda: nav_link("About me") in page_text(server, "/blog/2024/one/"))
        about.write_text(about.read_text().replace("Hello there.", "Edited text."))
        wait_for(lambda: "Edited text." in page_text(server, "/about/"))
        about.write_text(about.read_text().replace("About me", "Who"))
        wait_for(lambda: nav_link("Who") in page_text(server, "/"))
        # every page's header, written after the home page (serve moves the first home page in early)
        wait_for(lambda: nav_link("Who") in page_text(server, "/blog/2024/two/"))
        two = root / "content" / "posts" / "two.md"
        two.write_text(two.read_text().replace("title: Two", "title: Second post"))
        wait_for(lambda: "Second post" in page_text(server, "/blog/2024/one/").split('class="related"')[-1])
        write_post(root, "three.md", "title: Three\ndate: 2024-03-01\ntags: [t]", "Third.\n")
        wait_for(lambda: "Three" in page_text(server, "/blog/2024/one/").split('class="related"')[-1])
        wait_for(lambda: (server.output / "blog/tag/t/feed.xml").exists())
        wait_for(lambda: "Three" in (server.output / "blog/tag/t/feed.xml").read_text())
    finally:
        server.stop()


# --- accessibility ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(out) -> Iterator[str]:
    with serve_folder(out) as url:
        yield url


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])  # each scheme, each width, once
def test_no_axe_violations_on_a_page_a_tag_page_and_a_post_with_related_posts(served, width, mode):
    assert not axe_violations(served, ["/about/", "/zh/about/", "/blog/tag/x/", "/blog/2024/a/"], width, mode)


# --- excerpts: what lists show of a post without a summary --------------------------------------------------------


def test_a_post_without_summary_is_listed_with_its_first_words_or_what_comes_before_more(tmp_path):
    root = make_site(tmp_path / "site")
    long = "Word " * 80
    write_post(root, "plain.md", "title: Plain\ndate: 2024-03-01", f"Short.\n\n{long}\n\nNever shown.\n")
    write_post(root, "cut.md", "title: Cut\ndate: 2024-02-01", "One *two*.\n\nThree.\n\n<!--more-->\n\nHidden.\n")
    write_post(root, "own.md", "title: Own\ndate: 2024-01-01\nsummary: Its own words.", "Not these.\n")
    zh = "学习的方式发生了很大的变化。" * 4 + "我们是否真正理解了这些答案？" + "本文记录一些思考，" * 6
    write_post(root, "zh.md", "title: 中文\ndate: 2023-12-01\nlang: zh", zh + "\n")
    code = "The tag `{% raw %}` keeps `<b>` as written, and `{{ x }}` too.\n"
    write_post(root, "code.md", "title: Code\ndate: 2023-11-01", code)
    run_cli("build", "--source", str(root), check=True)
    home = BeautifulSoup((root / "output/index.html").read_text(encoding="utf-8"), "html.parser")
    cards = {c.h2.a.text: c.select_one(".summary") for c in home.select("article.card")}
    plain = cards["Plain"].text
    assert plain.startswith("Short. Word Word") and plain.endswith("Word…") and len(plain) <= 201, plain
    assert cards["Cut"].text == "One two. Three.", "everything before <!--more-->, and nothing after"
    assert cards["Own"].text == "Its own words.", "a summary in the front matter wins"
    head = zh[:100]  # 200 wide: a CJK character counts two
    assert cards["中文"].text == head[: head.rindex("，")] + "…", "cut at the last CJK comma, which goes"
    spans = [c.text for c in cards["Code"].find_all("code")]  # inline code stays code, escaped, as in the post
    assert (
        spans == ["{% raw %}", "<b>", "{{ x }}"]
        and cards["Code"].text == "The tag {% raw %} keeps <b> as written, and {{ x }} too."
    )
    assert meta(soup(root / "output", "/blog/2023/code/"), "og:description") == cards["Code"].text, "as text"
    cut = soup(root / "output", "/blog/2024/cut/")
    assert meta(cut, "og:description") == "One two. Three.", "link previews say the same"
    feed = (root / "output/feed.xml").read_text(encoding="utf-8")
    assert feed.count("<summary") == 1 and "Its own words." in feed, "a feed's summaries: the front matter's only"
