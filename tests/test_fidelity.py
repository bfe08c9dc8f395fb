"""Fidelity of the bundled site to the blog's original feed: text, code, math and images survive."""

from __future__ import annotations

import difflib
import html
import re
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup

from helpers import REPO, SEED, run_cli

ENTRIES = feedparser.parse(str(SEED), sanitize_html=False, resolve_relative_uris=False).entries
MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fidelity") / "out"
    run_cli("build", "--source", str(REPO), "--output", str(out), check=True)
    return out


def page_for(built: Path, entry) -> BeautifulSoup:
    path = built / entry.link.split("://", 1)[1].split("/", 1)[1] / "index.html"
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def feed_html(entry) -> BeautifulSoup:
    return BeautifulSoup(entry.content[0].value, "html.parser")


def normalise(text: str) -> str:
    text = text.replace("↩︎", "").replace("↩", "").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def feed_text(entry) -> str:
    soup = feed_html(entry)
    text = soup.get_text(" ")
    return normalise(MATH.sub(lambda m: " " + (m.group(1) or m.group(2)).strip() + " ", text))


def page_article(soup: BeautifulSoup):
    return soup.select_one("article .post-body")


def page_text(soup: BeautifulSoup) -> str:
    body = page_article(soup)
    for anchor in body.select("a.header-anchor"):
        anchor.decompose()
    for math in body.find_all("math"):
        tex = math.find("annotation").get_text()
        math.replace_with(" " + tex.strip() + " ")
    return normalise(body.get_text(" "))


def feed_math(entry) -> list[str]:
    text = html.unescape(entry.content[0].value)
    found = [(m.group(1) or m.group(2)).strip() for m in MATH.finditer(text)]
    if "ray-oom" in entry.link:  # plain $..$ in the post's text
        found += re.findall(r"\$([^$\s][^$]*?)\$", BeautifulSoup(entry.content[0].value, "html.parser").get_text())
    return found


IDS = [e.link.rstrip("/").rsplit("/", 1)[1] for e in ENTRIES]


def test_seed_has_ten_entries_and_147_math_expressions():
    assert len(ENTRIES) == 10
    assert sum(len(feed_math(e)) for e in ENTRIES) == 147


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_page_text_matches_feed_text(built, entry):
    ours, theirs = page_text(page_for(built, entry)), feed_text(entry)
    ratio = difflib.SequenceMatcher(None, ours.split(" "), theirs.split(" "), autojunk=False).ratio()
    assert ratio >= 0.98, f"text ratio {ratio:.3f}"


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_code_block_is_identical(built, entry):
    theirs = [pre.get_text() for pre in feed_html(entry).find_all("pre")]
    ours = [pre.get_text() for pre in page_article(page_for(built, entry)).find_all("pre")]
    assert ours == theirs


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_math_expression_renders(built, entry):
    body = page_article(page_for(built, entry))
    ours = sorted(m.find("annotation").get_text().strip() for m in body.find_all("math"))
    assert ours == sorted(feed_math(entry))
    assert all(m.find("mrow") or m.find("mi") or m.find("mn") for m in body.find_all("math"))


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_image_is_there_with_its_caption(built, entry):
    soup = feed_html(entry)
    body = page_article(page_for(built, entry))
    ours = [img["src"] for img in body.find_all("img")]
    theirs = [img["src"] if "://" in img["src"] else "https://julianygao.me" + img["src"] for img in soup.find_all("img")]
    assert ours == theirs
    page_captions = normalise(" ".join(c.get_text(" ") for c in body.find_all("figcaption")))
    for caption in soup.select("figcaption, div.caption"):
        assert normalise(caption.get_text(" ")) in page_captions
