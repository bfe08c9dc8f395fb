"""Front matter keys other generators give a meaning to, as a moved post carries them: Pelican's and WordPress's
`status` (a draft stays unpublished), al-folio's `related_posts: false` and `giscus_comments: false`. They were
accepted without a warning and not used: a `status: draft` post was published."""

from __future__ import annotations

import re

import yaml
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post
from test_comments import GISCUS
from test_import_jekyll import front, jekyll_site


def _page(root, path: str) -> BeautifulSoup | None:
    file = root / "output" / path.strip("/") / "index.html"
    return BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser") if file.exists() else None


def test_status_draft_is_not_published_hidden_is_unlisted_and_an_unknown_one_is_a_warning(tmp_path):
    root = make_site(tmp_path / "site", "title: S\nurl: https://example.org\nsearch: false\n")
    for name, status in [("wip", "draft"), ("review", "pending"), ("quiet", "hidden"), ("live", "publish")]:
        write_post(root, f"{name}.md", f"title: {name.title()}\ndate: 2024-05-01\nstatus: {status}", "Words.\n")
    write_post(root, "odd.md", "title: Odd\ndate: 2024-05-02\ntags: [x]\nstatus: archived", "Words.\n")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _page(root, "/blog/2024/wip/") is None and _page(root, "/blog/2024/review/") is None
    assert _page(root, "/blog/2024/quiet/") is not None and _page(root, "/blog/2024/live/") is not None
    home = (root / "output" / "index.html").read_text(encoding="utf-8")
    feed = (root / "output" / "feed.xml").read_text(encoding="utf-8")
    assert "Live" in home and "Quiet" not in home and "Wip" not in feed and "Quiet" not in feed
    assert re.search(
        r"^warning: content/posts/odd\.md:5: status 'archived' is none of draft, .*, built as published$",
        proc.stderr,
        re.M,
    ), proc.stderr
    assert _page(root, "/blog/2024/odd/") is not None
    strict = run_cli("build", "--source", str(root), "--strict")
    assert strict.returncode != 0 and "content/posts/odd.md:5: status 'archived'" in strict.stderr


def test_al_folio_related_posts_false_and_giscus_comments_false(tmp_path):
    root = make_site(tmp_path / "site", f"title: S\nurl: https://example.org\nsearch: false\n{GISCUS}")
    write_post(root, "a.md", "title: A\ndate: 2024-05-01\ntags: [ray]", "A.\n")
    write_post(root, "b.md", "title: B\ndate: 2024-05-02\ntags: [ray]\nrelated_posts: false", "B.\n")
    write_post(root, "c.md", "title: C\ndate: 2024-05-03\ntags: [ray]\ngiscus_comments: false", "C.\n")
    proc = run_cli("build", "--source", str(root), "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    a, b, c = (_page(root, f"/blog/2024/{n}/") for n in "abc")
    assert a is not None and b is not None and c is not None
    assert a.select_one("section.related") is not None and b.select_one("section.related") is None
    assert a.select_one("section#comments") is not None and c.select_one("section#comments") is None


def test_import_carries_related_posts_false(tmp_path):
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nurl: https://ex.org\n",
        {
            "_posts/2020-01-02-a.md": "---\ntitle: a\nrelated_posts: false\n---\nx\n",
            "_posts/2020-01-03-b.md": "---\ntitle: b\nrelated_posts: true\n---\ny\n",
        },
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert front(new / "content/posts/2020-01-02-a.md")["related_posts"] is False
    assert "related_posts" not in front(new / "content/posts/2020-01-03-b.md")
    assert "related_posts" not in proc.stdout + proc.stderr  # read, so not named as left out
    assert yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))["url"] == "https://ex.org/"


def test_a_hugo_series_is_a_tag_that_lists_its_posts(tmp_path):
    """PaperMod's `series:` (a Hugo taxonomy) was accepted and not used: the posts of a series had nothing in
    common on the new site."""
    root = make_site(tmp_path / "site", "title: S\nurl: https://example.org\nsearch: false\n")
    write_post(root, "one.md", "title: Part one\ndate: 2024-05-01\ntags: [go]\nseries: [Go basics]", "One.\n")
    write_post(root, "two.md", "title: Part two\ndate: 2024-05-02\nseries: Go basics", "Two.\n")
    proc = run_cli("build", "--source", str(root), "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = (root / "output/blog/tag/go-basics/index.html").read_text(encoding="utf-8")
    assert "Part one" in listed and "Part two" in listed


def test_a_list_of_authors_and_quartos_author_entries_are_their_names(tmp_path):
    """`author: [Alice, Bob]` and Quarto's `author: [{name: Carol, affiliation: ...}]` were printed as Python
    lists (`['Alice', 'Bob']`) in the feed and the page's JSON-LD."""
    root = make_site(tmp_path / "site", "title: S\nurl: https://example.org\nsearch: false\nauthor: Site Owner\n")
    write_post(root, "two.md", "title: Two\ndate: 2024-05-01\nauthor: [Alice, Bob]", "Two.\n")
    write_post(root, "q.md", "title: Q\ndate: 2024-05-02\nauthor:\n  - name: Carol\n    affiliation: Uni", "Q.\n")
    write_post(root, "none.md", "title: N\ndate: 2024-05-03", "N.\n")
    proc = run_cli("build", "--source", str(root), "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    feed = (root / "output/feed.xml").read_text(encoding="utf-8")
    names = re.findall(r"<entry>.*?<author><name>(.*?)</name></author>", feed, re.S)
    assert sorted(names) == ["Alice, Bob", "Carol", "Site Owner"], names
    page = (root / "output/blog/2024/q/index.html").read_text(encoding="utf-8")
    assert '"author":{"@type":"Person","name":"Carol"}' in page and "affiliation" not in page
