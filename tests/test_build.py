"""The build on small sites: what pages exist, where, and what they show."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
import pytest
from helpers import make_site, run_cli, write_post


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(
        tmp_path / "site", "title: Test Site\nsubtitle: Notes\nurl: https://example.org\nposts_per_page: 2\n"
    )
    write_post(
        root,
        "first.md",
        "title: First post\ndate: 2024-03-01\ntags: [python, math]\nsummary: The first one.",
        "## Setup\n\nInline $a^2 + b^2 = c^2$ and display:\n\n$$\n\\frac{1}{2}\n$$\n\n"
        "```python\ndef f(x):\n    return x[0] < 1\n```\n\nA note[^1].\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "[^1]: The footnote text.\n",
    )
    write_post(
        root,
        "second.md",
        "title: Second post\ndate: 2025-05-02T10:00:00+02:00\ntags: [python]\npermalink: /custom/path/",
    )
    write_post(root, "third.md", "title: 第三篇\ndate: 2025-06-03\nlang: zh\ntags: [随笔]", "你好，世界。\n")
    run_cli("build", "--source", str(root), check=True)
    return root


def page(site: Path, url: str) -> str:
    path = site / "output" / url.lstrip("/")
    if url.endswith("/"):
        path = path / "index.html"
    return path.read_text(encoding="utf-8")


def test_posts_are_written_at_their_permalinks(site):
    assert '<h1 class="post-title">First post</h1>' in page(site, "/blog/2024/first/")
    assert "Second post" in page(site, "/custom/path/")
    assert "你好，世界。" in page(site, "/blog/2025/third/"), "the slug comes from the file name"


def test_post_body_is_inside_article_with_math_code_footnotes_tables(site):
    html = page(site, "/blog/2024/first/")
    article = html[html.index("<article") : html.index("</article>")]
    assert article.count("<math") == 2 and 'display="block"' in article
    assert '<annotation encoding="application/x-tex">a^2 + b^2 = c^2</annotation>' in article
    assert '<code class="language-python"><span class="k">def</span>' in article
    assert 'id="setup"' in article and 'href="#setup"' in article
    assert 'class="footnotes"' in article and "The footnote text." in article
    assert '<table tabindex="0">' in article and "<td>2</td>" in article  # a keyboard scrolls a wide one
    # no page needs JavaScript: its scripts keep the reader's light/dark choice, load search on the box's first use
    # and copy code (a page with code) (tests/test_pages_theme.py, test_search_browser.py, test_code_blocks.py)
    scripts = re.findall(r"<script(?! type=\"application/ld\+json\")[^>]*>", html)
    assert scripts[:2] == ["<script>", '<script data-src="/js/search.js">'] and "localStorage[k]" in html
    assert len(scripts) == 3 and "data-copy=" in scripts[2] and "src=" not in scripts[2]


def test_home_is_newest_first_and_paginated(site):
    home = page(site, "/")
    titles = re.findall(r'class="card-title"><a href="[^"]+">([^<]+)<', home)
    assert titles == ["第三篇", "Second post"]
    assert 'href="/page/2/"' in home
    assert re.findall(r'class="card-title"><a href="[^"]+">([^<]+)<', page(site, "/page/2/")) == ["First post"]


def test_tags_archives_404_sitemap_robots(site):
    tag = page(site, "/blog/tag/python/")
    assert "First post" in tag and "Second post" in tag and "第三篇" not in tag
    assert "第三篇" in page(site, "/blog/tag/随笔/")
    assert "Second post" in page(site, "/blog/2025/") and "First post" not in page(site, "/blog/2025/")
    assert all(t in page(site, "/blog/") for t in ("First post", "Second post", "第三篇"))
    assert "404" in page(site, "/404.html")
    sitemap = page(site, "/sitemap.xml")
    assert "<loc>https://example.org/custom/path/</loc>" in sitemap
    assert "Sitemap: https://example.org/sitemap.xml" in page(site, "/robots.txt")
    assert (site / "output" / "css" / "site.css").exists() and (site / "output" / "css" / "pygments.css").exists()


def test_feed_is_valid_atom_with_every_post(site):
    feed = feedparser.parse(str(site / "output" / "feed.xml"))
    assert feed.bozo == 0
    assert feed.feed.title == "Test Site" and feed.feed.subtitle == "Notes"
    assert feed.feed.id == "https://example.org/feed.xml"
    assert [e.title for e in feed.entries] == ["第三篇", "Second post", "First post"]
    first = feed.entries[2]
    assert first.link == "https://example.org/blog/2024/first/"
    assert [t.term for t in first.tags] == ["python", "math"]
    assert "<math" in first.content[0].value and first.summary == "The first one."


def test_feed_holds_the_newest_ten_posts_unless_told(tmp_path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\n")
    for day in range(1, 13):
        write_post(root, f"p{day:02d}.md", f"title: Day {day}\ndate: 2024-03-{day:02d}")
    run_cli("build", "--source", str(root), check=True)
    feed = feedparser.parse((root / "output" / "feed.xml").read_bytes())
    assert [e.title for e in feed.entries] == [f"Day {d}" for d in range(12, 2, -1)], "as jekyll-feed: newest 10"
    before = (root / "output" / "feed.xml").stat().st_mtime_ns
    write_post(root, "p01.md", "title: Day 1\ndate: 2024-03-01", "Edited, but too old for the feed.\n")
    assert ": 1 rendered," in run_cli("build", "--source", str(root), check=True).stdout
    assert (root / "output" / "feed.xml").stat().st_mtime_ns == before
    (root / "site.yml").write_text("title: T\nurl: https://example.org\nfeed_limit: 0\n")
    run_cli("build", "--source", str(root), check=True)
    assert len(feedparser.parse((root / "output" / "feed.xml").read_bytes()).entries) == 12


def test_chinese_page_is_marked_chinese(site):
    html = next((site / "output" / "blog" / "2025").glob("*/index.html"))
    texts = [p.read_text(encoding="utf-8") for p in (site / "output" / "blog" / "2025").glob("*/index.html")]
    zh = next(t for t in texts if "你好" in t)
    assert '<html lang="zh-Hans">' in zh
    assert html.exists()


def test_site_theme_overrides_default_templates(site):
    override = site / "themes" / "mine" / "templates"
    override.mkdir(parents=True)
    (override / "post.html").write_text(
        "{% extends 'base.html' %}{% block main %}CUSTOM {{ post.title }}{% endblock %}"
    )
    (site / "site.yml").write_text((site / "site.yml").read_text() + "theme: mine\n")
    run_cli("build", "--source", str(site), check=True)
    assert "CUSTOM First post" in page(site, "/blog/2024/first/")
    assert 'class="card-title"' in page(site, "/"), "templates the theme lacks come from the default theme"


def test_rebuild_with_nothing_changed_rewrites_nothing(site):
    before = {p: p.stat().st_mtime_ns for p in (site / "output").rglob("*") if p.is_file()}
    out = run_cli("build", "--source", str(site), check=True).stdout
    assert "0 rendered, 0 pages rendered, 0 files written" in out
    after = {p: p.stat().st_mtime_ns for p in (site / "output").rglob("*") if p.is_file() and p.name != ".site-builder"}
    assert all(before[p] == m for p, m in after.items())


def test_a_new_renderer_renders_unchanged_posts_again(site, monkeypatch):
    """After an upgrade that changes how posts render, old fragments in .cache/ must not be reused."""
    from site_builder.build import build_site, context, posts

    fragment = build_site(site, Path("output")).fragments_rendered
    assert fragment == 0
    for stage in (context, posts):  # the two places that key fragments and loaded posts by the renderer's version
        monkeypatch.setattr(stage, "RENDER_VERSION", "a newer renderer")
    assert build_site(site, Path("output")).fragments_rendered == 3


def test_equations_are_numbered_through_the_post_and_bad_tex_is_named(site):
    body = (
        "By $\\eqref{last}$:\n\n$$\\begin{equation}a = b\\end{equation}$$\n\n"
        "$$\\begin{align}c &= d \\nonumber \\\\ e &= f\\end{align}$$\n\n"
        "$$\\begin{equation}g = h \\label{last}\\end{equation}$$\n"
    )
    write_post(site, "eq.md", "title: Equations\ndate: 2024-02-01", body)
    run_cli("build", "--source", str(site), check=True)
    article = page(site, "/blog/2024/eq/")
    assert re.findall(r"<mtext>\((\d)\)</mtext>", article) == ["1", "2", "3"], "numbered across formulas"
    assert '<a href="#last">(3)</a>' in article, "a reference to an equation further down gets its number"
    assert re.search(r'id="last"><mtext>\(3\)', article)
    assert article.count("<math") == 4


def test_editing_a_post_updates_its_page_and_lists(site):
    post = site / "content" / "posts" / "first.md"
    post.write_text(
        post.read_text().replace("title: First post", "title: First post, edited").replace("A note", "An edited note")
    )
    out = run_cli("build", "--source", str(site), check=True).stdout
    assert ": 1 rendered," in out
    assert "An edited note" in page(site, "/blog/2024/first/")
    assert "First post, edited" in page(site, "/blog/2024/first/")
    assert "First post, edited" in page(site, "/page/2/")
    assert "First post, edited" in page(site, "/feed.xml")


def test_a_template_edit_rewrites_only_the_pages_using_it(tmp_path):
    import shutil

    from helpers import REPO

    from site_builder.build import build_site

    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2025-01-01\ntags: [x]")
    write_post(root, "b.md", "title: B\ndate: 2024-01-01\ntags: [y]")
    templates = root / "themes" / "default" / "templates"
    templates.mkdir(parents=True)
    for name in ("tags.html", "post.html", "base.html"):
        shutil.copy(REPO / "site_builder/themes/default/templates" / name, templates / name)
    build_site(root, root / "output")
    (templates / "tags.html").write_text((templates / "tags.html").read_text().replace("<h1", "<h1 data-edited"))
    changed = build_site(root, root / "output").changed_paths
    assert changed == ["blog/tag/index.html"]
    assert "data-edited" in (root / "output/blog/tag/index.html").read_text()
    (templates / "post.html").write_text(
        (templates / "post.html").read_text().replace("<article", "<article data-edited")
    )
    assert sorted(build_site(root, root / "output").changed_paths) == [
        "blog/2024/b/index.html",
        "blog/2025/a/index.html",
    ]
    (templates / "base.html").write_text((templates / "base.html").read_text().replace("<main", "<main data-edited"))
    every_page = build_site(root, root / "output").changed_paths
    assert "index.html" in every_page and "blog/tag/index.html" in every_page and "404.html" in every_page


def test_a_site_without_site_yml_builds_with_the_defaults(tmp_path):
    """content/ alone is a site: English, the default theme, the post at its dated permalink."""
    root = tmp_path / "bare"
    write_post(root, "hi.md", "title: Hi\ndate: 2026-11-21T22:19:50+00:00\ntags: []\nlang: en", "Write here.\n")
    out = run_cli("build", "--source", str(root), check=True).stdout
    assert "built 1 post " in out
    html = (root / "output" / "blog" / "2026" / "hi" / "index.html").read_text()
    assert '<html lang="en">' in html and "Write here." in html


def test_a_years_page_names_its_year_once_and_the_archive_heads_each_year(tmp_path):
    """/blog/2024/ is titled 2024 and lists that year's posts, without a second "2024" heading linking to itself;
    the archive of every year keeps a linked heading per year."""
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-03-01")
    write_post(root, "b.md", "title: B\ndate: 2023-05-02")
    run_cli("build", "--source", str(root), check=True)
    year = (root / "output" / "blog" / "2024" / "index.html").read_text()
    main = year[year.index("<main") : year.index("</main>")]
    assert re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", main) == ["2024"]
    assert ">A</a>" in main and ">B</a>" not in main
    archive = (root / "output" / "blog" / "index.html").read_text()
    assert '<h2><a href="/blog/2024/">2024</a></h2>' in archive and '<h2><a href="/blog/2023/">2023</a></h2>' in archive


def test_reading_time_counts_words_joined_by_punctuation_and_cjk_characters(tmp_path):
    """A word is a run of letters, digits, `_`, `-` and apostrophes (`it’s` is one); a dash or a comma between
    two words parts them, and each CJK character counts a 400th of a minute: 230 times `it’s—fine,a-b_c…x9中文`
    is 920 words (4 min) and 460 characters (1.15 min), so 5 min, not 2 (whitespace words) or 6 (’ parting)."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\n")
    write_post(root, "long.md", "title: Long\ndate: 2024-03-01", "it’s—fine,a-b_c…x9中文 " * 230 + "\n")
    run_cli("build", "--source", str(root), check=True)
    assert "5 min read" in page(root, "/blog/2024/long/")


