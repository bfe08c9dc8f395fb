"""Two languages on one site, as a reader and an author notice them.

Small sites in tmp dirs, built with the real CLI; pages read with BeautifulSoup, feeds with feedparser.
The main site (English at /, Chinese at /zh/) is built once for the module.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import assert_one_line_error, make_site, run_cli, write_post

URL = "https://example.org"
TWO_LANGS = f"title: Test Site\nurl: {URL}\nlanguage: en\nlanguages:\n  en:\n    name: English\n  zh:\n    name: 中文\n"
POEM = (
    "A poem.\n\n::: bilingual\n春眠不觉晓\nSpring sleep, unaware of dawn\n处处闻啼鸟\nEverywhere the birds sing\n\n"
    "夜来风雨声\nNight came with wind and rain\n:::\n"
)


def build(root: Path):
    return run_cli("build", "--source", str(root), "--output", str(root / "output"))


def built(root: Path) -> Path:
    proc = build(root)
    assert proc.returncode == 0, f"build failed:\n{proc.stdout}\n{proc.stderr}"
    return root


def out(root: Path, url: str) -> Path:
    path = root / "output" / url.lstrip("/")
    return path / "index.html" if url.endswith("/") else path


def html(root: Path, url: str) -> BeautifulSoup:
    path = out(root, url)
    assert path.is_file(), f"{url} was not written"
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def hreflangs(soup: BeautifulSoup) -> dict[str, str]:
    return {link["hreflang"]: link["href"] for link in soup.select("head link[rel=alternate][hreflang]")}


def cards(soup: BeautifulSoup) -> dict[str, str | None]:
    """href of each listed post -> the text of its lang-mark (None when it has none)."""
    found = {}
    for item in soup.select("article.card, ul.archive-list li"):
        link = item.select_one("a[href]")
        mark = item.select_one(".lang-mark")
        found[unquote(link["href"])] = mark.get_text(strip=True) if mark else None
    return found


def home_cards(root: Path, prefix: str) -> dict[str, str | None]:
    """Every card of a language's home, following its pages /page/2/, /page/3/ ..."""
    found, n = {}, 1
    while out(root, prefix if n == 1 else f"{prefix}page/{n}/").exists():
        found.update(cards(html(root, prefix if n == 1 else f"{prefix}page/{n}/")))
        n += 1
    return found


def switch(soup: BeautifulSoup) -> tuple[str, dict[str, str]]:
    """The language switch: (the current language's name, {other language's name: href})."""
    box = soup.select_one(".lang-switch")
    assert box is not None, "no language switch"
    current = [s.get_text(strip=True) for s in box.select("[aria-current]")]
    assert len(current) == 1, box
    return current[0], {a.get_text(strip=True): a["href"] for a in box.select("a[href]")}


# --- the main two-language site, built once --------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = make_site(
        tmp_path_factory.mktemp("i18n") / "site", TWO_LANGS + "posts_per_page: 2\nfeed_id: tag:example.org,2025:feed\n"
    )
    write_post(
        root,
        "hello.md",
        "title: Hello\ndate: 2025-08-12\ntags: [travel]\nid: urn:uuid:hello-en",
        "Hello world, this is the English version.\n",
    )
    write_post(
        root,
        "hello.zh.md",
        "title: 你好\ndate: 2025-08-12\ntags: [travel]\nid: urn:uuid:hello-zh",
        "你好世界，这是中文版本。\n",
    )
    write_post(root, "only-en.md", "title: Only English\ndate: 2025-07-01\ntags: [travel]", "Just English.\n")
    write_post(root, "only-zh.md", "title: 只有中文\ndate: 2025-06-01\nlang: zh\ntags: [travel]", "只有中文。\n")
    write_post(root, "fixed.md", "title: 固定地址\ndate: 2025-05-01\nlang: zh\npermalink: /notes/fixed/", "固定。\n")
    write_post(root, "trip.md", "title: A trip\ndate: 2025-04-01\ntranslation_key: trip-2025", "We went away.\n")
    write_post(
        root, "lvxing.md", "title: 旅行\ndate: 2025-04-01\nlang: zh\ntranslation_key: trip-2025", "我们出去了。\n"
    )
    write_post(root, "你好世界.zh.md", "title: 你好世界\ndate: 2024-05-01", "字" * 4000 + "\n")
    write_post(root, "poem.md", "title: A poem\ndate: 2024-02-01", POEM)
    return built(root)


