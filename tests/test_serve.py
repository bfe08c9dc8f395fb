"""`site-builder serve` driven for real: an HTTP client, a headless Chromium, files edited on disk."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import REPO, Served, article_text, chromium, make_site, open_page, wait_for, write_post

pytestmark = pytest.mark.serial  # times what it waits for: run alone, after the tests run two at a time


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site", "title: Live Site\nurl: https://example.org\n")
    write_post(root, "hello.md", "title: Hello\ndate: 2025-01-02\ntags: [a]", "The first version of the text.\n")
    write_post(root, "other.md", "title: Other\ndate: 2024-01-02", "Another post.\n")
    css = root / "themes" / "default" / "static" / "css"
    css.mkdir(parents=True)
    shutil.copy(REPO / "site_builder" / "themes" / "default" / "static" / "css" / "site.css", css / "site.css")
    return root


@pytest.fixture()
def server(site: Path):
    with Served(site) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_editing_a_post_reloads_the_open_page(server, site, browser):
    open_page(browser, server.url + "blog/2025/hello/")
    wait_for(lambda: "The first version" in article_text(browser))
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("The first version", "The second version"))
    wait_for(lambda: "The second version" in article_text(browser))


def test_broken_front_matter_shows_an_overlay_and_fixing_it_clears_it(server, site, browser):
    open_page(browser, server.url + "blog/2025/hello/")
    post = site / "content" / "posts" / "hello.md"
    good = post.read_text()
    post.write_text(good.replace("tags: [a]", "tags: [a"))
    box = wait_for(lambda: browser.find_elements("id", "site-builder-error"))
    text = box[0].text
    assert "content/posts/hello.md" in text and "YAML" in text
    assert server.proc.poll() is None, "the server keeps running after a build error"
    post.write_text(good.replace("The first version", "The fixed version"))
    wait_for(
        lambda: not browser.find_elements("id", "site-builder-error") and "The fixed version" in article_text(browser)
    )


def test_a_posts_warnings_are_a_note_on_its_open_page_until_it_has_none(server, site, browser):
    """A writer sees what the terminal printed of the post in the page being written (an unknown key, a broken
    link): a note on the post's page only, there again when the page is opened again, gone once fixed."""
    open_page(browser, server.url + "blog/2025/hello/")
    post = site / "content" / "posts" / "hello.md"
    good = post.read_text()
    post.write_text(
        good.replace("tags: [a]", "tags: [a]\ntgas: [b]").replace("The first", "See [x](/nothere/). The first")
    )
    box = wait_for(lambda: browser.find_elements("id", "site-builder-warnings"))
    text = box[0].text
    assert "content/posts/hello.md:5: unknown key 'tgas', ignored (did you mean 'tags'?)" in text, text
    assert re.search(r"content/posts/hello\.md:\d+: .*/nothere/", text), text
    assert text.startswith("Warnings (2)") and box[0].get_attribute("role") == "status"
    browser.refresh()
    assert "unknown key 'tgas'" in wait_for(lambda: browser.find_elements("id", "site-builder-warnings"))[0].text
    open_page(browser, server.url + "blog/2024/other/")
    wait_for(lambda: "Another post" in article_text(browser))
    time.sleep(0.5)
    assert not browser.find_elements("id", "site-builder-warnings"), "another post's page has no note"
    open_page(browser, server.url + "blog/2025/hello/")
    wait_for(lambda: browser.find_elements("id", "site-builder-warnings"))
    post.write_text(good.replace("The first version", "The clean version"))
    wait_for(
        lambda: (
            "The clean version" in article_text(browser) and not browser.find_elements("id", "site-builder-warnings")
        )
    )


def test_css_edit_swaps_the_stylesheet_without_a_reload(server, site, browser):
    open_page(browser, server.url + "blog/2025/hello/")
    browser.execute_script("window.__marker = 'still here'; window.scrollTo(0, 0);")
    css = site / "themes" / "default" / "static" / "css" / "site.css"
    css.write_text(css.read_text() + "\nbody { background: rgb(1, 2, 3) !important; }\n")
    wait_for(lambda: browser.execute_script("return getComputedStyle(document.body).backgroundColor") == "rgb(1, 2, 3)")
    assert browser.execute_script("return window.__marker") == "still here", "the page was reloaded"


