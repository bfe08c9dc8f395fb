"""A site served under a path (GitHub project pages): built with `url: https://example.org/blog/`, served under
/blog/ by a real HTTP server on 127.0.0.1, and crawled: no link, image, stylesheet or script returns 404."""

from __future__ import annotations

import functools
import http.server
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post
from PIL import Image

CONFIG = """title: Sub
url: https://example.org/blog/
languages:
  en: {}
  zh: {}
"""


def make_subpath_site(root: Path) -> Path:
    make_site(root, CONFIG)
    posts = root / "content/posts"
    Image.new("RGB", (1200, 800), (200, 30, 30)).save(posts / "red.jpg")
    Image.new("RGB", (900, 900), (30, 30, 200)).save(posts / "blue.png")
    write_post(
        root,
        "one.md",
        "title: One\ndate: 2024-01-01\ntags: [Alpha]",
        "![Red](red.jpg)\n\nSee [two](/blog/2024/two/).\n",
    )
    write_post(
        root,
        "two.md",
        "title: Two\ndate: 2024-02-01\ntags: [Alpha, beta]",
        "::: gallery\n![Red](red.jpg)\n![Blue](blue.png)\n:::\n\nMath $x^2$.\n",
    )
    write_post(root, "two.zh.md", "title: 二\ndate: 2024-02-01\ntags: [beta]", "中文。\n")
    return root


class PrefixHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the output under /blog/ only, as GitHub Pages serves a project site; anything else is a 404."""

    def translate_path(self, path: str) -> str:
        parts = urlsplit(path)
        if not parts.path.startswith("/blog/") and parts.path != "/blog":
            return str(Path(self.directory) / "__not_under_the_prefix__")
        return super().translate_path(parts.path[len("/blog") :] or "/")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    root = make_subpath_site(tmp_path / "site")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    handler = functools.partial(PrefixHandler, directory=str(root / "output"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def links(html: str, page_url: str) -> set[str]:
    soup = BeautifulSoup(html, "html.parser")
    found = set()
    for tag in soup.find_all(True):
        for attr in ("href", "src", "data-src"):
            if tag.get(attr):
                found.add(urljoin(page_url, tag[attr]))
        for attr in ("srcset", "data-srcset"):
            for entry in (tag.get(attr) or "").split(","):
                if entry.strip():
                    found.add(urljoin(page_url, entry.strip().split()[0]))
    return found


def fetch(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read(), resp.headers.get_content_type()
    except urllib.error.HTTPError as exc:
        return exc.code, b"", ""


def test_every_link_of_a_site_under_a_path_resolves(served):
    _root, origin = served
    start = origin + "/blog/"
    todo, seen, broken, pages = [start, origin + "/blog/404.html"], set(), [], 0  # 404: shown at any depth
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        status, body, ctype = fetch(url)
        if status != 200:
            broken.append(url)
            continue
        if ctype == "text/html":
            pages += 1
            for link in links(body.decode("utf-8"), url):
                parts = urlsplit(link)
                if link.startswith(origin) and parts.fragment == "":
                    todo.append(link.split("#")[0])
    assert not broken, f"broken under /blog/: {sorted(broken)}"
    assert pages >= 10  # home pages, posts, tag and year pages of both languages
    kinds = {urlsplit(u).path.rsplit(".", 1)[-1] for u in seen}
    assert {"css", "jpg", "webp", "png", "js"} <= kinds, kinds


def test_absolute_urls_feeds_and_sitemap_carry_the_path_once(served):
    root, origin = served
    out = root / "output"
    post = BeautifulSoup((out / "blog/2024/two/index.html").read_text(), "html.parser")
    assert post.find("link", rel="canonical")["href"] == "https://example.org/blog/blog/2024/two/"
    assert post.find("link", rel="stylesheet")["href"].startswith("/blog/css/")
    hreflang = {a["hreflang"]: a["href"] for a in post.find_all("link", rel="alternate") if a.get("hreflang")}
    assert all(h.startswith("https://example.org/blog/") and "/blog/blog/blog/" not in h for h in hreflang.values())
    feed = (out / "feed.xml").read_text()
    assert 'href="https://example.org/blog/feed.xml"' in feed
    assert '&lt;img src="/blog/blog/2024/one/red.jpg"' in feed  # post HTML in the feed links under the path
    sitemap = (out / "sitemap.xml").read_text()
    assert "<loc>https://example.org/blog/blog/2024/one/</loc>" in sitemap
    assert "Sitemap: https://example.org/blog/sitemap.xml" in (out / "robots.txt").read_text()
    status, _body, _ = fetch(origin + "/blog/no/such/page/")
    assert status == 404


def test_base_url_overrides_the_url_for_a_preview(tmp_path):
    root = make_subpath_site(tmp_path / "site")
    proc = run_cli("build", "--source", str(root), "--base-url", "https://preview.example.net/pr-7/")
    assert proc.returncode == 0, proc.stderr
    post = BeautifulSoup((root / "output/blog/2024/one/index.html").read_text(), "html.parser")
    assert post.find("link", rel="canonical")["href"] == "https://preview.example.net/pr-7/blog/2024/one/"
    assert post.find("a", string="two")["href"] == "/pr-7/blog/2024/two/"
    img = post.find("img", alt="Red")
    assert img["src"] == "/pr-7/blog/2024/one/red.jpg"
    assert all(e.strip().startswith("/pr-7/") for e in post.find("source")["srcset"].split(","))
    proc = run_cli("build", "--source", str(root), "--base-url", "example.net")
    assert proc.returncode == 1 and proc.stderr.startswith("error: --base-url must be an absolute http(s) address")
    root_site = run_cli("build", "--source", str(root), "--base-url", "https://example.org/")
    assert root_site.returncode == 0
    post = BeautifulSoup((root / "output/blog/2024/one/index.html").read_text(), "html.parser")
    assert post.find("img", alt="Red")["src"] == "/blog/2024/one/red.jpg"  # at a domain's root: as always