# 1. routing


def test_default_language_lives_at_the_root_and_its_translation_under_zh(site):
    assert html(site, "/blog/2025/hello/").select_one("h1.post-title").get_text() == "Hello"
    assert html(site, "/zh/blog/2025/hello/").select_one("h1.post-title").get_text() == "你好"
    assert out(site, "/index.html").is_file() and out(site, "/zh/index.html").is_file()
    assert not (site / "output" / "en").exists(), "the default language has no /en/ prefix"
    assert not out(site, "/blog/2025/hello-zh/").exists() and not out(site, "/blog/2025/hellozh/").exists()


def test_lang_front_matter_puts_a_post_under_the_prefix_and_an_explicit_permalink_is_kept(site):
    assert html(site, "/zh/blog/2025/only-zh/").select_one("h1.post-title").get_text() == "只有中文"
    assert html(site, "/notes/fixed/").select_one("h1.post-title").get_text() == "固定地址"
    assert not out(site, "/zh/notes/fixed/").exists() and not out(site, "/zh/blog/2025/fixed/").exists()


@pytest.fixture(scope="module")
def cn_site(tmp_path_factory) -> Path:
    root = make_site(
        tmp_path_factory.mktemp("cn") / "site",
        f"title: T\nurl: {URL}\nlanguages:\n  en:\n    name: English\n  zh:\n    name: 中文\n    prefix: /cn/\n",
    )
    write_post(root, "x.md", "title: X\ndate: 2025-01-02\ntags: [a]")
    write_post(root, "x.zh.md", "title: 叉\ndate: 2025-01-02\ntags: [a]")
    return built(root)


def test_a_custom_prefix_moves_every_page_of_the_language(cn_site):
    assert not (cn_site / "output" / "zh").exists()
    for url in ("/cn/", "/cn/blog/", "/cn/blog/tag/", "/cn/blog/tag/a/", "/cn/blog/2025/", "/cn/blog/2025/x/"):
        soup = html(cn_site, url)
        assert soup.html["lang"] == "zh-Hans", url
        assert soup.select_one("nav a[href='/cn/blog/']") is not None, url
    assert switch(html(cn_site, "/blog/2025/x/"))[1] == {"中文": "/cn/blog/2025/x/"}
    assert switch(html(cn_site, "/cn/blog/2025/x/"))[1] == {"English": "/blog/2025/x/"}
    feed = feedparser.parse(out(cn_site, "/cn/feed.xml").read_bytes())
    assert feed.bozo == 0 and [e.title for e in feed.entries] == ["叉"]
    assert {link.rel: link.href for link in feed.feed.links}["self"] == f"{URL}/cn/feed.xml"


# 2. hreflang


def test_translations_carry_absolute_hreflang_alternates_for_each_other(site):
    expected = {
        "en": f"{URL}/blog/2025/hello/",
        "zh-Hans": f"{URL}/zh/blog/2025/hello/",
        "x-default": f"{URL}/blog/2025/hello/",
    }
    assert hreflangs(html(site, "/blog/2025/hello/")) == expected
    assert hreflangs(html(site, "/zh/blog/2025/hello/")) == expected


def test_translation_key_pairs_posts_with_different_file_names(site):
    assert hreflangs(html(site, "/zh/blog/2025/lvxing/")) == {
        "en": f"{URL}/blog/2025/trip/",
        "zh-Hans": f"{URL}/zh/blog/2025/lvxing/",
        "x-default": f"{URL}/blog/2025/trip/",
    }