def test_only_pages_showing_the_edit_reload(server, site, browser):
    open_page(browser, server.url + "blog/2024/other/")
    browser.execute_script("window.__marker = 'kept';")
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("The first version", "Changed body only"))
    time.sleep(1.0)
    assert browser.execute_script("return window.__marker") == "kept"


def test_paths_are_confined_to_the_site(server):
    outside = server.output.parent.parent / "secret-outside.txt"
    outside.write_text("secret")
    (server.output / "link-out").symlink_to(outside)
    try:
        for target in (
            "/../../../../etc/passwd",
            "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
            "/..%2f..%2f..%2fetc%2fpasswd",
            "//etc/passwd",
            "/%2fetc%2fpasswd",
            "/link-out",
            "/blog/..%5c..%5cetc%5cpasswd",
        ):
            status, body = server.raw_get(target)
            assert status == 404, target
            assert b"root:" not in body and b"secret" not in body, target
    finally:
        outside.unlink()


def test_directories_404_and_content_types(server, site):
    status, body = server.raw_get("/blog/2025/hello/")
    assert status == 200 and b"The first version" in body and b"/__livereload.js" in body
    status, body = server.raw_get("/no/such/page/")
    assert status == 404 and b"404" in body and b'class="not-found"' in body
    assert server.head("/feed.xml")[1]["Content-Type"].startswith("application/xml")
    assert server.head("/css/site.css")[1]["Content-Type"].startswith("text/css")
    assert server.head("/blog")[0] == 301
    static = site / "themes" / "default" / "static" / "img"
    static.mkdir(parents=True)
    (static / "x.webp").write_bytes(b"RIFF\x00\x00\x00\x00WEBP")
    wait_for(lambda: server.head("/img/x.webp")[0] == 200)
    assert server.head("/img/x.webp")[1]["Content-Type"] == "image/webp"


def test_built_site_has_no_reload_script(server, site, tmp_path):
    from helpers import run_cli

    run_cli("build", "--source", str(site), "--output", str(tmp_path / "out"), check=True)
    assert "__livereload" not in (tmp_path / "out" / "index.html").read_text()
    assert "__livereload" in server.raw_get("/")[1].decode()


def test_binds_to_localhost_and_ctrl_c_stops_cleanly(site):
    srv = Served(site)
    assert "bound to 127.0.0.1" in "".join(srv.lines)
    output = srv.output
    seconds = srv.stop()
    assert srv.proc.returncode == 0
    assert seconds < 1.5, f"took {seconds:.2f}s to stop"
    assert not output.exists(), "the temporary output is removed"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=1).close()
    children = subprocess.run(["pgrep", "-P", str(srv.proc.pid)], capture_output=True, text=True).stdout.split()
    assert children == []


# --- what a writer sees change while serving ------------------------------------------------------------------------


def page_text(server: Served, url: str) -> str:
    status, body = server.raw_get(url)
    return f"{status} {body.decode()}"


def test_a_title_change_reloads_the_open_home_page(server, site, browser):
    open_page(browser, server.url)
    browser.execute_script("window.__marker = 'old page';")
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("title: Hello", "title: Hello again"))
    wait_for(lambda: "Hello again" in article_text(browser, "main"))  # the page reloads meanwhile
    assert browser.execute_script("return window.__marker") is None, "the home page was reloaded"
    assert "Hello again" in page_text(server, "/blog/")  # the archive too
    assert "Hello again" in page_text(server, "/blog/2024/other/")  # the neighbour's link


def test_a_tag_change_updates_the_tag_pages(server, site):
    assert "Hello" in page_text(server, "/blog/tag/a/")
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("tags: [a]", "tags: [b]"))
    wait_for(
        lambda: page_text(server, "/blog/tag/b/").startswith("200") and "Hello" in page_text(server, "/blog/tag/b/")
    )
    # the other pages follow the first ones (serve moves an edited post's page and the home page in early)
    wait_for(lambda: page_text(server, "/blog/tag/a/").startswith("404"))  # a tag no post has any more: no page
    wait_for(lambda: "/blog/tag/b/" in page_text(server, "/blog/tag/"))


