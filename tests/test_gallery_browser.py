"""Gallery layouts (gallery.css) and the lightbox (gallery.js) in a real headless Chromium.

The site is built by the real builder from a post with two `::: gallery` blocks of real JPEG photos made
here, and served over HTTP. Which photo the lightbox shows is told by its file name and by the colour of
its pixels. Screenshots are left in /tmp (gallery-*.png) for a person to look at.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time

import pytest
from helpers import chromium, make_site, wait_for, write_post
from PIL import Image

# p1-p3 in the masonry gallery, p4-p5 in the grid; p5 is portrait, so the grid must crop it to its cell
PHOTOS = {
    "p1": ((1600, 1200), (200, 40, 40)),
    "p2": ((1600, 1200), (40, 160, 60)),
    "p3": ((1600, 1200), (40, 70, 200)),
    "p4": ((1600, 1200), (230, 190, 30)),
    "p5": ((1200, 1600), (150, 60, 170)),
}
BODY = (
    "Before the photos.\n\n"
    "::: gallery\n![Caption one](p1.jpg)\n![Caption two](p2.jpg)\n![Caption three](p3.jpg)\n:::\n"
    ": A gallery caption\n\n"
    "Between the galleries.\n\n"
    "::: gallery grid\n![Grid one](p4.jpg)\n![Grid two](p5.jpg)\n:::\n\n" + "More text after the photos.\n\n" * 40
)
POST = "/blog/2025/photos/"
ESCAPE, ARROW_LEFT, ARROW_RIGHT, SPACE = "\ue00c", "\ue012", "\ue014", " "


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    from site_builder.build import build_site

    root = make_site(
        tmp_path_factory.mktemp("gallery") / "site",
        "title: Photos\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n",
    )
    posts = root / "content" / "posts"
    for name, (size, colour) in PHOTOS.items():
        Image.new("RGB", size, colour).save(posts / f"{name}.jpg", quality=92)
    write_post(root, "photos.md", "title: Photos\ndate: 2025-03-01", BODY)
    write_post(root, "photos.zh.md", "title: 照片\ndate: 2025-03-01", BODY)
    build_site(root, root / "output")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root / "output"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def make_driver(script: bool = True):
    return chromium("--hide-scrollbars", *(() if script else ("--blink-settings=scriptEnabled=false",)))


@pytest.fixture(scope="module")
def browser():
    driver = make_driver()
    yield driver
    driver.quit()


def viewport(driver, width: int, height: int, dark: bool = False, reduced_motion: bool = False) -> None:
    """Exactly this CSS viewport (and colour scheme / motion preference), whatever the window's frame."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {
            "features": [
                {"name": "prefers-color-scheme", "value": "dark" if dark else "light"},
                {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else "no-preference"},
            ]
        },
    )


def load(driver, url: str, width: int = 1280, height: int = 900, **media) -> list:
    viewport(driver, width, height, **media)
    driver.get(url)
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")
    return driver.find_elements("css selector", ".gallery-link")


def shown(driver) -> dict:
    """What the open lightbox shows ({} when it is closed): photo (file name), rgb of its centre, caption, counter."""
    return driver.execute_script("""
        const d = document.querySelector('dialog.lightbox[open]');
        if (!d) return {};
        const img = d.querySelector('img');
        let rgb = null;
        if (img.complete && img.naturalWidth > 0 && !img.classList.contains('is-loading')) {
            const c = document.createElement('canvas'); c.width = c.height = 9;
            const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0, 9, 9);
            rgb = Array.from(ctx.getImageData(4, 4, 1, 1).data.slice(0, 3));
        }
        const src = img.currentSrc || img.src;
        return {photo: src.split('/').pop().split('.')[0], rgb: rgb,
                caption: d.querySelector('.lightbox-text').textContent,
                counter: d.querySelector('.lightbox-counter').textContent};
    """)