@pytest.mark.parametrize("url", ["/blog/2025/only-en/", "/zh/blog/2025/only-zh/", "/notes/fixed/"])
def test_a_post_without_translation_has_no_hreflang_links(site, url):
    assert hreflangs(html(site, url)) == {}


def test_home_pages_point_at_each_other(site):
    expected = {"en": f"{URL}/", "zh-Hans": f"{URL}/zh/", "x-default": f"{URL}/"}
    assert hreflangs(html(site, "/")) == expected
    assert hreflangs(html(site, "/zh/")) == expected


def test_archive_and_tag_pages_point_at_each_other(site):
    assert hreflangs(html(site, "/zh/blog/"))["en"] == f"{URL}/blog/"
    assert hreflangs(html(site, "/blog/tag/travel/"))["zh-Hans"] == f"{URL}/zh/blog/tag/travel/"


# 3. language switch and translations paragraph


def test_language_switch_links_to_this_page_in_the_other_language(site):
    assert switch(html(site, "/blog/2025/hello/")) == ("English", {"中文": "/zh/blog/2025/hello/"})
    assert switch(html(site, "/zh/blog/2025/hello/")) == ("中文", {"English": "/blog/2025/hello/"})
    assert switch(html(site, "/")) == ("English", {"中文": "/zh/"})
    assert switch(html(site, "/zh/blog/tag/travel/")) == ("中文", {"English": "/blog/tag/travel/"})


def test_on_an_untranslated_post_the_switch_goes_to_the_other_languages_home(site):
    assert switch(html(site, "/blog/2025/only-en/")) == ("English", {"中文": "/zh/"})
    assert switch(html(site, "/zh/blog/2025/only-zh/")) == ("中文", {"English": "/"})


def test_translations_paragraph_links_the_other_version(site):
    en = html(site, "/blog/2025/hello/").select_one("p.translations")
    zh = html(site, "/zh/blog/2025/hello/").select_one("p.translations")
    assert [(a["href"], a["hreflang"]) for a in en.select("a")] == [("/zh/blog/2025/hello/", "zh-Hans")]
    assert "你好" in en.get_text()
    assert [(a["href"], a["hreflang"]) for a in zh.select("a")] == [("/blog/2025/hello/", "en")]
    assert "Hello" in zh.get_text() and zh.get_text().startswith("其他语言")
    assert [a["href"] for a in html(site, "/blog/2025/trip/").select("p.translations a")] == ["/zh/blog/2025/lvxing/"]
    assert html(site, "/blog/2025/only-en/").select_one("p.translations") is None


# 4. per-language lists


def test_zh_home_shows_the_zh_version_and_marks_untranslated_english_posts(site):
    listed = home_cards(site, "/zh/")
    assert "/zh/blog/2025/hello/" in listed and "/blog/2025/hello/" not in listed
    assert "/zh/blog/2025/lvxing/" in listed and "/blog/2025/trip/" not in listed
    assert listed["/zh/blog/2025/hello/"] is None and listed["/zh/blog/2025/only-zh/"] is None
    assert listed["/blog/2025/only-en/"] == "English" and listed["/blog/2024/poem/"] == "English"
    assert len(listed) == 7


def test_default_home_shows_the_en_version_and_marks_untranslated_chinese_posts(site):
    listed = home_cards(site, "/")
    assert "/blog/2025/hello/" in listed and "/zh/blog/2025/hello/" not in listed
    assert "/blog/2025/trip/" in listed and "/zh/blog/2025/lvxing/" not in listed
    assert listed["/blog/2025/hello/"] is None
    assert listed["/zh/blog/2025/only-zh/"] == "中文"
    assert listed["/notes/fixed/"] == "中文" and listed["/zh/blog/2024/你好世界/"] == "中文"
    assert len(listed) == 7


def test_archives_per_language(site):
    en, zh = cards(html(site, "/blog/")), cards(html(site, "/zh/blog/"))
    assert en == home_cards(site, "/") and zh == home_cards(site, "/zh/")
    assert cards(html(site, "/zh/blog/2025/")) == {k: v for k, v in zh.items() if "2024" not in k}
    assert set(cards(html(site, "/zh/blog/2024/"))) == {"/zh/blog/2024/你好世界/", "/blog/2024/poem/"}


