"""The feed a build writes: jekyll-feed's shape, original ids, and importing it gives back the same posts."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
import pytest
from helpers import REPO, SEED, run_cli

from site_builder.load import split_front_matter

POSTS = sorted((REPO / "content" / "posts").glob("*.md"))


@pytest.fixture(scope="module")
def built(bundled_build: Path) -> Path:
    return bundled_build  # the bundled site, built once for the run (conftest.py)


def test_feed_keeps_the_seed_feeds_identity(built):
    ours = feedparser.parse(str(built / "feed.xml"))
    seed = feedparser.parse(str(SEED))
    assert ours.bozo == 0
    assert ours.feed.id == seed.feed.id == "https://julianygao.me/feed.xml"
    assert ours.feed.title == seed.feed.title
    links = {link.rel: link.href for link in ours.feed.links}
    assert links == {"self": "https://julianygao.me/feed.xml", "alternate": "https://julianygao.me/"}
    assert [(e.id, e.link, e.title, e.published) for e in ours.entries] == [
        (e.id, e.link, e.title, e.published) for e in seed.entries
    ]
    for mine, theirs in zip(ours.entries, seed.entries, strict=False):
        assert [t.term for t in mine.tags] == [t.term for t in theirs.tags]
        assert mine.summary == theirs.summary
        assert mine.content[0].type == "text/html" and mine.content[0].base == theirs.content[0].base


def test_importing_the_built_feed_gives_back_the_same_posts(built, tmp_path):
    run_cli("import", str(built / "feed.xml"), "--into", str(tmp_path), check=True)
    again = sorted(tmp_path.glob("*.md"))
    assert [p.name for p in again] == [p.name for p in POSTS]
    executable = 0
    for original, reimported in zip(POSTS, again, strict=False):
        meta_a, body_a, _ = split_front_matter(original.read_text(encoding="utf-8"), original.name)
        meta_b, body_b, _ = split_front_matter(reimported.read_text(encoding="utf-8"), reimported.name)
        if meta_a.pop("execute", False):
            # the feed carries what readers see: shown code comes back, hidden checks and settings do not
            executable += 1
            meta_a.pop("exec", None)
            assert meta_b == meta_a, original.name
            shown = re.findall(r"^```(?:python|pycon)(?![^\n]*hide)[^\n]*\n(.*?)^```", body_a, re.S | re.M)
            assert shown and all(code.strip() in body_b for code in shown), original.name
            continue
        assert meta_b == meta_a, original.name
        assert body_b.strip() == body_a.strip(), original.name
    assert executable == 4
