"""What real Jekyll and Hugo blogs write and a reader must see rendered: GFM task lists, the author's own SVG
figures, inline code in a title, and the UI of Korean and Chinese pages (Chirpy's ko and zh-TW, Hugo's zh-cn).

One small three-language site, built once with the real CLI; pages read with BeautifulSoup, the feed with feedparser.
"""

from __future__ import annotations

import html
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import chromium, make_site, run_cli, serve_folder, write_post

CONFIG = (
    "title: Test Site\nurl: https://example.org\nlanguage: en\n"
    "languages:\n  en:\n    name: English\n  ko: {}\n  zh-TW: {}\n  zh-cn: {}\n"
)
SVG = (
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150">'
    '<script>alert(1)</script><rect width="300" height="150" fill="teal"/></svg>\n'
)
ASIDES = "\n::: danger\nA.\n:::\n\n> [!NOTE]\n> B.\n\n::: info\nC.\n:::\n\n::: error\nD.\n:::\n"  # titles in the post's words
TITLE = "Liquid Tag `{% raw %}` in <Jekyll>"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = make_site(tmp_path_factory.mktemp("blogs") / "site", CONFIG)
    post = write_post(
        root,
        "tasks/index.md",  # a page bundle: named by its folder
        f"title: '{TITLE}'\ndate: 2024-03-05",
        "- [x] written\n- [ ] checked\n- plain item\n\n![A teal box](fig.svg)\n",
    )
    (post.parent / "fig.svg").write_text(SVG, encoding="utf-8")
    write_post(root, "ko.md", "title: 안녕\ndate: 2024-03-05\nlang: ko", "한국어 글입니다.\n" + ASIDES)
    write_post(root, "tw.md", "title: 你好\ndate: 2024-03-05\nlang: zh-TW", "繁體中文的文章。\n" + ASIDES)
    write_post(
        root, "cn.md", "title: 你好\ndate: 2024-03-05\nlang: zh-cn", "简体中文的文章。\n" + ASIDES
    )  # Hugo's code
    write_post(
        root, "hk.md", "title: 香港\ndate: 2024-03-04\nlang: zh-HK", "香港的文章。\n" + ASIDES
    )  # not a site language
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return root