def test_tag_pages_per_language(site):
    assert cards(html(site, "/zh/blog/tag/travel/")) == {
        "/zh/blog/2025/hello/": None,
        "/blog/2025/only-en/": "English",
        "/zh/blog/2025/only-zh/": None,
    }
    assert cards(html(site, "/blog/tag/travel/")) == {
        "/blog/2025/hello/": None,
        "/blog/2025/only-en/": None,
        "/zh/blog/2025/only-zh/": "中文",
    }
    index = html(site, "/zh/blog/tag/")
    assert [a["href"] for a in index.select(".tag-cloud a")] == ["/zh/blog/tag/travel/"]
    assert index.select_one(".tag-cloud .count").get_text() == "3"
    assert [a["href"] for a in html(site, "/zh/blog/2025/hello/").select("p.tags a")] == ["/zh/blog/tag/travel/"]


def test_zh_home_is_paginated_under_its_prefix(site):
    first, second = html(site, "/zh/"), html(site, "/zh/page/2/")
    assert len(first.select("article.card")) == 2 and len(second.select("article.card")) == 2
    assert first.select_one(".pager a[rel=next]")["href"] == "/zh/page/2/"
    assert second.select_one(".pager a[rel=prev]")["href"] == "/zh/"
    assert second.select_one(".pager a[rel=next]")["href"] == "/zh/page/3/"
    assert "第 2 页" in second.select_one(".pager .page-no").get_text()
    assert out(site, "/zh/page/4/").exists() and not out(site, "/zh/page/5/").exists()
    assert hreflangs(second) == {"en": f"{URL}/page/2/", "zh-Hans": f"{URL}/zh/page/2/", "x-default": f"{URL}/page/2/"}


# 5. feeds


@pytest.fixture(scope="module")
def feeds(site):
    main = feedparser.parse(out(site, "/feed.xml").read_bytes())
    zh = feedparser.parse(out(site, "/zh/feed.xml").read_bytes())
    return main, zh


def test_main_feed_holds_every_post_with_its_language(site, feeds):
    main, _ = feeds
    assert main.bozo == 0, main.get("bozo_exception")
    assert len(main.entries) == 9
    assert main.feed.id == "tag:example.org,2025:feed"
    by_id = {e.id: e for e in main.entries}
    assert {"urn:uuid:hello-en", "urn:uuid:hello-zh"} <= set(by_id)
    assert by_id["urn:uuid:hello-zh"].title_detail.language == "zh"
    assert by_id["urn:uuid:hello-en"].title_detail.language == "en"
    langs = {e.link.removeprefix(URL): e.title_detail.language for e in main.entries}
    assert langs["/notes/fixed/"] == "zh" and langs["/blog/2025/only-en/"] == "en"


def test_zh_feed_holds_only_posts_written_in_chinese(site, feeds):
    main, zh = feeds
    assert zh.bozo == 0, zh.get("bozo_exception")
    assert zh.feed.language == "zh"
    assert {unquote(e.link.removeprefix(URL)) for e in zh.entries} == {
        "/zh/blog/2025/hello/",
        "/zh/blog/2025/only-zh/",
        "/notes/fixed/",
        "/zh/blog/2025/lvxing/",
        "/zh/blog/2024/你好世界/",
    }
    assert "urn:uuid:hello-zh" in {e.id for e in zh.entries}
    links = {link.rel: link.href for link in zh.feed.links}
    assert links["self"] == f"{URL}/zh/feed.xml" and links["alternate"] == f"{URL}/zh/"
    assert zh.feed.id != main.feed.id


def test_pages_advertise_their_languages_feed(site):
    feed_link = "head link[type='application/atom+xml']"
    assert html(site, "/zh/").select_one(feed_link)["href"] == "/zh/feed.xml"
    assert html(site, "/zh/blog/2025/hello/").select_one(feed_link)["href"] == "/zh/feed.xml"
    assert html(site, "/").select_one(feed_link)["href"] == "/feed.xml"
    assert html(site, "/zh/").select_one("nav a[href='/zh/feed.xml']").get_text() == "订阅"


