"""Other people's blogs in the default theme, in a real headless Chromium: two real feeds of the corpus
(../shared/corpus/feeds) imported and built as a new user would. Their text is not the bundled site's: summaries full
of code identifiers with no place to break (`currentList.outlines[outlinesIndex]...`), a short site title, a
`<video>` wider than a phone. No page may scroll sideways at 360 px, and the header keeps the search box and the
theme button together whatever the title's length (short, or long enough to wrap on a phone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chromium, run_cli, serve_folder
from test_accessibility import emulate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "feeds"
if not CORPUS.is_dir():
    pytest.skip(f"real-feed corpus not found at {CORPUS}", allow_module_level=True)

FEEDS = {
    "haoxiansen": "jekyllfeed-haoxiansen-zh-rouge-feed.xml",  # Chinese, code-filled summaries; short title
    "jakevdp": "pelican-jakevdp-large-summary-only-all.atom.xml",  # 66 posts, one with a 700 px <video>
}


def imported_site(root: Path, feed: str, title: str) -> Path:
    """A site started by `init` (English and Chinese), its sample posts replaced by the feed's, built."""
    run_cli("init", str(root), "--lang", "en,zh", "--title", title, check=True)
    for post in (root / "content" / "posts").glob("*.md"):
        post.unlink()
    run_cli("import", str(CORPUS / feed), "--into", str(root / "content" / "posts"), check=True)
    run_cli("build", "--source", str(root), check=True)
    return root / "output"


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("real-world")
    return {
        "haoxiansen": imported_site(base / "hao", FEEDS["haoxiansen"], "Hao's notes"),
        "jakevdp": imported_site(
            base / "jake", FEEDS["jakevdp"], "Pythonic Perambulations, a blog of Python and science"
        ),  # long,
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    # the imported posts hotlink images and videos on their old hosts: fail those at once instead of waiting on them
    driver = chromium("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    yield driver
    driver.quit()


def pages_of(output: Path, limit: int | None = None) -> list[str]:
    """Every page's path; with `limit`, the list pages and the posts that embed media, then others up to it."""
    paths = sorted(p for p in output.rglob("*.html") if "pagefind" not in p.parts)
    if limit is not None:
        media = [p for p in paths if any(tag in p.read_text(encoding="utf-8") for tag in ("<video", "<iframe"))]
        lists = [p for p in paths if 'class="cards"' in p.read_text(encoding="utf-8")][: limit // 2]  # cards
        rest = [p for p in paths if p not in media and p not in lists]
        paths = media + lists + rest[: max(0, limit - len(media) - len(lists))]
    return ["/" + p.relative_to(output).as_posix().removesuffix("index.html") for p in paths]


@pytest.mark.parametrize("name, limit", [("haoxiansen", None), ("jakevdp", 30)])
def test_no_page_of_an_imported_blog_scrolls_sideways_on_a_phone(sites, browser, name, limit):
    paths = pages_of(sites[name], limit)
    assert len(paths) > 20
    wide = {}
    with serve_folder(sites[name]) as url:
        emulate(browser, 360)
        for path in paths:
            browser.get(url + path)
            width = browser.execute_script("return document.documentElement.scrollWidth")
            if width > 360:
                wide[path] = width
    assert not wide, wide


def _box(browser, selector: str) -> dict[str, float]:
    return browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};",
        selector,
    )


def test_the_header_keeps_search_and_theme_button_together_with_a_short_title(sites, browser):
    with serve_folder(sites["haoxiansen"]) as url:
        emulate(browser, 1280)
        browser.get(url + "/")
        search, toggle, nav = (_box(browser, s) for s in ("form.search", ".theme-toggle", ".site-header nav"))
        assert search["top"] < toggle["bottom"] and toggle["top"] < search["bottom"], (search, toggle)  # one row
        assert toggle["left"] > search["right"], (search, toggle)  # the button right after the box
        assert toggle["right"] >= nav["right"] - 1, (toggle, nav)  # at the right edge, under the links' end


@pytest.mark.parametrize("name", ["haoxiansen", "jakevdp"])
def test_on_a_phone_the_theme_button_stays_beside_a_short_or_long_title(sites, browser, name):
    with serve_folder(sites[name]) as url:
        emulate(browser, 360)
        browser.get(url + "/")
        title, toggle = _box(browser, ".site-title"), _box(browser, ".theme-toggle")
        assert toggle["top"] < title["bottom"] and title["top"] < toggle["bottom"], (title, toggle)  # beside it
        assert toggle["left"] > title["right"], (title, toggle)
