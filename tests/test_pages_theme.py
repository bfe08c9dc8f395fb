"""The default theme on the bundled site, in a real headless Chromium: nothing scrolls sideways on a phone, wide code
and display math scroll in their own box with a cue, inline math wraps, output boxes are labelled and set apart,
the light/dark button switches and remembers, the favicon needs no request, the JavaScript and weight budgets, and
the details of issue 14 (Chinese emphasis, archive dates, heading anchors, previous/next, footer, code colours).

`serve_bundled_site` is shared with test_accessibility.py (axe on the same pages)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO, chromium, wait_for

PAGES = {  # every kind of page, as the issue names them
    "home": "/",
    "math": "/blog/2025/post-training-notes/",
    "code": "/blog/2025/numpy-bug/",
    "gallery": "/blog/2025/urbex-1/",
    "chinese": "/blog/2026/learning-in-the-llm-era/",
    "poem": "/blog/2025/baby-poem/",
    "tag": "/blog/tag/llm/",
    "tags": "/blog/tag/",
    "archive": "/blog/",
    "404": "/404.html",
    "search": "/search/?q=ray",  # the search page, its results shown
    "output": "/blog/2025/fast-ray-framework/",  # executed code with outputs; its headings written as ###
}
OUTPUT = "/blog/2025/fast-ray-framework/"  # executed code with its output
TEXT_PAGES = [
    p for k, p in PAGES.items() if k not in ("math", "search")
]  # math: 55 KB of MathML, the post's own weight
UNSEARCHED = [p for k, p in PAGES.items() if k != "search"]  # the search page is search in use


@contextlib.contextmanager
def serve_bundled_site(out: Path) -> Iterator[tuple[str, list[str]]]:
    """The bundled site's output (`bundled_build`, built once for the run) served over HTTP: its address, and the
    paths that were 404."""
    missing: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def send_error(self, code: int, *args: object, **kwargs: object) -> None:
            if code == 404:
                missing.append(self.path)
            super().send_error(code, *args, **kwargs)  # type: ignore[arg-type]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", missing
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def bundled(bundled_build: Path) -> Iterator[tuple[str, list[str]]]:
    with serve_bundled_site(bundled_build) as served:
        yield served


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def show(driver, url: str, width: int = 1280, scheme: str = "light", stored: str | None = None) -> None:
    """`url` at this CSS width, the system in `scheme`, localStorage's theme `stored` (None: no choice made)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    )
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    driver.get(url)
    if driver.execute_script("return localStorage.getItem('theme')") != stored:
        driver.execute_script(
            "arguments[0] ? localStorage.setItem('theme', arguments[0]) : localStorage.clear()", stored
        )
        driver.get(url)
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")


def js(driver, script: str, *args):
    return driver.execute_script(script, *args)


BG = "return getComputedStyle(document.body).backgroundColor"


def test_no_page_scrolls_sideways_on_a_phone(bundled, browser):
    wide = {}
    for path in [*PAGES.values(), OUTPUT]:
        show(browser, bundled[0] + path, 360)
        sizes = js(browser, "return [document.documentElement.scrollWidth, window.innerWidth]")
        if sizes[0] > sizes[1]:
            wide[path] = sizes
    assert not wide, wide


def test_wide_code_and_display_math_scroll_in_a_box_a_key_reaches_with_a_shadow_cue(bundled, browser):
    for path, selector in ((PAGES["math"], ".math"), (PAGES["code"], ".highlight pre")):
        show(browser, bundled[0] + path, 360)
        boxes = js(
            browser,
            "return [...document.querySelectorAll(arguments[0])].filter(e => e.scrollWidth > e.clientWidth + 1)"
            ".map(e => [e.tabIndex, getComputedStyle(e).overflowX, getComputedStyle(e).backgroundAttachment])",
            selector,
        )
        assert boxes, f"nothing wide in {selector} on {path} at 360 px"
        for tab_index, overflow, attachment in boxes:
            assert tab_index == 0 and overflow == "auto", (path, boxes)
            assert "local" in attachment and "scroll" in attachment, attachment  # covers move, shadows stay