# 6. UI strings, dates, reading time


def test_zh_pages_have_chinese_navigation_and_dates(site):
    nav = [a.get_text() for a in html(site, "/zh/blog/2025/hello/").select("header nav > a")]
    assert nav[:3] == ["首页", "归档", "标签"]
    meta = html(site, "/zh/blog/2025/hello/").select_one("article.post p.meta").get_text(" ", strip=True)
    assert "2025年8月12日" in meta and "阅读约 1 分钟" in meta
    en_meta = html(site, "/blog/2025/hello/").select_one("article.post p.meta").get_text(" ", strip=True)
    assert "Aug 12, 2025" in en_meta and "1 min read" in en_meta
    assert [a.get_text() for a in html(site, "/").select("header nav > a")][:2] == ["Home", "Archive"]
    zh_home_card = html(site, "/zh/").select_one("article.card p.meta").get_text(" ", strip=True)
    assert "2025年8月12日" in zh_home_card
    assert html(site, "/zh/blog/").select_one("h1.list-title").get_text() == "归档"


def test_an_untranslated_english_post_listed_in_chinese_gets_chinese_dates(site):
    card = next(c for c in html(site, "/zh/").select("article.card") if c.select_one(".lang-mark"))
    assert "2025年7月1日" in card.get_text() and card["lang"] == "en"


def test_chinese_reading_time_counts_characters(site):
    meta = html(site, "/zh/blog/2024/你好世界/").select_one("article.post p.meta").get_text(" ", strip=True)
    assert "阅读约 10 分钟" in meta
    pages = [html(site, url) for url in ("/", "/page/2/", "/page/3/", "/page/4/")]
    card = [c for soup in pages for c in soup.select("article.card") if "你好世界" in c.get_text()]
    assert len(card) == 1 and "10 min read" in card[0].get_text(), "the English home lists it with the same time"


def _ui_site(root: Path) -> Path:
    make_site(root, TWO_LANGS)
    for n in range(4):
        write_post(root, f"p{n}.md", f"title: Post {n}\ndate: 2025-08-1{n}\ntags: [t]")
        write_post(root, f"p{n}.zh.md", f"title: 文章 {n}\ndate: 2025-08-1{n}\ntags: [t]")
    (root / "themes" / "default" / "i18n").mkdir(parents=True)
    (root / "themes" / "default" / "i18n" / "zh.yml").write_text("home: 主页\n", encoding="utf-8")
    return root


def test_a_sites_own_zh_yml_overrides_only_the_keys_it_sets(tmp_path):
    root = _ui_site(tmp_path / "site")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    nav = [a.get_text() for a in html(root, "/zh/").select("header nav > a")]
    assert nav[:3] == ["主页", "归档", "标签"], "the site's key wins; the others keep the bundled Chinese text"
    assert proc.stderr.strip() == "", "nothing is missing: no warning"


def test_a_key_missing_in_zh_falls_back_to_english_with_one_warning(tmp_path):
    root = _ui_site(tmp_path / "site")
    theme = root / "themes" / "default"
    (theme / "i18n" / "en.yml").write_text("colophon: Made by hand\nlicence: CC BY\n", encoding="utf-8")
    (theme / "templates").mkdir()
    (theme / "templates" / "tags.html").write_text(
        '{% extends "base.html" %}\n{% block main %}<p class="colophon">{{ t("colophon") }}</p>'
        '<p class="licence">{{ t("licence") }}</p>{% endblock %}\n',
        encoding="utf-8",
    )
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    zh = html(root, "/zh/blog/tag/")
    assert zh.select_one(".colophon").get_text() == "Made by hand" and zh.select_one(".licence").get_text() == "CC BY"
    assert zh.select_one("header nav > a").get_text() == "主页"
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("warning: themes/default/i18n/zh.yml: ")
    assert "colophon" in lines[0] and "licence" in lines[0] and lines[0].endswith(", shown in en")
    assert "home" not in lines[0].split(", shown in")[0].split("for", 1)[1]