def test_a_new_post_appears_and_a_deleted_one_disappears(server, site):
    write_post(site, "fresh.md", "title: Fresh News\ndate: 2025-06-01\ntags: [a]", "Just written.\n")
    wait_for(lambda: "Just written." in page_text(server, "/blog/2025/fresh/"))
    wait_for(lambda: "Fresh News" in page_text(server, "/"))
    wait_for(lambda: "Fresh News" in page_text(server, "/blog/tag/a/"))  # written after the home page
    (site / "content" / "posts" / "other.md").unlink()
    wait_for(lambda: page_text(server, "/blog/2024/other/").startswith("404"))
    wait_for(lambda: "Other" not in page_text(server, "/"))
    wait_for(lambda: "/blog/2024/other/" not in page_text(server, "/blog/"))
    wait_for(lambda: page_text(server, "/blog/2024/").startswith("404"))  # no post is left in 2024


def test_the_feed_follows_an_edit_soon_after_the_page(server, site):
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("The first version", "The feed version"))
    wait_for(lambda: "The feed version" in page_text(server, "/blog/2025/hello/"))
    wait_for(lambda: "The feed version" in page_text(server, "/feed.xml"))
    assert page_text(server, "/feed.xml").rstrip().endswith("</feed>")


def test_a_reload_is_followed_until_the_page_loaded_again():
    from site_builder.server.http import Broadcaster

    events = Broadcaster()
    events.subscribe("/blog/x/")
    events.subscribe("/")
    assert events.reload(["/blog/y/index.html"])(5) is True, "no open page shows it: no wait"
    start = time.monotonic()
    wait = events.reload(["/blog/x/index.html"])
    assert wait(0.2) is False and time.monotonic() - start < 2
    wait = events.reload(["/blog/x/index.html"])
    threading.Timer(0.05, lambda: events.subscribe("/blog/x/")).start()
    assert wait(5) is True
    wait = events.reload(["/blog/x/index.html"])
    assert wait(5, stop=lambda: True) is False, "a newer change stops the wait"
    wait = events.reload(["/blog/x/index.html"])  # the streams of pages that went away are still counted
    threading.Timer(0.05, lambda: events.subscribe("/blog/x/")).start()
    assert wait(5) is True, "one page loaded again is enough"


def test_a_burst_of_events_is_one_rebuild(tmp_path):
    from site_builder.server.watch import Watcher

    root = make_site(tmp_path / "site")
    calls, changes = [], []
    watcher = Watcher(root, calls.append, on_change=lambda: changes.append(1))
    watcher._thread.start()
    try:
        for _ in range(5):
            watcher.touch(str(root / "content" / "posts" / "a.md"))
            time.sleep(0.005)
        watcher.touch(str(root / "content" / "posts" / "a.md"), whole=True)
        watcher.touch(str(root / "content" / "posts" / "b.md"), whole=True)
        wait_for(lambda: calls)
        time.sleep(0.2)
    finally:
        watcher._stop.set()
        watcher._wake.set()
        watcher._thread.join(timeout=5)
    assert calls == [["content/posts/a.md", "content/posts/b.md"]]
    assert len(changes) == 7


# --- the rebuilds `serve` runs (changed files known, pages first, feeds later) equal full builds ------------------

SITE_YML = (
    "title: Live Site\nurl: https://example.org\nposts_per_page: 2\nlanguage: en\n"
    "languages:\n  en:\n    name: English\n  zh:\n    name: 中文\n"
)


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".site-builder" and not str(p.relative_to(root)).startswith("pagefind")
    }


class Session:
    """The dev server's rebuilds (DevSite, without HTTP or watcher): warm cache, changed files named, the edited
    pages first, feeds last; after each, the output is compared with a full build from scratch."""

    def __init__(self, root: Path, tmp: Path):
        from site_builder.server import DevSite
        from site_builder.server.http import Broadcaster

        output = tmp / "served"
        early: list[list[str]] = []

        class Recorder(Broadcaster):
            def reload(self, paths):  # the edited pages, sent before lists and feeds are written
                for path in paths:
                    assert (output / path.lstrip("/")).is_file(), f"{path} reloaded before it is in place"
                early.append(paths)
                return super().reload(paths)

        self.root, self.tmp, self.early, self.logs = root, tmp, early, []
        self.site = DevSite(root, output, events=Recorder(), log=self.logs.append)
        assert self.site.rebuild() is not None
        self.output = output
        self.n = 0

    def save(self, *changes: tuple[str, str | None]) -> None:
        """Write (or delete, for None) posts and rebuild as serve does."""
        for name, text in changes:
            path = self.root / "content" / "posts" / name
            if text is None:
                path.unlink()
            else:
                path.write_text(text, encoding="utf-8")
        return self.rebuild([f"content/posts/{name}" for name, _ in changes])

    def rebuild(self, changed: list[str] | None, expect_same: bool = True):
        from site_builder.build import build_site

        self.early.clear()
        result = self.site.rebuild(changed)
        if expect_same:
            assert result is not None, self.logs[-1]
            self.n += 1
            reference = self.tmp / f"full-{self.n}"
            shutil.rmtree(self.root / ".cache", ignore_errors=True)
            build_site(self.root, reference)
            assert tree(self.output) == tree(reference), _diff(tree(self.output), tree(reference))
        return result