def page(root: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_task_list_items_are_labelled_checkboxes_not_brackets(site):
    body = page(site, "/blog/2024/tasks/").select_one(".post-body")
    items = body.select("li.task-list-item")
    assert [i.get_text(strip=True) for i in items] == ["written", "checked"]
    boxes = [i.select_one("label > input[type=checkbox][disabled]") for i in items]
    assert [b.has_attr("checked") for b in boxes] == [True, False]  # the box is named by its label: its item's text
    assert "[x]" not in body.get_text() and "[ ]" not in body.get_text()
    assert body.select_one("ul.contains-task-list")["role"] == "list"  # a list still, its task items unbulleted


TASKS_SCRIPT = """
const items = [...document.querySelectorAll('.post-body li')];
const textLeft = (li) => {
  const text = [...li.querySelectorAll('*'), li].flatMap((e) => [...e.childNodes]).find((n) => n.nodeType === 3 && n.data.trim());
  const range = document.createRange();
  range.selectNodeContents(text);
  return range.getBoundingClientRect().left;
};
return items.map((li) => {
  const box = li.querySelector('input[type=checkbox]');
  return {
    bullet: getComputedStyle(li).listStyleType,
    text: textLeft(li),
    item: li.getBoundingClientRect().left,
    list: li.parentElement.getBoundingClientRect().left,
    box: box && [box.getBoundingClientRect().left, box.getBoundingClientRect().right],
  };
});
"""


@pytest.mark.parametrize("width", [1280, 360])
def test_task_list_items_show_their_checkbox_where_the_bullet_was(browser, width):
    driver, base = browser
    driver.set_window_size(width, 900)
    driver.get(base + "/blog/2024/tasks/")
    done, todo, plain = driver.execute_script(TASKS_SCRIPT)
    assert [done["bullet"], todo["bullet"], plain["bullet"]] == ["none", "none", "disc"]  # as GitHub shows them
    for task in (done, todo):
        left, right = task["box"]
        assert task["list"] <= left and right <= task["item"], task  # the box in the bullet's place, the gutter
        assert abs(task["text"] - plain["text"]) <= 1, (task, plain)  # the item's words where a plain item's start


def test_own_svg_figure_is_published_and_shown_as_an_image_sized_by_its_viewbox(site):
    body = page(site, "/blog/2024/tasks/").select_one(".post-body")
    img = body.select_one("img[alt='A teal box']")
    assert img is not None and img["src"] == "/blog/2024/tasks/fig.svg"
    assert (img["width"], img["height"]) == ("300", "150")
    assert body.find("svg") is None and body.find("script") is None  # never inlined: its script cannot run
    assert (site / "output/blog/2024/tasks/fig.svg").read_text(encoding="utf-8") == SVG


def test_inline_code_in_a_title_is_code_in_pages_and_plain_text_in_title_and_feed(site):
    post = page(site, "/blog/2024/tasks/")
    h1 = post.select_one("h1.post-title")
    assert h1.select_one("code").get_text() == "{% raw %}" and h1.get_text() == "Liquid Tag {% raw %} in <Jekyll>"
    assert post.title.get_text().startswith("Liquid Tag {% raw %} in <Jekyll> |")
    home = page(site, "/")
    assert home.select_one(".card-title code").get_text() == "{% raw %}"
    feed = feedparser.parse((site / "output/feed.xml").read_bytes())
    assert "Liquid Tag {% raw %} in <Jekyll>" in [html.unescape(e.title) for e in feed.entries]  # type="html"


@pytest.mark.parametrize(
    ("lang", "html_lang", "home", "date"),
    [
        ("ko", "ko", "홈", "2024년 3월 5일"),
        ("zh-TW", "zh-TW", "首頁", "2024年3月5日"),
        ("zh-cn", "zh-cn", "首页", "2024年3月5日"),
    ],
)
def test_korean_and_traditional_chinese_pages_have_their_own_ui_text_and_dates(site, lang, html_lang, home, date):
    name = {"ko": "ko", "zh-TW": "tw", "zh-cn": "cn"}[lang]
    post = page(site, f"/{lang}/blog/2024/{name}/")
    assert post.html["lang"] == html_lang
    assert home in [a.get_text(strip=True) for a in post.select("nav a")]
    assert date in post.select_one("time").get_text()


@pytest.mark.parametrize(
    ("url", "titles"),
    [
        ("/zh-TW/blog/2024/tw/", ["危險", "注意", "資訊", "錯誤"]),
        ("/blog/2024/hk/", ["危險", "注意", "資訊", "錯誤"]),  # zh-HK: Traditional, though not a site language
        ("/zh-cn/blog/2024/cn/", ["危险", "注意", "信息", "错误"]),
        ("/ko/blog/2024/ko/", ["위험", "참고", "정보", "오류"]),
    ],
)
def test_admonition_titles_are_in_the_posts_own_script(site, url, titles):
    assert [p.get_text() for p in page(site, url).select(".admonition-title")] == titles


# what the theme's CSS writes in a page (`content:` of ::before, by :lang()): the box under executed code and its
# badges, as codeblocks.py marks them up, put into each post page and read back from real Chromium
OUTPUTS = (
    '<div class="output verified"><span class="output-badge ok"></span><pre><code>1</code></pre></div>'
    '<div class="output mismatch"><span class="output-badge bad"></span><pre><code>2</code></pre></div>'
    '<div class="highlight checked"><pre><code>&gt;&gt;&gt; 1</code></pre></div>'
)
WORDS_SCRIPT = """
const words = (root) => {
  root.insertAdjacentHTML('beforeend', arguments[0]);
  const before = (sel) => getComputedStyle(root.querySelector(sel), '::before').content.replace(/^"|"$/g, '');
  return [before('.output'), before('.output-badge.ok'), before('.output-badge.bad'), before('.highlight.checked')];
};
const body = document.querySelector('.post-body');
const out = {page: words(body)};
for (const tag of arguments[1]) {
  const box = document.createElement('div');
  box.lang = tag;
  body.append(box);
  out[tag] = words(box);
}
return out;
"""
TRADITIONAL = ["輸出", "✓ 已驗證", "✗ 未通過驗證", "✓ 已驗證"]


@pytest.fixture(scope="module")
def browser(site):
    """Headless Chromium and the address of the built site, served."""
    driver = chromium()
    try:
        with serve_folder(site / "output") as base:
            yield driver, base
    finally:
        driver.quit()


def test_words_the_theme_css_writes_are_in_the_pages_own_script(browser):
    driver, base = browser
    got = {}
    for url in ("/zh-TW/blog/2024/tw/", "/blog/2024/hk/", "/zh-cn/blog/2024/cn/", "/ko/blog/2024/ko/"):
        driver.get(base + url)
        tags = ["zh-Hant", "zh-Hant-TW", "zh-MO", "zh-Hans", "zh"] if url.startswith("/zh-TW/") else []
        got[url] = driver.execute_script(WORDS_SCRIPT, OUTPUTS, tags)
    simplified = ["输出", "✓ 已验证", "✗ 未通过验证", "✓ 已验证"]
    tw = got["/zh-TW/blog/2024/tw/"]
    assert tw["page"] == TRADITIONAL and got["/blog/2024/hk/"]["page"] == TRADITIONAL
    assert tw["zh-Hant"] == tw["zh-Hant-TW"] == tw["zh-MO"] == TRADITIONAL
    assert got["/zh-cn/blog/2024/cn/"]["page"] == tw["zh-Hans"] == tw["zh"] == simplified
    assert got["/ko/blog/2024/ko/"]["page"] == ["출력", "✓ 검증됨", "✗ 검증 실패", "✓ 검증됨"]