def showing(driver, name: str, counter: str | None = None) -> dict:
    """Wait until the lightbox shows photo `name`, fully loaded, with its own colour (and the counter)."""

    def ok():
        s = shown(driver)
        return (
            s.get("photo") == name
            and s.get("rgb") is not None
            and max(abs(a - b) for a, b in zip(s["rgb"], PHOTOS[name][1], strict=False)) < 24
            and (counter is None or s["counter"] == counter)
        ) and s

    try:
        return wait_for(ok)
    except AssertionError:
        raise AssertionError(f"expected {name} {counter or ''}, the lightbox shows {shown(driver)}") from None


def press(driver, key: str) -> None:
    driver.switch_to.active_element.send_keys(key)


def click_link(driver, link) -> None:
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()


def close_lightbox(driver) -> None:
    if shown(driver):
        press(driver, ESCAPE)
        wait_for(lambda: shown(driver) == {})


def item_boxes(driver, selector: str) -> list[dict]:
    return driver.execute_script(f"""return [...document.querySelectorAll({selector!r})].map(e => {{
        const r = e.getBoundingClientRect(); return {{x: Math.round(r.left), y: Math.round(r.top),
        w: Math.round(r.width), h: Math.round(r.height)}}; }})""")


# ---- layouts ----


def test_the_built_page_loads_the_gallery_css_and_script_and_has_the_photos(browser, site_url):
    links = load(browser, site_url + POST)
    assert len(links) == 5
    # the lightbox's script (8 KB) waits for a photo to be opened: the page names it, a tiny loader fetches it
    assert browser.execute_script(
        "return !!document.querySelector('link[href=\"/css/gallery.css\"]')"
        " && !!document.querySelector('script[data-src=\"/js/gallery.js\"]')"
        " && !document.querySelector('script[src=\"/js/gallery.js\"]')"
    )
    wait_for(
        lambda: browser.execute_script(
            "return [...document.querySelectorAll('.gallery img')].every(i => i.complete && i.naturalWidth > 0)"
        )
    )


def test_masonry_has_two_columns_wide_and_one_on_a_phone_and_photos_keep_their_shape(browser, site_url):
    for width, columns in ((1280, 2), (400, 1)):
        load(browser, site_url + POST, width, 900)
        boxes = item_boxes(browser, ".gallery-masonry .gallery-item")
        assert len({b["x"] for b in boxes}) == columns, (width, boxes)
        for img in item_boxes(browser, ".gallery-masonry .gallery-item img"):
            assert img["w"] > 0 and abs(img["h"] / img["w"] - 0.75) < 0.02, (width, img)  # 4:3, height: auto holds
        radius = browser.execute_script(
            "return getComputedStyle(document.querySelector('.gallery-item img')).borderTopLeftRadius"
        )
        assert radius == "6px"
    # each column is filled top down, with no photo split between two columns
    load(browser, site_url + POST, 1280, 900)
    boxes = item_boxes(browser, ".gallery-masonry .gallery-item")
    assert boxes[0]["x"] == boxes[1]["x"] < boxes[2]["x"] and boxes[2]["y"] == boxes[0]["y"]


def test_grid_cells_are_all_the_same_size_and_the_photos_are_cropped_to_them(browser, site_url):
    for width in (1280, 390):
        load(browser, site_url + POST, width, 900)
        imgs = item_boxes(browser, ".gallery.gallery-grid .gallery-item img")
        assert len(imgs) == 2 and imgs[0]["w"] == imgs[1]["w"] and imgs[0]["h"] == imgs[1]["h"], (width, imgs)
        assert imgs[0]["y"] == imgs[1]["y"] and imgs[0]["x"] < imgs[1]["x"]  # side by side, even on a phone
        fit = browser.execute_script(
            "return getComputedStyle(document.querySelector('.gallery.gallery-grid img')).objectFit"
        )
        assert fit == "cover"
        # the portrait photo (p5) is cropped, not squashed and not taller than its neighbour; captions are below
        caps = item_boxes(browser, ".gallery.gallery-grid .gallery-item figcaption")
        assert all(c["y"] >= i["y"] + i["h"] for c, i in zip(caps, imgs, strict=False))


