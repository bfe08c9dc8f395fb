"""Sites big enough that the build splits its work over every core: same pages, feeds and errors as small ones."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
import pytest
from helpers import assert_one_line_error, make_site, run_cli, write_post

POSTS = 400  # with two posts a page: over 600 pages, so pages are rendered by several processes


def _post(root: Path, i: int) -> Path:
    return write_post(
        root,
        f"p{i:03d}.md",
        f"title: Post number {i}\ndate: 2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z\ntags: [t{i % 7}]",
        f"Text of post {i}, with $x_{{{i}}}^2$.\n\n```python\nprint({i} * 2)\n```\n",
    )


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    root = make_site(
        tmp_path_factory.mktemp("big") / "site",
        "title: Big\nurl: https://big.example\nposts_per_page: 2\nfeed_limit: 0\n",
    )
    for i in range(POSTS):
        _post(root, i)
    run_cli("build", "--source", str(root), check=True)
    return root


def test_every_post_page_and_list_is_written(big):
    out = big / "output"
    for i in range(POSTS):
        html = (out / "blog" / "2024" / f"p{i:03d}" / "index.html").read_text()
        assert f"Post number {i}</h1>" in html and f'<span class="mi">{i}</span>' in html
    assert "Post number 399" in (out / "index.html").read_text()  # newest first
    assert "Post number 0<" in (out / "page" / "200" / "index.html").read_text()
    for t in range(7):
        tag_page = (out / "blog" / "tag" / f"t{t}" / "index.html").read_text()
        assert len(re.findall(r'class="card"', tag_page)) == len(range(t, POSTS, 7))


def test_feed_and_sitemap_list_every_post(big):
    feed = feedparser.parse((big / "output" / "feed.xml").read_bytes())
    assert feed.bozo == 0 and len(feed.entries) == POSTS
    assert feed.entries[0].title == "Post number 399"
    sitemap = (big / "output" / "sitemap.xml").read_text()
    assert all(f"/blog/2024/p{i:03d}/</loc>" in sitemap for i in range(POSTS))


def test_rebuilds_after_a_parallel_build(big):
    """Nothing changed: nothing written. One post edited: its page and the feed show it, the rest stays."""
    out = run_cli("build", "--source", str(big), check=True).stdout
    assert "0 rendered, 0 pages rendered, 0 files written" in out
    post = big / "content" / "posts" / "p123.md"
    post.write_text(
        post.read_text()
        .replace("Post number 123", "Post number 123, edited")
        .replace("Text of post 123", "New text of post 123")
    )
    out = run_cli("build", "--source", str(big), check=True).stdout
    assert ": 1 rendered," in out
    feed = feedparser.parse((big / "output" / "feed.xml").read_bytes())
    assert len(feed.entries) == POSTS
    assert [e.title for e in feed.entries if "123" in e.title] == ["Post number 123, edited"]
    assert "New text of post 123" in next(e for e in feed.entries if "123" in e.title).content[0].value
    assert "New text of post 123" in (big / "output" / "blog" / "2024" / "p123" / "index.html").read_text()


@pytest.mark.parametrize("bad", [0, 1, POSTS - 1])
def test_a_bad_post_among_many_is_one_line_error_and_output_kept(big, tmp_path, bad):
    """Whichever process reads the bad post (this one or a worker), the user sees one line naming it."""
    import shutil

    root = tmp_path / "site"
    shutil.copytree(big, root)
    before = (root / "output" / "index.html").read_text()
    path = root / "content" / "posts" / f"p{bad:03d}.md"
    path.write_text(path.read_text().replace("date: 2024", "date: [2024"))
    proc = run_cli("build", "--source", str(root))
    line = assert_one_line_error(proc, rf"p{bad:03d}\.md:\d+: invalid YAML front matter")
    assert "content/posts" in line
    assert (root / "output" / "index.html").read_text() == before