def test_inline_math_wraps_on_a_phone(bundled, browser):
    show(browser, bundled[0] + PAGES["math"], 360)
    lines = js(browser, "return [...document.querySelectorAll('p math, li math')].map(m => m.getClientRects().length)")
    assert max(lines) >= 2, lines


def test_output_is_labelled_set_apart_readable_and_its_badge_covers_nothing(bundled, browser):
    for width in (1280, 360):
        show(browser, bundled[0] + OUTPUT, width)
        found = js(
            browser,
            """const o = document.querySelector('.output.verified'), pre = o.querySelector('pre');
            const badge = o.querySelector('.output-badge').getBoundingClientRect();
            const code = document.querySelector('.highlight');
            return {label: getComputedStyle(o, '::before').content, size: parseFloat(getComputedStyle(pre).fontSize),
                    bg: getComputedStyle(o).backgroundColor, code: getComputedStyle(code).backgroundColor,
                    gap: pre.getBoundingClientRect().top + parseFloat(getComputedStyle(pre).paddingTop) - badge.bottom,
                    checked: getComputedStyle(document.querySelector('.highlight.checked') || code, '::before').position};""",
        )
        assert found["label"] == '"Output"' and found["size"] >= 14 and found["bg"] != found["code"], found
        assert found["gap"] >= 0, found  # the ✓ badge sits in the label's row, above the first line
        assert found["checked"] != "absolute", found


def test_the_favicon_is_the_sites_initial_and_no_page_asks_for_a_missing_file(bundled, browser):
    url, missing = bundled
    for path in PAGES.values():
        show(browser, url + path)
        icon = js(browser, "const l = document.querySelector('link[rel=icon]'); return l && l.href")
        assert icon and icon.startswith("data:image/svg+xml,") and "%3ES%3C/text%3E" in icon, icon
    assert not [p for p in missing if not p.startswith("/assets/")], missing  # the posts' remote photos aside


def test_the_theme_button_switches_remembers_and_follows_the_system_until_used(bundled, browser):
    url = bundled[0]
    show(browser, url + PAGES["home"], scheme="dark")
    dark = js(browser, BG)
    assert js(browser, "return document.querySelector('.theme-toggle').getAttribute('aria-pressed')") == "true"
    show(browser, url + PAGES["home"], scheme="light")
    light = js(browser, BG)
    assert light != dark and js(browser, "return document.documentElement.dataset.theme") is None
    button = browser.find_element("css selector", ".theme-toggle")
    assert button.is_displayed() and button.get_attribute("aria-pressed") == "false"
    button.click()
    assert js(browser, BG) == dark and button.get_attribute("aria-pressed") == "true"
    browser.refresh()
    assert js(browser, "return document.documentElement.dataset.theme") == "dark" and js(browser, BG) == dark
    browser.get(url + PAGES["code"])  # another page, the same choice; code in the dark style
    assert js(browser, BG) == dark
    assert js(browser, "return getComputedStyle(document.querySelector('.highlight .k')).color") == "rgb(255, 123, 114)"
    browser.find_element("css selector", ".theme-toggle").click()
    browser.refresh()
    assert js(browser, BG) == light and js(browser, "return localStorage.getItem('theme')") == "light"
    show(browser, url + PAGES["home"], scheme="dark", stored="light")  # the choice outranks the system
    assert js(browser, BG) == light


def test_the_theme_is_set_before_the_page_is_drawn_and_pages_need_no_script(bundled):
    theme_js = (REPO / "site_builder/themes/default/templates/_theme.js").read_text(encoding="utf-8")
    with urllib.request.urlopen(bundled[0] + PAGES["code"]) as page:  # the page as built: its head, in order
        head = page.read().decode("utf-8").split("</head>")[0]
    assert head.index("<script>" + theme_js[:40]) < head.index('rel="stylesheet"')
    driver = chromium("--blink-settings=scriptEnabled=false")
    try:
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
        )
        driver.get(bundled[0] + PAGES["code"])
        assert js(driver, BG) == "rgb(21, 23, 26)"  # the system's dark, by CSS alone
        assert not driver.find_element("css selector", ".theme-toggle").is_displayed()  # no button that cannot work
    finally:
        driver.quit()