# ---- the lightbox ----


def test_clicking_a_photo_opens_it_and_the_arrow_keys_go_round_and_escape_gives_the_focus_back(browser, site_url):
    links = load(browser, site_url + POST)
    click_link(browser, links[1])
    state = showing(browser, "p2", "2 / 3")
    assert state["caption"] == "Caption two"
    dialog = browser.find_element("css selector", "dialog.lightbox[open]")
    assert dialog.get_attribute("aria-label") == "Photo viewer" and dialog.get_attribute("role") == "dialog"
    assert browser.find_element("css selector", ".lightbox-counter").get_attribute("aria-live") == "polite"
    assert browser.execute_script("return document.querySelector('.lightbox-img').sizes") == "100vw"
    press(browser, ARROW_RIGHT)
    assert showing(browser, "p3", "3 / 3")["caption"] == "Caption three"
    press(browser, ARROW_RIGHT)  # wraps around to the first
    assert showing(browser, "p1", "1 / 3")["caption"] == "Caption one"
    press(browser, ARROW_LEFT)  # and back
    showing(browser, "p3", "3 / 3")
    press(browser, ESCAPE)
    wait_for(lambda: shown(browser) == {})
    active = browser.switch_to.active_element
    assert active == links[1], active.get_attribute("outerHTML")[:200]


def test_the_buttons_move_and_close_and_their_labels_are_english(browser, site_url):
    links = load(browser, site_url + POST)
    click_link(browser, links[0])
    showing(browser, "p1", "1 / 3")
    labels = {
        b.get_attribute("aria-label") for b in browser.find_elements("css selector", "dialog.lightbox[open] button")
    }
    assert labels == {"Close", "Previous", "Next"}
    browser.find_element("css selector", "dialog[open] button[aria-label='Next']").click()
    showing(browser, "p2", "2 / 3")
    browser.find_element("css selector", "dialog[open] button[aria-label='Next']").click()
    showing(browser, "p3", "3 / 3")
    browser.find_element("css selector", "dialog[open] button[aria-label='Previous']").click()
    showing(browser, "p2", "2 / 3")
    browser.find_element("css selector", "dialog[open] button[aria-label='Close']").click()
    wait_for(lambda: shown(browser) == {})
    assert browser.switch_to.active_element == links[0]


def test_each_gallery_is_its_own_group(browser, site_url):
    links = load(browser, site_url + POST)
    click_link(browser, links[3])
    assert showing(browser, "p4", "1 / 2")["caption"] == "Grid one"
    press(browser, ARROW_RIGHT)
    assert showing(browser, "p5", "2 / 2")["caption"] == "Grid two"
    press(browser, ARROW_RIGHT)
    showing(browser, "p4", "1 / 2")  # wraps within the grid, never into the masonry gallery
    press(browser, ARROW_LEFT)
    press(browser, ARROW_LEFT)
    showing(browser, "p4", "1 / 2")
    close_lightbox(browser)


def test_enter_and_space_on_a_focused_link_open_the_lightbox(browser, site_url):
    links = load(browser, site_url + POST)
    for key, link, name in (("\ue007", links[2], "p3"), (SPACE, links[4], "p5")):
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", link)
        y = browser.execute_script("return scrollY")
        press(browser, key)
        showing(browser, name)
        assert browser.execute_script("return scrollY") == y  # Space did not scroll the page either
        close_lightbox(browser)
        assert browser.switch_to.active_element == link