def _diff(a: dict, b: dict) -> str:
    keys = sorted(set(a) | set(b))
    return "differs: " + ", ".join(k for k in keys if a.get(k) != b.get(k))[:2000]


def post(title: str, date: str, tags: str = "[a]", body: str = "Some text.\n", extra: str = "") -> str:
    return f"---\ntitle: {title}\ndate: {date}\ntags: {tags}\n{extra}---\n\n{body}"


@pytest.fixture()
def session(tmp_path: Path) -> Session:
    root = make_site(tmp_path / "site", SITE_YML)
    for i in range(7):
        write_post(
            root,
            f"p{i}.md",
            f"title: Post {i}\ndate: 202{i % 3}-0{i + 1}-1{i}\ntags: [t{i % 3}, common]",
            f"Body of post {i}.\n\n```python\nprint({i})\n```\n\nMath $x^{i}$.\n",
        )
    write_post(root, "p0.zh.md", "title: 帖子零\ndate: 2020-01-10\ntags: [t0]", "中文正文。\n")
    write_post(root, "solo.zh.md", "title: 只有中文\ndate: 2021-05-05\ntags: [zh-only]", "只有中文的帖子。\n")
    return Session(root, tmp_path)


def test_rebuilds_as_serve_runs_them_equal_full_builds(session):
    s, posts = session, session.root / "content" / "posts"
    text = (posts / "p3.md").read_text()
    quick = "load+render (quick)"
    assert quick in s.save(("p3.md", text.replace("Body of post 3.", "Body of post 3, edited."))).timings
    assert s.early == [["/blog/2020/p3/index.html"]], "a body edit updates the post's page first"
    assert quick in s.save(("p3.md", text.replace("Body of post 3.", "A much longer body. " * 400))).timings
    assert quick in s.save(("p3.md", text.replace("title: Post 3", "title: Post three"))).timings  # lists show it
    assert s.early == [["/blog/2020/p3/index.html"]], "the post's page first, then its lists and neighbours"
    assert (
        quick in s.save(("p1.md", (posts / "p1.md").read_text().replace("date:", "summary: A summary.\ndate:"))).timings
    )
    assert (
        quick not in s.save(("p4.md", (posts / "p4.md").read_text().replace("[t1, common]", "[t1, brand-new]"))).timings
    )
    s.save(("p5.md", (posts / "p5.md").read_text().replace("date: 2022-06-15", "date: 2019-06-15")))  # year, order
    assert (
        quick in s.save(("p0.zh.md", post("帖子零，新标题", "2020-01-10", "[t0]", "中文正文。\n"))).timings
    )  # a translation
    s.save(("p0.zh.md", post("帖子零", "2020-01-10", "[t0]", "中文正文。\n")))
    s.save(("new.md", post("A new post", "2023-01-01", "[t0, fresh]")))  # added
    s.save(("p2.md", None))  # deleted
    s.save(("p6.md", (posts / "p6.md").read_text().replace("tags:", "draft: true\ntags:")))  # now a draft
    s.save(("p6.md", (posts / "p6.md").read_text().replace("draft: true\n", "")))  # published again
    s.save(("p1.zh.md", post("帖子一", "2021-02-11", "[t1]", "翻译。\n")))  # a translation appears
    s.save(("p0.zh.md", None))  # one disappears
    s.save(("solo.zh.md", (posts / "solo.zh.md").read_text().replace("只有中文的帖子", "改过的中文帖子")))
    s.save(
        ("p0.md", (posts / "p0.md").read_text().replace("Body of post 0", "Edited zero")),
        ("p1.md", (posts / "p1.md").read_text().replace("Body of post 1", "Edited one")),
    )
    s.save(
        ("p4.md", (posts / "p4.md").read_text().replace("lang", "lang") + "\nMore.\n"),
        ("p5.md", (posts / "p5.md").read_text().replace("title: Post 5", "title: Post five")),
    )
    s.save(("p0.md", (posts / "p0.md").read_text().replace("tags:", "translation_key: other\ntags:")))


