"""The header's search box, in a real headless Chromium on the bundled site: no script until the box is used,
then Pagefind answers an English word with the English posts and a Chinese word with the Chinese post, from
either language's pages; the search page (where the box goes without JavaScript) shows the same results."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chromium, wait_for
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from test_pages_theme import serve_bundled_site

pytest.importorskip("pagefind")

RAY = {"/blog/2025/ray-oom/", "/blog/2025/fast-ray-framework/"}
CHINESE = "/blog/2026/learning-in-the-llm-era/"


@pytest.fixture(scope="module")
def base(bundled_build: Path) -> Iterator[str]:
    with serve_bundled_site(bundled_build) as (url, _):
        yield url


@pytest.fixture()
def driver():
    browser = chromium()
    try:
        yield browser
    finally:
        browser.quit()


def loaded(driver) -> list[str]:
    """The addresses of every script and stylesheet the page fetched."""
    return driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")


def results(driver, words: str) -> set[str]:
    """The paths of the results listed once the status says they are the answer to `words`."""

    def found():
        status = driver.find_element(By.CSS_SELECTOR, "#search-results [role=status]").text
        links = driver.find_elements(By.CSS_SELECTOR, "#search-results li a")
        return links and f"“{words}”" in status and {a.get_attribute("pathname") for a in links}

    return wait_for(found, timeout=20)


def ask(driver, words: str) -> set[str]:
    box = driver.find_element(By.CSS_SELECTOR, "form.search input[type=search]")
    box.click()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    box.send_keys(words)
    return results(driver, words)


def test_the_page_loads_no_search_script_until_the_box_is_used(base, driver):
    driver.get(base + "/")
    assert not [u for u in loaded(driver) if "search.js" in u or "pagefind" in u]
    assert ask(driver, "Ray") >= RAY
    fetched = loaded(driver)
    assert any(u.endswith("/js/search.js") for u in fetched) and any("/pagefind/" in u for u in fetched)


@pytest.mark.parametrize("page", ["/", "/zh/", CHINESE])
def test_an_english_word_finds_the_english_posts_and_a_chinese_word_the_chinese_post(base, driver, page):
    driver.get(base + page)
    found = ask(driver, "Ray")
    assert found >= RAY and CHINESE not in found
    found = ask(driver, "学习")
    assert CHINESE in found and not RAY & found
    status = driver.find_element(By.CSS_SELECTOR, "#search-results [role=status]").text
    assert "学习" in status


def test_enter_opens_the_search_page_with_the_same_results(base, driver):
    driver.get(base + "/")
    assert ask(driver, "Ray") >= RAY
    driver.find_element(By.CSS_SELECTOR, "form.search input[type=search]").send_keys(Keys.ENTER)
    wait_for(lambda: "/search/" in driver.current_url)
    assert driver.current_url.endswith("/search/?q=Ray")
    assert results(driver, "Ray") >= RAY
    assert driver.find_element(By.CSS_SELECTOR, "h1").text == "Search results"


def test_escape_closes_the_results_and_a_word_found_nowhere_says_so(base, driver):
    driver.get(base + "/")
    box = driver.find_element(By.CSS_SELECTOR, "form.search input[type=search]")
    box.click()
    box.send_keys("zzqqxx")
    status = driver.find_element(By.CSS_SELECTOR, "#search-results [role=status]")
    wait_for(lambda: status.text.startswith("No posts found"), timeout=20)
    box.send_keys(Keys.ESCAPE)
    assert not driver.find_element(By.ID, "search-results").is_displayed()


@pytest.mark.parametrize("width, scheme", [(1280, "light"), (360, "dark")])  # the search page: every mode
def test_the_open_results_have_no_axe_violations_and_fit_the_screen(base, driver, width, scheme):
    from test_accessibility import emulate, run_axe

    emulate(driver, width, scheme)
    for page, words in (("/", "Ray"), ("/zh/search/?q=学习", None)):
        driver.get(base + page)
        if words:
            ask(driver, words)
        else:
            results(driver, "学习")
        found = run_axe(driver)
        assert not found, (page, found)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width, page