# 7. html lang and Chinese slugs


@pytest.mark.parametrize(
    "url,lang",
    [
        ("/zh/blog/2025/hello/", "zh-Hans"),
        ("/zh/blog/2025/only-zh/", "zh-Hans"),
        ("/notes/fixed/", "zh-Hans"),
        ("/zh/", "zh-Hans"),
        ("/zh/blog/", "zh-Hans"),
        ("/zh/blog/tag/travel/", "zh-Hans"),
        ("/zh/page/2/", "zh-Hans"),
        ("/blog/2025/hello/", "en"),
        ("/", "en"),
        ("/blog/", "en"),
        ("/blog/2025/only-en/", "en"),
    ],
)
def test_html_lang(site, url, lang):
    assert html(site, url).html["lang"] == lang


def test_chinese_file_name_gives_a_readable_chinese_url(site):
    hrefs = [a["href"] for a in html(site, "/zh/blog/2024/").select("ul.archive-list a")]
    assert "/zh/blog/2024/你好世界/" in [unquote(urlsplit(h).path) for h in hrefs]
    assert out(site, "/zh/blog/2024/你好世界/").is_file()
    canonical = html(site, "/zh/blog/2024/你好世界/").select_one("link[rel=canonical]")["href"]
    assert unquote(urlsplit(canonical).path) == "/zh/blog/2024/你好世界/"


# 9. bilingual blocks


def test_bilingual_block_lines_carry_their_own_language(site):
    block = html(site, "/blog/2024/poem/").select_one("div.bilingual")
    stanzas = block.select("p.bilingual-stanza")
    assert [[(s["lang"], s.get_text()) for s in p.select("span.bilingual-line")] for p in stanzas] == [
        [
            ("zh-Hans", "春眠不觉晓"),
            ("en", "Spring sleep, unaware of dawn"),
            ("zh-Hans", "处处闻啼鸟"),
            ("en", "Everywhere the birds sing"),
        ],
        [("zh-Hans", "夜来风雨声"), ("en", "Night came with wind and rain")],
    ]
    assert [len(p.select("br.bilingual-br")) for p in stanzas] == [3, 1]


# 10. bad input

ERROR_CASES = {
    "site-language-not-a-language-tag": (
        "title: T\nlanguage: ../x\n",
        [("a.md", "title: A\ndate: 2025-01-01")],
        r"^error: site\.yml:2: language '\.\./x' is not a language code",
    ),
    "default-language-not-listed": (
        "title: T\nlanguage: en\nlanguages:\n  zh:\n    name: 中文\n",
        [],
        r"^error: site\.yml:3: .*default language 'en'.*not listed",
    ),
    "two-languages-share-a-prefix": (
        "title: T\nlanguages:\n  en: {}\n  zh:\n    prefix: /cn/\n  ja:\n    prefix: cn\n",
        [],
        r"^error: site\.yml:[67]: .*'zh' and 'ja' share the prefix /cn/",
    ),
    "prefix-collides-with-the-default-languages-archive": (
        "title: T\nlanguages:\n  en: {}\n  zh:\n    prefix: /blog/\n",
        [("a.md", "title: A\ndate: 2025-01-01")],
        r"^error: site\.yml:5: .*/blog/",
    ),
    "second-language-at-root": (
        "title: T\nlanguages:\n  en: {}\n  zh:\n    name: 中文\n    prefix: /\n",
        [],
        r"^error: site\.yml:6: language 'zh': .*'/'",
    ),
    "file-suffix-disagrees-with-lang": (
        TWO_LANGS,
        [("x.zh.md", "title: X\ndate: 2025-01-01\nlang: en")],
        r"^error: content/posts/x\.zh\.md:4: .*'zh'.*lang: en",
    ),
    "two-zh-versions-of-one-translation-key": (
        TWO_LANGS,
        [
            ("a.zh.md", "title: A\ndate: 2025-01-01\ntranslation_key: k"),
            ("b.zh.md", "title: B\ndate: 2025-01-02\ntags: [x]\ntranslation_key: k"),
        ],
        r"^error: content/posts/b\.zh\.md:5: .*a\.zh\.md and .*b\.zh\.md are both the 'zh' version",
    ),
    "two-zh-versions-by-file-name": (
        TWO_LANGS,
        [("a.zh.md", "title: A\ndate: 2025-01-01"), ("a.md", "title: B\ndate: 2025-01-02\nlang: zh\npermalink: /b/")],
        r"^error: content/posts/a(\.zh)?\.md:\d+: .*both the 'zh' version",
    ),
}