def test_failed_rebuilds_keep_their_changes_for_the_next_one(session):
    s, posts = session, session.root / "content" / "posts"
    good = (posts / "p3.md").read_text()
    (posts / "p3.md").write_text(good.replace("tags: [t0, common]", "tags: [t0"))
    assert s.rebuild(["content/posts/p3.md"], expect_same=False) is None
    assert "YAML" in s.site.last_error
    (posts / "p4.md").write_text((posts / "p4.md").read_text().replace("Body of post 4", "Post 4, changed"))
    assert s.rebuild(["content/posts/p4.md"], expect_same=False) is None  # p3 is still broken
    s.save(("p3.md", good.replace("title: Post 3", "title: Post 3 fixed")))  # and p4's change is not lost
    assert "Post 4, changed" in (s.output / "blog/2021/p4/index.html").read_text()


def test_a_failure_after_the_first_pages_are_in_place_is_repaired_by_the_next_build(session, monkeypatch):
    import site_builder.build.incremental as build
    from site_builder.errors import SiteError

    s, posts = session, session.root / "content" / "posts"
    text = (posts / "p3.md").read_text()
    (posts / "p3.md").write_text(text.replace("Body of post 3.", "Broken later."))
    real = build.publish_images
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # the second call comes after the post's page went in
            raise SiteError("simulated failure")
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "publish_images", failing)
    assert s.rebuild(["content/posts/p3.md"], expect_same=False) is None
    assert "simulated failure" in s.site.last_error
    assert "Broken later." in (s.output / "blog/2020/p3/index.html").read_text()
    monkeypatch.setattr(build, "publish_images", real)
    s.save(("p3.md", text))  # back to what the last good build wrote: the page must be written again
    assert "Broken later." not in (s.output / "blog/2020/p3/index.html").read_text()


def test_site_and_theme_changes_rebuild_everything(session):
    s = session
    (s.root / "site.yml").write_text(SITE_YML.replace("posts_per_page: 2", "posts_per_page: 3"))
    s.rebuild(["site.yml"])
    templates = s.root / "themes" / "default" / "templates"
    templates.mkdir(parents=True)
    (templates / "404.html").write_text("<html><body>Lost {{ site.title }}</body></html>")
    s.rebuild(["themes/default/templates/404.html"])
    (s.root / "content" / "posts" / "p1.md").write_text(post("Changed unseen", "2021-02-11"))
    s.rebuild(None)  # nothing known: every file is looked at


def test_rebuilds_with_local_images_equal_full_builds(tmp_path):
    from PIL import Image

    root = make_site(tmp_path / "site", "title: Photos\nurl: https://example.org\n")
    posts = root / "content" / "posts"
    write_post(root, "trip.md", "title: Trip\ndate: 2025-03-01\ntags: [travel]", "Look.\n\n![The pier](pier.jpg)\n")
    write_post(root, "home.md", "title: Home\ndate: 2025-02-01", "No photos here.\n")
    Image.new("RGB", (900, 600), (200, 40, 40)).save(posts / "pier.jpg")
    s = Session(root, tmp_path)
    text = (posts / "trip.md").read_text()
    assert "load+render (quick)" in s.save(("trip.md", text.replace("Look.", "Look at this."))).timings
    Image.new("RGB", (1200, 500), (40, 200, 40)).save(posts / "pier.jpg")  # the photo replaced
    s.rebuild(["content/posts/pier.jpg"])
    Image.new("RGB", (700, 700), (40, 40, 200)).save(posts / "boat.jpg")  # a new photo, then the post shows it
    s.rebuild(["content/posts/boat.jpg"])
    s.save(("trip.md", text.replace("Look.", "Look.\n\n![A boat](boat.jpg)")))
    assert "/blog/2025/trip/boat.jpg" in s.early[0], "the page's new photo is in place when the page reloads"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_a_signal_stops_serve_cleanly_and_removes_its_temporary_output(site: Path, signum: int) -> None:
    srv = Served(site)
    assert srv.output.is_dir()
    srv.proc.send_signal(signum)
    assert srv.proc.wait(timeout=15) == 0
    rest = srv.log()
    assert "stopped" in rest and "Traceback" not in rest, rest
    assert not srv.output.parent.exists(), "the temporary directory was left behind"


