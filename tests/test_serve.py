"""`site-builder serve` driven for real: an HTTP client, a headless Chromium, files edited on disk."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers import REPO, make_site, write_post

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


class Server:
    def __init__(self, root: Path):
        self.root = root
        self.proc = subprocess.Popen([sys.executable, "-m", "site_builder", "serve", "--source", str(root), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            m = re.search(r"serving (http://127\.0\.0\.1:(\d+)/) .* from (\S+)", line)
            if m:
                self.url, self.port, self.output = m.group(1), int(m.group(2)), Path(m.group(3))
                return
        raise AssertionError("server did not start:\n" + "".join(self.lines))

    def raw_get(self, target: str) -> tuple[int, bytes]:
        """A request with the path sent exactly as given (no client-side normalisation)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split()[1]), body

    def head(self, target: str) -> tuple[int, dict]:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(f"HEAD {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        lines = data.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        return int(lines[0].split()[1]), headers

    def stop(self) -> float:
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return time.monotonic() - start


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site", "title: Live Site\nurl: https://example.org\n")
    write_post(root, "hello.md", "title: Hello\ndate: 2025-01-02\ntags: [a]", "The first version of the text.\n")
    write_post(root, "other.md", "title: Other\ndate: 2024-01-02", "Another post.\n")
    css = root / "themes" / "default" / "static" / "css"
    css.mkdir(parents=True)
    shutil.copy(REPO / "themes" / "default" / "static" / "css" / "site.css", css / "site.css")
    return root


@pytest.fixture()
def server(site: Path):
    srv = Server(site)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), \
        "Chromium and chromedriver are needed (make test installs Debian's chromium and chromium-driver)"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-test-')}", "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def wait_for(fn, timeout: float = 8.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(step)
    raise AssertionError(f"timed out waiting; last value {last!r}")


def article_text(browser) -> str:
    """The article's text, or "" while the page is being replaced by a reload."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    try:
        return browser.find_element("css selector", "article").text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def open_page(browser, url: str) -> None:
    browser.get(url)
    wait_for(lambda: browser.execute_script("return document.readyState") == "complete")
    # the event stream is connected once the page has had its first message
    time.sleep(0.3)


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
    wait_for(lambda: not browser.find_elements("id", "site-builder-error")
             and "The fixed version" in article_text(browser))


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
        for target in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
                       "//etc/passwd", "/%2fetc%2fpasswd", "/link-out", "/blog/..%5c..%5cetc%5cpasswd"):
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
    srv = Server(site)
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