def test_a_touch_swipe_moves_to_the_next_and_previous_photo(browser, site_url):
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.interaction import POINTER_TOUCH
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    def swipe(x0, y0, x1, y1):
        # real touch input through the browser (Input.dispatchTouchEvent), not events made up in the page
        actions = ActionBuilder(browser, mouse=PointerInput(POINTER_TOUCH, "finger"))
        actions.pointer_action.move_to_location(x0, y0).pointer_down()
        for i in range(1, 6):
            actions.pointer_action.move_to_location(x0 + (x1 - x0) * i // 5, y0 + (y1 - y0) * i // 5)
        actions.pointer_action.pointer_up()
        actions.perform()

    links = load(browser, site_url + POST, 390, 844)
    click_link(browser, links[0])
    showing(browser, "p1", "1 / 3")
    swipe(300, 400, 120, 410)  # finger to the left: the next photo
    showing(browser, "p2", "2 / 3")
    swipe(100, 400, 300, 395)  # to the right: back
    showing(browser, "p1", "1 / 3")
    swipe(200, 300, 215, 330)  # too short, and mostly vertical: nothing happens, nor does it close
    time.sleep(0.4)
    assert shown(browser)["photo"] == "p1"
    swipe(200, 250, 240, 600)
    time.sleep(0.4)
    assert shown(browser)["photo"] == "p1"
    close_lightbox(browser)


def test_a_pointer_drag_also_swipes(browser, site_url):
    links = load(browser, site_url + POST)
    click_link(browser, links[1])
    showing(browser, "p2", "2 / 3")
    browser.execute_script("""
        const img = document.querySelector('dialog[open] .lightbox-img');
        const fire = (type, x, y) => img.dispatchEvent(new PointerEvent(type, {bubbles: true, isPrimary: true,
            pointerType: 'touch', pointerId: 3, clientX: x, clientY: y}));
        fire('pointerdown', 800, 400); fire('pointermove', 700, 405); fire('pointerup', 600, 410);
    """)
    showing(browser, "p3", "3 / 3")
    close_lightbox(browser)


def test_clicking_the_backdrop_closes_and_the_page_does_not_scroll_behind(browser, site_url):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    links = load(browser, site_url + POST)
    click_link(browser, links[0])
    showing(browser, "p1")
    assert browser.execute_script("return getComputedStyle(document.documentElement).overflow") == "hidden"
    y = browser.execute_script("return scrollY")
    ActionChains(browser).scroll_by_amount(0, 600).perform()
    time.sleep(0.3)
    assert browser.execute_script("return scrollY") == y
    browser.find_element("css selector", ".lightbox-img").click()  # a click on the photo: it stays open
    browser.find_element("css selector", ".lightbox-text").click()  # and on the caption
    time.sleep(0.2)
    assert shown(browser)
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(30, 30).click()  # top left: only the dark backdrop there
    actions.perform()
    wait_for(lambda: shown(browser) == {})
    assert browser.execute_script("return getComputedStyle(document.documentElement).overflow") != "hidden"
    assert browser.switch_to.active_element == links[0]


def test_a_chinese_page_labels_the_buttons_in_chinese(browser, site_url):
    links = load(browser, site_url + "/zh" + POST)
    assert browser.execute_script("return document.documentElement.lang") == "zh-Hans"
    click_link(browser, links[0])
    showing(browser, "p1", "1 / 3")
    labels = {
        b.get_attribute("aria-label") for b in browser.find_elements("css selector", "dialog.lightbox[open] button")
    }
    assert labels == {"关闭", "上一张", "下一张"}
    close_lightbox(browser)


def test_the_open_lightbox_fits_the_screen_and_the_screenshots(browser, site_url):
    """Photo inside the viewport, caption and counter under it, buttons on screen and at least 44 px;
    light and dark, wide and phone. The screenshots are for a person to look at."""
    for width, height, suffix in ((1280, 900, ""), (390, 844, "-phone")):
        for dark in (False, True):
            name = suffix + ("-dark" if dark else "")
            links = load(browser, site_url + POST, width, height, dark=dark)
            browser.execute_script("document.querySelector('.gallery').scrollIntoView()")
            wait_for(
                lambda: browser.execute_script(
                    "return [...document.querySelectorAll('.gallery img')].every(i => i.complete && i.naturalWidth > 0)"
                )
            )
            browser.save_screenshot(f"/tmp/gallery-closed{name}.png")
            links[1].click()
            showing(browser, "p2", "2 / 3")
            time.sleep(0.3)  # the fade-in
            press(browser, "\ue004")  # Tab: a visible focus ring on the screenshot
            browser.save_screenshot(f"/tmp/gallery-open{name}.png")
            geo = browser.execute_script("""
                const box = s => document.querySelector(s).getBoundingClientRect().toJSON();
                return {img: box('.lightbox-img'), text: box('.lightbox-text'), counter: box('.lightbox-counter'),
                        buttons: [...document.querySelectorAll('dialog[open] button')].map(b => b.getBoundingClientRect().toJSON()),
                        bg: getComputedStyle(document.querySelector('dialog.lightbox'), '::backdrop').backgroundColor,
                        fg: getComputedStyle(document.querySelector('.lightbox-text')).color,
                        outline: getComputedStyle(document.activeElement).outlineStyle};
            """)
            img = geo["img"]
            assert img["left"] >= 0 and img["right"] <= width and img["top"] >= 0 and img["bottom"] <= height, (
                name,
                img,
            )
            assert abs(img["height"] / img["width"] - 0.75) < 0.01, (name, img)
            assert img["width"] >= 0.6 * width or img["height"] >= 0.6 * height, (name, img)  # large, not a thumbnail
            assert img["bottom"] <= geo["text"]["top"] <= geo["counter"]["top"] < geo["counter"]["bottom"] <= height, (
                name,
                geo,
            )
            assert len(geo["buttons"]) == 3
            for b in geo["buttons"]:
                assert b["width"] >= 44 and b["height"] >= 44, (name, b)
                assert b["left"] >= 0 and b["right"] <= width and b["top"] >= 0 and b["bottom"] <= height, (name, b)
            assert geo["bg"].startswith("rgba(8, 8, 10") and geo["fg"] == "rgb(242, 242, 240)", (
                geo
            )  # dark in both schemes
            assert geo["outline"] == "solid", geo
            close_lightbox(browser)


def test_reduced_motion_means_no_transitions(browser, site_url):
    links = load(browser, site_url + POST, reduced_motion=True)
    click_link(browser, links[0])
    showing(browser, "p1")
    motion = browser.execute_script("""const s = getComputedStyle(document.querySelector('.lightbox-img'));
        const d = getComputedStyle(document.querySelector('dialog.lightbox'));
        return [s.transitionDuration, d.animationName]""")
    assert motion == ["0s", "none"]
    close_lightbox(browser)
    viewport(browser, 1280, 900)


def test_the_neighbours_are_preloaded(browser, site_url):
    links = load(browser, site_url + POST)
    click_link(browser, links[1])
    showing(browser, "p2")
    large = "return performance.getEntriesByType('resource').map(e => e.name.split('/').pop())"
    wait_for(lambda: {"p1.1400w.webp", "p3.1400w.webp"} <= set(browser.execute_script(large)))
    close_lightbox(browser)


def test_without_javascript_a_photo_is_a_plain_link_to_the_image(site_url):
    driver = make_driver(script=False)
    try:
        links = load(driver, site_url + POST)
        href = links[1].get_attribute("href")
        assert href.startswith(site_url + "/") and href.endswith("/p2.jpg")
        assert not driver.find_elements("css selector", "dialog")
        click_link(driver, links[1])
        wait_for(lambda: driver.current_url == href)
        img = driver.find_element("css selector", "img")  # the browser's own page for an image
        assert img.get_attribute("src") == href
        assert driver.execute_script("return document.contentType") == "image/jpeg"
    finally:
        driver.quit()
