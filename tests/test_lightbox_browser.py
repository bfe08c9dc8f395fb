"""Galleries and their lightbox in a real headless Chromium, on a site built by the real builder with real photos."""

from __future__ import annotations

import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

import pytest
from PIL import Image

from helpers import make_site, wait_for, write_post

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
COLOURS = [(200, 40, 40), (40, 160, 60), (40, 70, 200), (230, 190, 30), (150, 60, 170)]


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    from site_builder.build import build_site

    root = make_site(tmp_path_factory.mktemp("lightbox") / "site",
                     "title: Photos\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n")
    folder = root / "content" / "posts" / "trip"
    folder.mkdir(parents=True)
    for i, colour in enumerate(COLOURS, 1):
        Image.new("RGB", (1600, 1200 if i != 2 else 2000), colour).save(folder / f"p{i}.jpg", quality=90)
    body = ("Before the photos.\n\n::: gallery\n![Caption one](trip/p1.jpg)\n![Caption two](trip/p2.jpg)\n"
            "![Caption three](trip/p3.jpg)\n:::\n: A gallery caption\n\nBetween.\n\n"
            "::: gallery grid\n![Grid one](trip/p4.jpg)\n![Grid two](trip/p5.jpg)\n:::\n")
    write_post(root, "trip.md", "title: Trip\ndate: 2025-03-01", body)
    write_post(root, "trip.zh.md", "title: 旅行\ndate: 2025-03-01", body)
    build_site(root, root / "output")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root / "output"))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _driver(script: bool = True, size: str = "1280,900"):
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), \
        "Chromium and chromedriver are needed (make test installs Debian's chromium and chromium-driver)"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-test-')}", f"--window-size={size}"):
        options.add_argument(flag)
    if not script:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def shown(browser) -> dict:
    """What the open lightbox shows: which photo (by file name), its caption, the counter; {} when closed."""
    return browser.execute_script("""
        const d = document.querySelector('dialog[open]');
        if (!d) return {};
        const img = d.querySelector('img');
        const src = img.currentSrc || img.src;
        return {photo: src.split('/').pop().split('.')[0], text: d.innerText, loaded: img.complete && img.naturalWidth > 0};
    """)


def open_page(browser, url: str) -> list:
    browser.get(url)
    wait_for(lambda: browser.execute_script("return document.readyState") == "complete")
    return browser.find_elements("css selector", ".gallery-link")


def test_click_opens_the_photo_with_caption_and_counter_and_keys_move_and_close(browser, site_url):
    from selenium.webdriver.common.keys import Keys

    links = open_page(browser, site_url + "/blog/2025/trip/")
    assert len(links) == 5
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[1])
    links[1].click()
    state = wait_for(lambda: shown(browser).get("loaded") and shown(browser))
    assert state["photo"] == "p2" and "Caption two" in state["text"] and "2 / 3" in state["text"]
    active = browser.switch_to.active_element
    active.send_keys(Keys.ARROW_RIGHT)
    assert wait_for(lambda: shown(browser).get("photo") == "p3") and "3 / 3" in shown(browser)["text"]
    browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)  # wraps around to the first
    assert wait_for(lambda: shown(browser).get("photo") == "p1") and "1 / 3" in shown(browser)["text"]
    browser.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    assert wait_for(lambda: shown(browser).get("photo") == "p3")
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(lambda: shown(browser) == {})
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "gallery-link" and focused.get_attribute("href").endswith("/p2.jpg")


def test_buttons_move_and_close_and_each_gallery_counts_its_own_photos(browser, site_url):
    links = open_page(browser, site_url + "/blog/2025/trip/")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[3])
    links[3].click()
    state = wait_for(lambda: shown(browser).get("photo") == "p4" and shown(browser))
    assert "1 / 2" in state["text"] and "Grid one" in state["text"]
    browser.find_element("css selector", "dialog[open] button[aria-label='Next']").click()
    assert wait_for(lambda: shown(browser).get("photo") == "p5") and "2 / 2" in shown(browser)["text"]
    browser.find_element("css selector", "dialog[open] button[aria-label='Previous']").click()
    assert wait_for(lambda: shown(browser).get("photo") == "p4")
    browser.find_element("css selector", "dialog[open] button[aria-label='Close']").click()
    wait_for(lambda: shown(browser) == {})


def test_a_swipe_moves_to_the_next_photo(browser, site_url):
    links = open_page(browser, site_url + "/blog/2025/trip/")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[0])
    links[0].click()
    wait_for(lambda: shown(browser).get("photo") == "p1")
    browser.execute_script("""
        const d = document.querySelector('dialog[open]');
        const fire = (type, x) => d.dispatchEvent(new PointerEvent(type, {bubbles: true, isPrimary: true,
            pointerType: 'touch', pointerId: 7, clientX: x, clientY: 400}));
        fire('pointerdown', 900); fire('pointermove', 700); fire('pointerup', 500);
    """)
    assert wait_for(lambda: shown(browser).get("photo") == "p2")
    browser.switch_to.active_element.send_keys("\ue00c")  # Escape
    wait_for(lambda: shown(browser) == {})


def test_chinese_page_labels_its_buttons_in_chinese(browser, site_url):
    links = open_page(browser, site_url + "/zh/blog/2025/trip/")
    assert browser.find_element("css selector", "html").get_attribute("lang") == "zh-Hans"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[0])
    links[0].click()
    wait_for(lambda: shown(browser).get("photo") == "p1")
    labels = [b.get_attribute("aria-label") for b in browser.find_elements("css selector", "dialog[open] button")]
    assert set(labels) == {"关闭", "上一张", "下一张"}
    browser.switch_to.active_element.send_keys("\ue00c")


def test_masonry_has_two_columns_wide_and_one_on_a_phone(site_url):
    for size, columns in (("1280,900", 2), ("390,844", 1)):
        driver = _driver(size=size)
        try:
            open_page(driver, site_url + "/blog/2025/trip/")
            xs = driver.execute_script("""return [...document.querySelectorAll('.gallery-masonry .gallery-item')]
                .map(e => Math.round(e.getBoundingClientRect().left))""")
            assert len(set(xs)) == columns, (size, xs)
            ratio = driver.execute_script("""const i = document.querySelector('.gallery-masonry img');
                return i.getBoundingClientRect().height / i.getBoundingClientRect().width""")
            assert abs(ratio - 0.75) < 0.02  # width/height attributes keep the photo's shape, no layout shift
        finally:
            driver.quit()


def test_without_javascript_a_photo_is_a_plain_link_to_the_image(site_url):
    driver = _driver(script=False)
    try:
        links = open_page(driver, site_url + "/blog/2025/trip/")
        assert driver.execute_script("return document.querySelector('dialog') === null")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[2])
        links[2].click()
        wait_for(lambda: driver.current_url.endswith("/blog/2025/trip/trip/p3.jpg"))
        assert driver.execute_script("return document.images[0].naturalWidth") == 1600
    finally:
        driver.quit()