def test_sigterm_during_the_first_build_still_removes_the_temporary_output(site: Path, tmp_path: Path) -> None:
    """A signal before the server is up (the first build of a big site takes seconds) cleans up too."""
    for i in range(600):
        write_post(site, f"p{i}.md", f"title: P{i}\ndate: 2020-01-01", "Text $x^2$.\n\n```python\nx = 1\n```\n" * 20)
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder", "serve", "--source", str(site), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    wait_for(lambda: list((tmp_path / "tmp").iterdir()), timeout=30, step=0.01)  # serve made its folder, then builds
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert "serving" not in out, "the build finished before the signal: make the site bigger"
    assert "Traceback" not in out, out
    assert list((tmp_path / "tmp").iterdir()) == [], "the temporary directory was left behind"


def test_bad_math_saved_while_serving_is_a_warning_and_a_box_in_the_page(server, site):
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("The first version", "Now with $\\frac{1}{$ and $x^2$, the first version"))
    wait_for(lambda: "math-error" in page_text(server, "/blog/2025/hello/"))
    page = page_text(server, "/blog/2025/hello/")
    assert page.startswith("200") and "<math" in page, "the post's other formula still renders"
    deadline = time.monotonic() + 40  # the log line follows the rebuild
    while time.monotonic() < deadline and not any("warning: content/posts/hello.md:" in x for x in server.lines):
        time.sleep(0.05)
    assert any(re.match(r"warning: content/posts/hello\.md:\d+: cannot render math", line) for line in server.lines)


def test_drafts_and_future_posts_are_served_only_when_asked_for(site):
    write_post(site, "later.md", "title: Later\ndate: 2999-01-01", "From the future.\n")
    write_post(site, "wip.md", "title: Wip\ndate: 2025-03-01\ndraft: true", "Not done.\n")
    plain = Served(site)
    try:
        assert plain.raw_get("/blog/2999/later/")[0] == 404 and plain.raw_get("/blog/2025/wip/")[0] == 404
    finally:
        plain.stop()
    both = Served(site, "--drafts", "--future")
    try:
        assert both.raw_get("/blog/2999/later/")[0] == 200 and both.raw_get("/blog/2025/wip/")[0] == 200
    finally:
        both.stop()


def test_a_site_under_a_path_is_previewed_at_the_root(tmp_path):
    root = make_site(tmp_path / "site", "title: Sub\nurl: https://example.org/blog/\n")
    write_post(root, "hello.md", "title: Hello\ndate: 2025-01-02", "Hi.\n")
    srv = Served(root)
    try:
        status, body = srv.raw_get("/blog/2025/hello/")
        assert status == 200 and b'href="/css/site.css"' in body
        assert srv.raw_get("/css/site.css")[0] == 200
    finally:
        srv.stop()


def test_serve_indexes_the_site_for_search_and_again_after_an_edit(server, site):
    pytest.importorskip("pagefind")
    entry = server.output / "pagefind" / "shards.json"
    wait_for(entry.is_file, timeout=30)
    stamp = entry.stat().st_mtime_ns
    post = site / "content" / "posts" / "hello.md"
    post.write_text(post.read_text().replace("The first version", "An edited version"))
    wait_for(lambda: entry.is_file() and entry.stat().st_mtime_ns != stamp, timeout=30)


def test_the_served_site_is_written_in_memory_when_there_is_room(site: Path) -> None:
    """As Hugo's server renders to memory: /dev/shm (RAM on Linux) when it has 2 GiB free and TMPDIR is not set."""
    room = os.statvfs("/dev/shm") if os.path.isdir("/dev/shm") else None
    if room is None or room.f_bavail * room.f_frsize < 2 << 30 or os.environ.get("TMPDIR"):
        pytest.skip("no /dev/shm with 2 GiB free here, or TMPDIR set")
    srv = Served(site)
    try:
        assert srv.output.is_relative_to("/dev/shm"), srv.output
        assert (srv.output / "index.html").is_file()
    finally:
        srv.stop()
    assert not srv.output.parent.exists(), "the temporary directory was left behind"
