"""Small things seen in the pages (issue 32, item 5), in a real headless Chromium: the "✓ verified" badge of a checked
output block in the page's language (the theme's words, as the doctest badge's), a wide table scrolling in its box
with the edge cue code blocks have (and a key that reaches it), a display formula that fails shown as a block."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import chromium, make_site, run_cli, serve_folder, write_post
from test_pages_theme import js, show

WIDE = "| name | " + " | ".join(f"column {i}" for i in range(12)) + " |\n" + "|---" * 13 + "|\n"
WIDE += "| row | " + " | ".join(f"{i}.0000" for i in range(12)) + " |\n"
BODY = (
    "```python\nprint(1 + 1)\n```\n\n```output\n2\n```\n\n```pycon\n>>> 1 + 2\n3\n```\n\n"
    + WIDE
    + "\nBefore it.\n\n$$\n\\frac{a}{b} + \\sum_{i=1}^{n} x_i + \\left( \\frac{c}{d} \\right\n$$\n\nAfter it.\n"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    root = make_site(
        tmp_path_factory.mktemp("fixes") / "site",
        "title: T\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n",
    )
    write_post(root, "demo.md", "title: Demo\ndate: 2024-01-01\nexecute: true", BODY)
    write_post(root, "demo.zh.md", "title: 演示\ndate: 2024-01-01\nexecute: true", BODY)
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    with serve_folder(root / "output") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


BADGES = """return [document.querySelector('.output-badge.ok'), document.querySelector('.highlight.checked')]
    .map(e => getComputedStyle(e, '::before').content)"""


def test_the_verified_badges_speak_the_pages_language(site, browser):
    show(browser, site + "/blog/2024/demo/")
    assert js(browser, BADGES) == ['"✓ verified"', '"✓ verified"']
    show(browser, site + "/zh/blog/2024/demo/")
    assert js(browser, BADGES) == ['"✓ 已验证"', '"✓ 已验证"']  # the output block's as the doctest's beside it
    assert "verified" not in js(browser, "return document.querySelector('.output.verified').textContent")


TABLE = """const t = document.querySelector('.post-body table'), s = getComputedStyle(t);
    return {wide: t.scrollWidth > t.clientWidth, tab: t.tabIndex, overflow: s.overflowX,
            attachment: s.backgroundAttachment, images: s.backgroundImage.split('gradient').length - 1};"""


@pytest.mark.parametrize("path", ["/blog/2024/demo/", "/zh/blog/2024/demo/"])
def test_a_wide_table_scrolls_in_its_box_with_the_edge_cue_code_has(site, browser, path):
    show(browser, site + path, 360)
    table = js(browser, TABLE)
    assert table["wide"] and table["overflow"] == "auto" and table["tab"] == 0, table
    code = js(browser, "return getComputedStyle(document.querySelector('.highlight pre')).backgroundAttachment")
    assert table["attachment"] == code and "local" in code and "scroll" in code, (table, code)  # covers, shadows
    assert table["images"] == 4, table
    # the cue is drawn: the right edge of the scrolled table is darker than its middle, then not once at its end
    edge = """const t = document.querySelector('.post-body table');
        t.scrollIntoView({block: 'center'});
        const r = t.getBoundingClientRect(), cell = t.querySelector('td').getBoundingClientRect();
        return [r.right - 3, (cell.top + cell.bottom) / 2];"""
    x, y = js(browser, edge)
    shot = browser.get_screenshot_as_png()
    at_start = _pixel(shot, x, y)
    js(browser, "const t = document.querySelector('.post-body table'); t.scrollLeft = t.scrollWidth")
    assert sum(_pixel(browser.get_screenshot_as_png(), x, y)) > sum(at_start) + 15, at_start


def _pixel(png: bytes, x: float, y: float) -> tuple[int, ...]:
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return tuple(image.getpixel((int(x), int(y))))


FORMULA = """const e = document.querySelector('.math > .math-error'), r = e.getBoundingClientRect();
    const body = document.querySelector('.post-body').getBoundingClientRect();
    return {display: getComputedStyle(e).display, rects: e.getClientRects().length, width: r.width,
            body: body.width, code: getComputedStyle(e.querySelector('code')).display};"""


@pytest.mark.parametrize("width", [1280, 360])
def test_a_display_formula_that_fails_is_a_block_not_a_wrapped_line(site, browser, width):
    show(browser, site + "/zh/blog/2024/demo/", width)
    found = js(browser, FORMULA)
    assert found["display"] == "block" and found["rects"] == 1, found  # one box, not an inline run across lines
    assert found["width"] >= found["body"] - 1 and found["code"] == "block", found
    assert js(browser, "return document.documentElement.scrollWidth") <= width  # it wraps inside its box
