"""`serve` with posts whose code runs: a failing post does not stop the preview, and pages are served before the
code has run (a "running…" note, then the outputs). A real server process, files edited on disk, headless Chromium
through the injected reload script."""

from __future__ import annotations

import re
import shutil
import time

import pytest
from helpers import Served, article_text, chromium, make_site, open_page, wait_for, write_post

pytestmark = pytest.mark.serial  # times what it waits for: run alone, after the tests run two at a time

BUDGET = 1.0  # seconds from a save to the open page showing it (the bench measures ~0.1 s)

FAILING = "title: Adds\ndate: 2024-01-01\nexecute: true"
FAILING_BODY = "Intro.\n\n```python\nx = 1 + 1\nprint(x)\n```\n\n```output\n3\n```\n"


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_a_failing_post_does_not_stop_the_preview(tmp_path, browser):
    root = make_site(tmp_path / "site")
    write_post(root, "adds.md", FAILING, FAILING_BODY)
    plain = write_post(root, "plain.md", "title: Plain\ndate: 2024-02-01", "The first words.\n")
    srv = Served(root)
    try:
        wait_for(lambda: "OutputMismatch" in srv.log(), timeout=30)  # the run ended, its page built again
        open_page(browser, srv.url + "blog/2024/adds/")
        wait_for(lambda: "OutputMismatch at line 15" in article_text(browser), timeout=10)
        box = wait_for(lambda: browser.find_elements("id", "site-builder-error"))
        assert "Code failed in content/posts/adds.md:15" in box[0].text
        open_page(browser, srv.url + "blog/2024/plain/")
        for n in range(2):
            words = f"Edited words {n}."
            start = time.monotonic()
            plain.write_text(plain.read_text().replace("The first words." if n == 0 else "Edited words 0.", words))
            wait_for(lambda words=words: words in article_text(browser))
            assert time.monotonic() - start < BUDGET, f"the edit took {time.monotonic() - start:.2f} s to show"
            time.sleep(0.3)
        log = srv.log()
        assert log.count("content/posts/adds.md:15: OutputMismatch") == 1, log  # once, not on every rebuild
        assert srv.proc.poll() is None
        assert browser.find_elements("id", "site-builder-error"), "the failure stays in view on other pages"
        adds = root / "content" / "posts" / "adds.md"
        adds.write_text(adds.read_text().replace("```output\n3\n", "```output\n2\n"))  # fixed: the overlay goes
        wait_for(lambda: not browser.find_elements("id", "site-builder-error"), timeout=15)
    finally:
        srv.stop()


SLOW = "title: Slow\ndate: 2024-03-01\nexecute: true"


def slow_body(value: str, seconds: float) -> str:
    return (
        f"Before the code.\n\n```python\nimport time\ntime.sleep({seconds})\nprint({value})\n```\n\nAfter the code.\n"
    )


NOTE = "return [...document.querySelectorAll('.exec-running')].map(e => getComputedStyle(e, '::after').content)"


def notes(browser) -> list[str]:
    """The "running…" notes of the open page, as the reader sees them (their words are the theme's, by language)."""
    from selenium.common.exceptions import JavascriptException

    try:
        return list(browser.execute_script(NOTE))
    except JavascriptException:  # the page is being replaced by a reload
        return []


def test_pages_first_then_the_outputs_when_the_run_ends(tmp_path, browser):
    root = make_site(tmp_path / "site")
    post = write_post(root, "slow.md", SLOW, slow_body("'first ' + 'run'", 2.5))
    srv = Served(root)
    try:
        url = srv.url + "blog/2024/slow/"
        open_page(browser, url)
        assert notes(browser) == ['"running…"'] and "first run" not in article_text(browser)
        assert "After the code." in article_text(browser)
        wait_for(lambda: "first run" in article_text(browser) and not notes(browser), timeout=15)

        start = time.monotonic()  # a code edit: the edited code at once, the last outputs marked stale meanwhile
        post.write_text(post.read_text().replace("'first ' + 'run'", "'second ' + 'run'"))
        wait_for(lambda: "'second ' + 'run'" in article_text(browser))
        assert time.monotonic() - start < BUDGET, f"the edited code took {time.monotonic() - start:.2f} s to show"
        stale = browser.find_elements("css selector", ".exec-stale")
        assert stale and "first run" in stale[0].text and notes(browser) == ['"running…"']
        wait_for(
            lambda: "second run" in article_text(browser) and not browser.find_elements("css selector", ".exec-stale")
        )

        ended = srv.log().count("ran the code of")
        post.write_text(post.read_text().replace("'second ' + 'run'", "'third ' + 'run'"))
        time.sleep(0.8)  # its run is under way when the next edit comes: that run is stopped, not finished
        post.write_text(post.read_text().replace("'third ' + 'run'", "'fourth ' + 'run'"))
        wait_for(lambda: "fourth run" in article_text(browser), timeout=15)
        time.sleep(0.5)
        assert srv.log().count("ran the code of") == ended + 1, srv.log()
        assert "third run" not in srv.log()
    finally:
        srv.stop()