def test_the_themes_escaping_is_markupsafes(tmp_path):
    """Templates escape `{{ }}` with write/templates._escape (a str straight to Markup): the same text and type as
    markupsafe.escape for strings, Markup, numbers and objects with __html__; and a title of HTML's special
    characters shows as text in the page and its meta tags."""
    import markupsafe

    from site_builder.write.templates import _escape

    class Html:
        def __html__(self) -> str:
            return "<b>x</b>"

    for value in ["", "plain", "<a href='x'>&amp;\"</a>", "中文 < 文", markupsafe.Markup("<i>ok</i>"), 3, 2.5, Html()]:
        assert _escape(value) == markupsafe.escape(value) and type(_escape(value)) is markupsafe.Markup
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\n")
    write_post(root, "x.md", "title: \"<script>alert('&')</script>\"\ndate: 2024-03-01", "Body.\n")
    run_cli("build", "--source", str(root), check=True)
    text = page(root, "/blog/2024/x/")
    assert "<script>alert" not in text
    assert '<meta property="og:title" content="&lt;script&gt;alert(&#39;&amp;&#39;)&lt;/script&gt;">' in text


def test_long_posts_are_parsed_a_few_at_a_time_and_all_are_rendered(tmp_path: Path) -> None:
    """A worker parses a batch's posts before rendering them, in groups of at most PARSED_AHEAD characters of
    Markdown (their tokens take ~12x that): three posts of 0.6 PARSED_AHEAD each among short ones are in groups of
    their own, and every post is rendered, in its place."""
    from site_builder.build.posts import PARSED_AHEAD, Loaded, _by_size

    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nsearch: false\n")
    long_text = "word " * int(0.6 * PARSED_AHEAD / 5)
    for i in range(6):
        body = f"Post {i} starts.\n\n" + (long_text if i % 2 else "Short.\n")
        write_post(root, f"p{i}.md", f"title: P{i}\ndate: 2024-01-0{i + 1}", body)
    proc = run_cli("build", "--source", str(root), "--output", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    for i in range(6):
        page = (tmp_path / "out" / "blog" / "2024" / f"p{i}" / "index.html").read_text()
        assert f"Post {i} starts." in page and (long_text.strip() in page) == bool(i % 2)

    class _Body:
        def __init__(self, size: int) -> None:
            self.body = "x" * size

    sizes = [10, 20, 5, 100, 3, 60, 50, 1, 1]
    items = [(i, Loaded(_Body(n), None, "", None)) for i, n in enumerate(sizes)]  # type: ignore[arg-type]
    groups = _by_size(items, 40)
    assert [i for group in groups for i, _ in group] == list(range(len(sizes)))  # each once, in order
    assert all(len(g) == 1 or sum(sizes[i] for i, _ in g) <= 40 for g in groups)
    assert [[i for i, _ in g] for g in groups] == [[0, 1, 2], [3], [4], [5], [6], [7, 8]]
