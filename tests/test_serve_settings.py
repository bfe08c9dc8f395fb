"""A site.yml change while `serve` runs gives the site a fresh `serve` gives: each key that changes URLs, changed in
a running dev server's site (DevSite: warm cache, the changed file named), is compared with a fresh build for the
same preview; and a url given a path while a real server runs is crawled: every link and asset loads."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from helpers import make_site, wait_for, write_post

BASE = """title: Settings
url: https://example.org
posts_per_page: 2
languages:
  en: {}
  zh: {}
"""

CHANGES = {
    "url with a path": BASE.replace("https://example.org", "https://example.org/sub/"),
    "language": BASE.replace("  zh: {}\n", "  zh: {}\n  fr: {}\n").replace("posts_per", "language: fr\nposts_per"),
    "languages": BASE.replace("  zh: {}\n", "  zh: {prefix: /cn/}\n  fr: {}\n"),
    "permalink": BASE + "permalink: /posts/:year/:month/:slug/\n",
    "feed_path": BASE + "feed_path: atom/all.xml\n",
    "pages_dir": BASE + "pages_dir: content/more\n",
    "posts_dir": BASE + "posts_dir: content/writing\n",
    "theme": BASE + "theme: plain\n",
    "favicon": BASE + "favicon: /icon.png\n",
}


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".site-builder" and not str(p.relative_to(root)).startswith("pagefind")
    }


def make(root: Path) -> Path:
    make_site(root, BASE)
    for i in range(3):
        write_post(root, f"p{i}.md", f"title: Post {i}\ndate: 2024-0{i + 1}-02\ntags: [t{i % 2}]", f"Body {i}.\n")
    write_post(root, "p0.zh.md", "title: 零\ndate: 2024-01-02\ntags: [t0]", "中文。\n")
    write_post(root, "p3.en.md", "title: English\ndate: 2024-05-02", "In English whatever the default.\n")
    for folder in ("pages", "more"):
        page = root / "content" / folder / "about.md"
        page.parent.mkdir(parents=True)
        page.write_text(f"---\ntitle: About ({folder})\n---\n\nWho.\n")
    shutil.copytree(root / "content" / "posts", root / "content" / "writing")
    (root / "content" / "writing" / "p1.md").unlink()  # so that the other folder shows another site
    templates = root / "themes" / "plain" / "templates"
    templates.mkdir(parents=True)
    (templates / "404.html").write_text("<html><body>Plain theme: lost.</body></html>")
    return root


@pytest.mark.parametrize("key", sorted(CHANGES))
def test_a_settings_change_while_serving_gives_the_fresh_site(tmp_path: Path, key: str) -> None:
    from site_builder.build import build_site
    from site_builder.server import DevSite
    from site_builder.server.report import Preview

    root = make(tmp_path / "site")
    logs: list[str] = []
    site = DevSite(root, tmp_path / "served", log=logs.append)
    assert site.rebuild() is not None
    (root / "site.yml").write_text(CHANGES[key])
    assert site.rebuild(["site.yml"]) is not None, logs[-1:]
    fresh = Preview.of(root)
    shutil.rmtree(root / ".cache")
    build_site(root, tmp_path / "fresh", base_url=fresh.base_url)
    served, built = tree(tmp_path / "served"), tree(tmp_path / "fresh")
    assert served == built, "differs: " + ", ".join(
        k for k in sorted(set(served) | set(built)) if served.get(k) != built.get(k)
    )
    assert site.preview == fresh


@pytest.mark.serial  # a server process, waited for
def test_a_url_given_a_path_while_serving_is_previewed_whole(tmp_path: Path) -> None:
    from helpers import Served
    from test_subpath import fetch, links, make_subpath_site

    root = make_subpath_site(tmp_path / "site")
    yml = root / "site.yml"
    yml.write_text(yml.read_text().replace("https://example.org/blog/", "https://example.org"))
    srv = Served(root)
    try:
        origin = srv.url.rstrip("/")
        before = srv.log().count("rebuilt in")
        yml.write_text(yml.read_text().replace("https://example.org", "https://example.org/blog/"))
        wait_for(lambda: srv.log().count("rebuilt in") > before, timeout=30)
        time.sleep(0.5)  # the feeds are written after that line
        todo, seen, broken = [origin + "/", origin + "/blog/", origin + "/blog/css/site.css"], set(), []
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            seen.add(url)
            status, body, ctype = fetch(url)  # (a request under the path is sent to the root: the preview's place)
            if status != 200:
                broken.append(url)
            elif ctype == "text/html":
                todo += [u.split("#")[0] for u in links(body.decode(), url) if u.startswith(origin)]
        assert not broken, f"broken after the url got a path: {sorted(broken)}"
        kinds = {urlsplit(u).path.rsplit(".", 1)[-1] for u in seen}
        assert {"css", "jpg", "webp", "png", "js"} <= kinds, kinds
        status, page, _ = fetch(origin + "/blog/2024/one/")
        assert status == 200 and b'href="/css/site.css"' in page
    finally:
        srv.stop()
