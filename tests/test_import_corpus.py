"""Importing real feeds of other blogs (../shared/corpus/feeds): no crash, nothing lost, clear warnings."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import feedparser
import pytest
import yaml
from bs4 import BeautifulSoup

from site_builder.config import SiteConfig
from site_builder.errors import SiteError
from site_builder.importer import import_feed
from site_builder.load import load_post
from site_builder.parse import parse
from site_builder.render import render_post

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "feeds"
if not CORPUS.is_dir():
    pytest.skip(f"real-feed corpus not found at {CORPUS}", allow_module_level=True)

ALFOLIO = CORPUS / "jekyllfeed-alfolio-cybotiger-galleries-feed.xml"
HAOXIANSEN = CORPUS / "jekyllfeed-haoxiansen-zh-rouge-feed.xml"
RAY = CORPUS / "jekyllfeed-rayproject-python-doctest-feed.xml"
FASTPAGES = CORPUS / "jekyllfeed-fastpages-summary-only-feed.xml"
PELICAN = CORPUS / "pelican-jakevdp-large-summary-only-all.atom.xml"
WXR = CORPUS / "wordpress-wxr-export-jekyllimport-mock.xml"
FEEDS = [ALFOLIO, HAOXIANSEN, RAY, FASTPAGES, PELICAN]
MALFORMED = sorted((CORPUS / "malformed").glob("*.xml"))
WP = "{http://wordpress.org/export/1.2/}"


def entries(feed: Path):
    return feedparser.parse(feed.read_bytes(), sanitize_html=False, resolve_relative_uris=False).entries


def published_wxr_posts(feed: Path) -> list[ET.Element]:
    return [
        item
        for item in ET.parse(feed).getroot().iter("item")
        if item.findtext(f"{WP}post_type") == "post" and item.findtext(f"{WP}status") == "publish"
    ]


_cache: dict[Path, tuple] = {}


def imported(feed: Path, tmp_path_factory):
    """Import each feed once per session: (directory, report, {id: Post})."""
    if feed not in _cache:
        out = tmp_path_factory.mktemp(feed.stem[:30]) / "posts"
        report = import_feed(feed, out, log=lambda _: None)
        cfg = SiteConfig(root=out.parent)
        posts = [load_post(p, cfg) for p in sorted(out.glob("*.md"))]
        _cache[feed] = (out, report, {p.id: p for p in posts})
    return _cache[feed]


@pytest.mark.parametrize("feed", [*FEEDS, WXR], ids=lambda p: p.stem[:40])
def test_every_entry_becomes_a_post_with_id_and_title(feed, tmp_path_factory):
    _out, report, posts = imported(feed, tmp_path_factory)
    expected = published_wxr_posts(feed) if feed == WXR else entries(feed)
    assert len(report.written) == len(expected) == len(posts)
    if feed == WXR:
        ids = {item.findtext("guid") for item in expected}
        titles = {item.findtext("title") for item in expected}
    else:
        ids = {e.id for e in expected}
        titles = {e.title for e in expected}
    assert set(posts) == ids
    assert {p.title for p in posts.values()} == titles


@pytest.mark.parametrize("feed", [*FEEDS, WXR], ids=lambda p: p.stem[:40])
def test_every_post_renders_with_the_builder(feed, tmp_path_factory):
    _, _, posts = imported(feed, tmp_path_factory)
    report = imported(feed, tmp_path_factory)[1]
    for post in posts.values():
        rendered = render_post(post)  # raises SiteError on markup that stops a site
        for warning in rendered.warnings:  # only images the importer said it could not locate may be missing
            src = re.search(r"image '([^']+)': file not found", warning.message)
            if src is None:  # what the importer writes must not give the builder anything to warn about
                assert "cannot render math" in warning.message, warning.message
                continue
            assert any(f"image {src.group(1)} has no host" in w for w in report.warnings), warning.message


@pytest.mark.parametrize("feed", [ALFOLIO, HAOXIANSEN, RAY, WXR], ids=lambda p: p.stem[:40])
def test_code_blocks_identical_to_the_feed(feed, tmp_path_factory):
    _, _, posts = imported(feed, tmp_path_factory)
    checked = 0
    for e in entries(feed):
        if feed == WXR and e.get("wp_post_type") != "post":
            continue
        html = e.content[0].value if e.get("content") else ""
        theirs = [pre.get_text() for pre in BeautifulSoup(html, "html.parser").find_all("pre")]
        ours = [t.content for t in parse(posts[e.id].body)[0] if t.type == "fence"]
        theirs = [t if t.endswith("\n") else t + "\n" for t in theirs]  # a fence always ends its last line
        assert ours == theirs, e.title
        checked += len(ours)
    assert checked > 0


def test_rouge_languages_kept(tmp_path_factory):
    _, _, posts = imported(HAOXIANSEN, tmp_path_factory)
    langs = {t.info for p in posts.values() for t in parse(p.body)[0] if t.type == "fence"}
    assert {"swift", "shell", "ruby", "objective-c"} <= langs


def test_relative_urls_become_absolute_where_the_feed_has_a_base(tmp_path_factory):
    _, _, posts = imported(ALFOLIO, tmp_path_factory)
    body = next(p for p in posts.values() if p.title == "a post with advanced image components").body
    assert "](https://cybotiger.github.io/assets/img/9.jpg)" in body
    assert "](/assets" not in body


def test_relative_feed_keeps_root_relative_links_and_permalinks(tmp_path_factory):
    out, _, posts = imported(RAY, tmp_path_factory)
    post = posts["/2017/05/20/announcing-ray"]
    assert post.permalink == "/2017/05/20/announcing-ray.html"
    assert "](/assets/announcing_ray/graph1.png)" in post.body
    for p in posts.values():
        for url in re.findall(r"\]\(([^)\s]+)", p.body):
            assert url.startswith(("/", "http://", "https://", "#", "mailto:")), url
    assert (out / "announcing-ray.md").exists()


def test_ipython_sessions_stay_code(tmp_path_factory):
    _, _, posts = imported(RAY, tmp_path_factory)
    fences = [t.content for p in posts.values() for t in parse(p.body)[0] if t.type == "fence"]
    assert any(f.startswith(">>> ") for f in fences) or any("\n>>> " in f for f in fences)


def test_chinese_feed_posts_are_zh_with_readable_file_names(tmp_path_factory):
    out, report, posts = imported(HAOXIANSEN, tmp_path_factory)
    assert {p.lang for p in posts.values()} == {"zh"}, "the feed says xml:lang=en, the text says otherwise"
    assert (out / "如何优化一堆的if判断语句.md").exists()
    post = posts[
        "http://localhost:4000/2023/10/24/%E5%A6%82%E4%BD%95%E4%BC%98%E5%8C%96%E4%B8%80%E5%A0%86%E7%9A%84if%E5%88%A4%E6%96%AD%E8%AF%AD%E5%8F%A5"
    ]
    assert post.permalink == "/2023/10/24/如何优化一堆的if判断语句.html"
    assert report.warnings == []


def test_alfolio_galleries(tmp_path_factory):
    _, report, posts = imported(ALFOLIO, tmp_path_factory)
    body = next(p for p in posts.values() if p.title == "a post with image galleries").body
    blocks = re.findall(r"^::: gallery( \w+)?\n((?:!\[.*\n)+):::$", body, re.M)
    assert [len(images.splitlines()) for _, images in blocks] == [3, 4, 3, 3, 3]
    assert {layout for layout, _ in blocks} == {" grid"}
    assert "photos/7/img-2500.jpg" in body, "the lightbox link's full-size image is used"
    sliders = next(p for p in posts.values() if p.title == "a post with advanced image components").body
    assert sliders.count("::: gallery") == 2
    assert any("slider" in w and "advanced-images.md" in w for w in report.warnings)


def test_interactive_things_are_kept_and_warned_about(tmp_path_factory):
    _, report, posts = imported(ALFOLIO, tmp_path_factory)
    tabs = next(p for p in posts.values() if p.title == "a post with tabs").body
    # jekyll-tabs: a `:::: tab` block per tab (tabs.py), nothing lost, so no warning
    assert ":::: tab php\n\n```php\nvar_dump('hello');\n```\n\n::::\n\n:::: tab js\n" in tabs
    assert ":::: tab list\n\nHipster list\n\n- brunch\n" in tabs
    assert not any("tabs.md" in w for w in report.warnings)
    assert any("pseudocode.md" in w and "pseudocode" in w for w in report.warnings)
    assert any("scannet-dataset.md" in w and "no text" in w for w in report.warnings)
    _, ray_report, ray_posts = imported(RAY, tmp_path_factory)
    assert any("announcing-ray.md" in w and "<iframe>" in w for w in ray_report.warnings)
    body = ray_posts["/2017/05/20/announcing-ray"].body  # an embed is untrusted markup: a link to it instead
    assert "<iframe" not in body
    assert "<https://www.youtube.com/embed/07eIebEk1MM?autoplay=1&loop=1&playlist=07eIebEk1MM>" in body


@pytest.mark.parametrize("feed", [FASTPAGES, PELICAN], ids=lambda p: p.stem[:40])
def test_summary_only_feeds_say_so(feed, tmp_path_factory):
    _out, report, posts = imported(feed, tmp_path_factory)
    only_summary = [w for w in report.warnings if "only a summary" in w]
    assert len(only_summary) == len(posts)
    for path in report.written:
        assert any(path.name in w for w in only_summary)


def test_summary_only_body_is_the_summary(tmp_path_factory):
    _, _, posts = imported(FASTPAGES, tmp_path_factory)
    post = posts["https://fastpages.fast.ai/fastcore"]
    text = "A unique python library that extends the python programming language and provides utilities that enhance productivity."
    assert post.body.strip() == text and post.summary == text
    assert post.permalink == "/fastcore/"


def test_large_feed_with_a_huge_embedded_script(tmp_path_factory):
    _, report, posts = imported(PELICAN, tmp_path_factory)
    assert len(posts) == 66
    post = next(p for p in posts.values() if p.title == "A Javascript Viewer for Matplotlib Animations")
    assert len(post.body) < 100_000, "the 1.3 MB inline script is not copied into the post"
    assert any("a-javascript-viewer-for-matplotlib-animations.md" in w and "<script>" in w for w in report.warnings)
    assert all(len(p.summary) <= 301 for p in posts.values())


def test_wordpress_export_imports_published_posts_only(tmp_path_factory):
    out, _, posts = imported(WXR, tmp_path_factory)
    assert not (out / "about.md").exists() and not (out / "navigation.md").exists()
    assert sorted(p.name for p in out.glob("*.md")) == sorted(
        f"{item.findtext(f'{WP}post_name')}.md" for item in published_wxr_posts(WXR)
    )
    post = posts["https://jekyllbot.wordpress.com/?p=14"]
    assert post.tags == ["code", "Foo", "ruby", "ship", "stars"]
    assert post.permalink == "/2025/01/18/blog-post-1/"
    assert (
        "![](https://parkrmoore.wordpress.com/wp-content/uploads/2025/01/a-bright-night-sky-full-of-stars-and-the-milky.png)"
        in post.body
    )
    assert "wp:paragraph" not in post.body


@pytest.mark.parametrize("feed", MALFORMED, ids=lambda p: p.stem)
def test_malformed_feed_is_a_clear_error_or_a_lenient_import(feed, tmp_path):
    out = tmp_path / "posts"
    try:
        report = import_feed(feed, out, log=lambda _: None)
    except SiteError as exc:
        message = str(exc)
        assert "\n" not in message
        assert message.startswith(f"{feed}:")
        assert "cannot read feed" in message
        assert not out.exists() or not any(out.iterdir())
        return
    assert report.warnings and str(feed) in report.warnings[0]
    for path in report.written:
        meta = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
        assert meta["title"] and meta["date"]


def test_malformed_error_names_the_line():
    with pytest.raises(SiteError) as info:
        import_feed(
            CORPUS / "malformed" / "feedparser-illformed-undeclared_namespace.xml",
            Path("/nonexistent/x"),
            log=lambda _: None,
        )
    assert info.value.line == 9 and "unbound prefix" in str(info.value)


def test_shift_jis_without_declaration_imports_with_a_warning(tmp_path):
    feed = CORPUS / "malformed" / "feedparser-illformed-chardet-shiftjis.xml"
    report = import_feed(feed, tmp_path, log=lambda _: None)
    assert len(report.written) == 1
    assert any("encoding" in w or "garbled" in w for w in report.warnings)
    assert any("no date" in w for w in report.warnings)
    # chardet (a dependency) recognises the undeclared Shift_JIS, so the Japanese title survives
    assert "記事投稿が反映されない" in report.written[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("feed", [*FEEDS, WXR], ids=lambda p: p.stem[:40])
def test_every_real_feed_imports_and_builds_with_exit_0_and_no_error(feed, tmp_path):
    """What a newcomer does first: `import` their feed into a new site, then `build`."""
    from helpers import make_site, run_cli

    root = make_site(tmp_path / "site", "title: Moved\nurl: https://moved.example.org\n")
    imp = run_cli("import", str(feed), "--into", "content/posts", cwd=root)
    assert imp.returncode == 0 and "Traceback" not in imp.stderr, imp.stderr
    build = run_cli("build", "--source", str(root))
    assert build.returncode == 0, build.stderr
    assert "Traceback" not in build.stderr
    assert not [line for line in build.stderr.splitlines() if line.startswith("error")], build.stderr
    assert (root / "output/index.html").exists() and (root / "output/feed.xml").exists()