def test_javascript_before_any_use_is_under_3_kb_and_a_text_page_under_100_kb(bundled, browser):
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})  # every byte counted on each page
    for path in UNSEARCHED:
        show(browser, bundled[0] + path)
        script, total = js(
            browser,
            """const res = performance.getEntriesByType('resource').filter(e => e.initiatorType !== 'img');
            const inline = [...document.scripts].filter(s => !s.src).reduce((a, s) => a + s.text.length, 0);
            return [inline + res.filter(e => e.initiatorType === 'script').reduce((a, e) => a + e.encodedBodySize, 0),
                    res.reduce((a, e) => a + e.encodedBodySize, performance.getEntriesByType('navigation')[0]
                    .encodedBodySize)];""",
        )
        assert script <= 3 * 1024, (path, script)
        if path in TEXT_PAGES:
            assert total <= 100 * 1024, (path, total)
    browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})


def test_chinese_emphasis_has_dots_and_chinese_cards_are_not_justified(bundled, browser):
    show(browser, bundled[0] + PAGES["chinese"])
    style = js(
        browser,
        "const s = getComputedStyle(document.querySelector('.post-body em')); return [s.fontStyle, "
        "s.textEmphasisStyle || s.webkitTextEmphasisStyle]",
    )
    assert style[0] == "normal" and "dot" in style[1], style
    show(browser, bundled[0] + PAGES["home"])
    aligns = js(browser, "return [...document.querySelectorAll('.card')].map(c => getComputedStyle(c).textAlign)")
    assert "justify" not in aligns, aligns


def test_archive_dates_are_written_as_on_the_posts(bundled, browser):
    show(browser, bundled[0] + PAGES["archive"])
    pairs = js(
        browser,
        "return [...document.querySelectorAll('.archive-list li:not(:has(.lang-mark))')].map(li => "
        "[li.querySelector('time').textContent, li.querySelector('a').getAttribute('href')])",
    )
    for short, href in pairs:
        show(browser, bundled[0] + href)
        assert js(browser, "return document.querySelector('.post-header time').textContent").startswith(short + ","), (
            short,
            href,
        )


def test_heading_anchors_never_take_a_line_of_their_own(bundled, browser):
    for width in (360, 390, 412):
        show(browser, bundled[0] + PAGES["math"], width)
        grew = js(
            browser,
            """return [...document.querySelectorAll('.post-body :is(h2, h3)')].filter(h => {
                const a = h.querySelector('.header-anchor'); if (!a) return false;
                const with_ = h.getBoundingClientRect().height; a.style.display = 'none';
                const without = h.getBoundingClientRect().height; a.style.display = ''; return with_ > without;
            }).map(h => h.id)""",
        )
        assert not grew, (width, grew)


def test_previous_and_next_show_the_titles_and_the_footer_the_feed_and_the_builder(bundled, browser):
    show(browser, bundled[0] + PAGES["code"])
    titles = js(
        browser,
        "return [...document.querySelectorAll('.post-nav a')].map(a => { const t = "
        "a.querySelector('.nav-title'); const s = getComputedStyle(t); return [t.textContent, s.fontWeight, "
        "s.color === getComputedStyle(document.body).color, getComputedStyle(a).borderStyle]; })",
    )
    assert len(titles) == 2 and all(t[0] and int(t[1]) >= 600 and t[2] and t[3] == "solid" for t in titles), titles
    footer = js(
        browser,
        "const f = document.querySelector('.site-footer'); return [f.textContent, "
        "[...f.querySelectorAll('a')].map(a => a.getAttribute('href'))]",
    )
    assert "©" in footer[0] and "site_builder" in footer[0] and "/feed.xml" in footer[1], footer


def test_the_language_switch_stays_on_one_line_on_a_phone(bundled, browser):
    for path in (PAGES["home"], PAGES["chinese"]):
        show(browser, bundled[0] + path, 360)
        tops = js(
            browser,
            "return [...document.querySelectorAll('.lang-switch > *')].map(e => "
            "Math.round(e.getBoundingClientRect().top))",
        )
        assert len(tops) == 2 and len(set(tops)) == 1, (path, tops)