def test_the_first_answer_does_not_wait_for_the_code(tmp_path, browser):
    """In a Chinese site: the note that the code runs is in the page's language, as the theme's other words."""
    import urllib.request

    def get(path: str) -> str:
        with urllib.request.urlopen(srv.url + path, timeout=5) as answer:
            return str(answer.read().decode())

    root = make_site(tmp_path / "site", "title: 测试\nurl: https://example.org\nlanguage: zh\n")
    write_post(root, "slow.md", SLOW, slow_body("42", 20))
    plain = write_post(root, "plain.md", "title: Plain\ndate: 2024-02-01", "The first words.\n")
    srv = Served(root)
    try:
        start = time.monotonic()
        page = get("blog/2024/slow/")
        assert time.monotonic() - start < 1.0 and srv.serving < 10
        assert 'class="exec-running"' in page and "sleep" in page and "running" not in article_words(page)
        open_page(browser, srv.url + "blog/2024/slow/")
        assert notes(browser) == ['"运行中…"']
        start = time.monotonic()  # the run goes on: another post's edit is not held up by it
        plain.write_text(plain.read_text().replace("The first words.", "Words saved while code runs."))
        wait_for(lambda: "Words saved while code runs." in get("blog/2024/plain/"))
        assert time.monotonic() - start < BUDGET and 'class="exec-running"' in get("blog/2024/slow/")
    finally:
        srv.stop()


def article_words(page: str) -> str:
    """The words of a page's article, its markup left out."""
    article = page[page.index("<article") : page.index("</article>")]
    return re.sub(r"<[^>]+>", " ", article)


def test_served_pages_of_running_code_end_as_build_keep_going_makes_them(tmp_path):
    """Once the runs ended, serve's site (quick path for code edits included) is the site `build --keep-going`
    makes, byte for byte: its runs are forked, as the build's, from a template holding site.yml's `exec: preload`."""
    from test_serve_settings import tree

    from site_builder.build import build_site
    from site_builder.server import DevSite
    from site_builder.server.runs import BackgroundRuns

    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nexec:\n  preload: [colorsys]\n")
    preloaded = '\n```python\nimport sys\nprint("colorsys" in sys.modules)\n```\n\n```output\nTrue\n```\n'
    good = write_post(
        root, "good.md", SLOW, "Prose.\n\n```python\nprint(6 * 7)\n```\n\n```output\n42\n```\n" + preloaded
    )
    write_post(root, "adds.md", FAILING, FAILING_BODY)
    write_post(root, "plain.md", "title: Plain\ndate: 2024-02-01", "Plain words.\n")
    logs: list[str] = []
    site = DevSite(root, tmp_path / "served", log=logs.append)
    site.runs = BackgroundRuns(root, site.run_ended)

    def settled(builds: int) -> None:
        wait_for(lambda: site.builds >= builds and not site.runs.running and not site.ended, timeout=30)
        with site.lock:  # the last rebuild is over
            pass
        shutil.rmtree(tmp_path / "fresh", ignore_errors=True)
        build_site(root, tmp_path / "fresh", keep_going=True)
        served, built = tree(tmp_path / "served"), tree(tmp_path / "fresh")
        assert served == built, [k for k in sorted(set(served) | set(built)) if served.get(k) != built.get(k)]

    try:
        site.rebuild()
        settled(2)  # the first build, then one for each run that ended, or one for both (they end together)
        good.write_text(good.read_text().replace("6 * 7", "6 * 8").replace("42", "48"))
        builds = site.builds
        assert "load+render (quick)" in site.rebuild(["content/posts/good.md"]).timings
        settled(builds + 2)
        assert "48" in (tmp_path / "served" / "blog/2024/good/index.html").read_text()
    finally:
        site.runs.stop()


def test_a_page_read_as_its_post_changed_reloads_when_it_opens_its_stream(tmp_path):
    """A page read just before a rebuild moved its new version in (its run ended as the browser loaded it), whose
    stream opened only after the reload was sent, is reloaded as soon as it opens the stream; a page read after
    the rebuild is not."""
    import json
    import urllib.request

    root = make_site(tmp_path / "site")
    plain = write_post(root, "plain.md", "title: Plain\ndate: 2024-02-01", "The first words.\n")
    srv = Served(root)

    def page() -> tuple[str, str]:
        with urllib.request.urlopen(srv.url + "blog/2024/plain/", timeout=5) as answer:
            html = answer.read().decode()
        return html, re.search(r'data-seen="(\d+)"', html).group(1)  # type: ignore[union-attr]

    def events(seen: str, count: int) -> list[dict[str, object]]:
        url = f"{srv.url}__livereload?page=/blog/2024/plain/&seen={seen}"
        found: list[dict[str, object]] = []
        with urllib.request.urlopen(url, timeout=5) as stream:
            while len(found) < count:
                line = stream.readline().decode()
                if line.startswith("data: "):
                    found.append(json.loads(line[6:]))
                elif line.startswith(": ping"):
                    found.append({"type": "ping"})
        return found

    try:
        _, before = page()
        plain.write_text(plain.read_text().replace("The first words.", "Words of the new version."))
        after = wait_for(lambda: next((seen for html, seen in [page()] if "new version" in html), None))
        assert int(after) > int(before)
        reload = {"type": "reload", "paths": ["/blog/2024/plain/index.html"]}
        assert events(before, 2) == [{"type": "ok"}, reload]  # the state, then the reload it missed
        assert events(after, 2) == [{"type": "ok"}, {"type": "ping"}]  # read after it: nothing to reload
    finally:
        srv.stop()