@pytest.mark.parametrize("cfg,posts,pattern", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_bad_language_input_is_one_line_with_file_and_line(tmp_path, cfg, posts, pattern):
    root = make_site(tmp_path / "site", cfg)
    for post in posts:
        write_post(root, *post)
    assert_one_line_error(build(root), pattern)
    assert not (root / "output").exists()


# 11. a site without `languages:`


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> Path:
    root = make_site(tmp_path_factory.mktemp("single") / "site")
    write_post(root, "a.md", "title: A\ndate: 2025-01-01\ntags: [t]")
    write_post(root, "b.md", "title: 乙\ndate: 2025-01-02\nlang: zh\ntags: [t]", "中文。\n")
    return built(root)


def test_single_language_site_has_no_language_pages_switch_or_hreflang(single):
    outdir = single / "output"
    assert not (outdir / "zh").exists() and not (outdir / "en").exists()
    assert sorted(str(p.relative_to(outdir)) for p in outdir.rglob("*.xml")) == [
        "blog/tag/t/feed.xml",
        "feed.xml",
        "sitemap.xml",
    ]
    for url in ("/", "/blog/", "/blog/tag/", "/blog/tag/t/", "/blog/2025/", "/blog/2025/a/", "/blog/2025/b/"):
        soup = html(single, url)
        assert hreflangs(soup) == {}, url
        assert soup.select_one(".lang-switch") is None, url
        assert soup.select_one("p.translations") is None, url
    assert html(single, "/blog/2025/b/").html["lang"] == "zh-Hans", "a lang: zh post stays at /blog/ but is Chinese"
    assert html(single, "/").html["lang"] == "en"
    assert [a.get_text() for a in html(single, "/").select("header nav > a")][:2] == ["Home", "Archive"]
    feed = feedparser.parse(out(single, "/feed.xml").read_bytes())
    assert feed.bozo == 0 and len(feed.entries) == 2


def test_single_language_site_lists_a_chinese_post_without_a_language_mark(single):
    """Before `languages:` existed, lists showed no mark; a one-language site has nothing to mark it against."""
    for url in ("/", "/blog/", "/blog/tag/t/"):
        assert html(single, url).select(".lang-mark") == [], url


# incremental builds


def test_adding_and_removing_a_translation_updates_the_other_pages(tmp_path):
    root = make_site(tmp_path / "site", TWO_LANGS)
    write_post(root, "a.md", "title: A\ndate: 2025-01-01")
    write_post(root, "b.md", "title: B\ndate: 2025-01-02")
    built(root)
    assert hreflangs(html(root, "/blog/2025/a/")) == {}
    assert cards(html(root, "/zh/"))["/blog/2025/a/"] == "English"
    write_post(root, "a.zh.md", "title: 甲\ndate: 2025-01-01", "甲。\n")
    built(root)
    assert hreflangs(html(root, "/blog/2025/a/"))["zh-Hans"] == f"{URL}/zh/blog/2025/a/"
    assert switch(html(root, "/blog/2025/a/"))[1] == {"中文": "/zh/blog/2025/a/"}
    assert cards(html(root, "/zh/")) == {"/zh/blog/2025/a/": None, "/blog/2025/b/": "English"}
    (root / "content" / "posts" / "a.zh.md").unlink()
    built(root)
    assert not out(root, "/zh/blog/2025/a/").exists()
    assert hreflangs(html(root, "/blog/2025/a/")) == {}
    assert cards(html(root, "/zh/")) == {"/blog/2025/a/": "English", "/blog/2025/b/": "English"}


def test_a_site_theme_s_template_gets_the_page_language_s_text_from_t_and_T(tmp_path):
    """The default theme reads UI text as `T['key']`; a site's own template may still call `t('key')`: the same text,
    in the page's language, and a missing key shows as itself."""
    root = make_site(tmp_path / "site", TWO_LANGS)
    write_post(root, "hello.md", "title: Hello\ndate: 2025-08-12", "Hello.\n")
    write_post(root, "hello.zh.md", "title: 你好\ndate: 2025-08-12", "你好。\n")
    templates = root / "themes" / "default" / "templates"
    templates.mkdir(parents=True)
    (templates / "tags.html").write_text(
        "{% extends 'base.html' %}{% block main %}<p id=t>{{ t('home') }}|{{ T['home'] }}|{{ T['no_such_key'] }}</p>"
        "{% endblock %}",
        encoding="utf-8",
    )
    built(root)
    assert html(root, "/blog/tag/").select_one("#t").get_text() == "Home|Home|no_such_key"
    assert html(root, "/zh/blog/tag/").select_one("#t").get_text() == "首页|首页|no_such_key"


def test_a_theme_list_written_for_the_card_imported_with_context_still_shows_each_languages_cards(tmp_path):
    """A site theme's list.html from before the card took its language as arguments (`import ... with context`,
    `once(cards.card, p)`): `once` gives the card the page's `ui` and `T`, so the Chinese home's cards keep
    Chinese dates, reading times and tag links."""
    root = make_site(tmp_path / "site", TWO_LANGS + "theme: old\n")
    write_post(root, "hello.zh.md", "title: 你好\ndate: 2025-08-12\ntags: [travel]", "你好世界。\n")
    write_post(root, "hi.md", "title: Hi\ndate: 2025-08-11\ntags: [travel]", "Hello.\n")
    templates = root / "themes" / "old" / "templates"
    templates.mkdir(parents=True)
    default = Path(__file__).resolve().parents[1] / "site_builder" / "themes" / "default" / "templates"
    old = (default / "list.html").read_text(encoding="utf-8")
    old = old.replace('{% import "_card.html" as cards %}', '{% import "_card.html" as cards with context %}')
    old = old.replace("{{ once(cards.card, p, ui, T) }}", "{{ once(cards.card, p) }}")
    assert "once(cards.card, p)" in old
    (templates / "list.html").write_text(old, encoding="utf-8")
    built(root)
    zh = html(root, "/zh/").select("article.card")
    assert "2025年8月12日" in zh[0].get_text() and "阅读约 1 分钟" in zh[0].get_text()
    assert zh[0].select_one("a.tag")["href"] == "/zh/blog/tag/travel/"
    hi = next(card for card in html(root, "/").select("article.card") if card.select_one("a").get_text() == "Hi")
    assert "Aug 11, 2025" in hi.get_text() and hi.select_one("a.tag")["href"] == "/blog/tag/travel/"


def test_a_language_with_no_posts_yet_builds_to_the_same_bytes_each_time(tmp_path: Path) -> None:
    """A language just added has an empty feed; the same content built twice from scratch, a second apart, gives
    the same files (its <updated> once came from the clock, so serve's rebuild and a fresh build differed)."""
    import shutil
    import time

    first = make_site(tmp_path / "first", TWO_LANGS + "  fr:\n    name: Français\n")
    write_post(first, "a.md", "title: A\ndate: 2024-01-02")
    second = Path(shutil.copytree(first, tmp_path / "second"))
    built(first)
    time.sleep(1.1)
    built(second)
    feeds = [(root / "output" / "fr" / "feed.xml").read_bytes() for root in (first, second)]
    assert feedparser.parse(feeds[0]).entries == []
    assert feeds[0] == feeds[1]
