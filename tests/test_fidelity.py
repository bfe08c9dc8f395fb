"""Fidelity of the bundled site to the blog's original feed: text, code, math and images survive."""

from __future__ import annotations

import difflib
import html
import re
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import SEED

ENTRIES = feedparser.parse(str(SEED), sanitize_html=False, resolve_relative_uris=False).entries
MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


@pytest.fixture(scope="module")
def built(bundled_build: Path) -> Path:
    return bundled_build  # the bundled site, built once for the run (conftest.py)


def page_for(built: Path, entry) -> BeautifulSoup:
    path = built / entry.link.split("://", 1)[1].split("/", 1)[1] / "index.html"
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def feed_html(entry) -> BeautifulSoup:
    return BeautifulSoup(entry.content[0].value, "html.parser")


def normalise(text: str) -> str:
    text = text.replace("↩︎", "").replace("↩", "").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def feed_codes(entry) -> list[str]:
    return [pre.get_text() for pre in feed_html(entry).find_all("pre")]


def feed_text(entry, keep_codes: list[str] | None = None) -> str:
    """The feed entry's text; code blocks not in `keep_codes` (corrected ones) left out."""
    soup = feed_html(entry)
    if keep_codes is not None:
        for pre in soup.find_all("pre"):
            if pre.get_text() not in keep_codes:
                pre.decompose()
    text = soup.get_text(" ")
    return normalise(MATH.sub(lambda m: " " + (m.group(1) or m.group(2)).strip() + " ", text))


def page_article(soup: BeautifulSoup):
    return soup.select_one("article .post-body")


NOTE = re.compile(r"^\s*(Correction|Executable check):")


def notes(body) -> list:
    """The visible notes an executable post adds: `::: correction` blocks (with the code that checks them), and
    `> **Executable check:** ...` (or `> **Correction:** ...`) quotes."""
    quotes = [q for q in body.find_all("blockquote") if NOTE.match(q.get_text())]
    return body.select("aside.admonition-correction") + quotes


def corrections(body) -> int:
    return sum(1 for q in notes(body) if q.name == "aside" or q.get_text().strip().startswith("Correction"))


def page_code(body) -> list[str]:
    """The code blocks of the page (not the outputs shown under them)."""
    return [div.find("pre").get_text() for div in body.select("div.highlight")]


def without_additions(body, feed_codes: list[str]):
    """The page as the author wrote it: no outputs, figures or notes, no code blocks the checks added."""
    for extra in body.select(".output, .exec-figure, .exec-error"):
        extra.decompose()
    for quote in notes(body):
        quote.decompose()
    for div in body.select("div.highlight"):
        if div.find("pre").get_text() not in feed_codes:
            div.decompose()
    return body


def page_text(soup: BeautifulSoup, feed_codes: list[str]) -> str:
    body = without_additions(page_article(soup), feed_codes)
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
    """The author's words survive; what executable posts add (outputs, checks, marked notes) is left out,
    and a corrected code block is compared with neither side's version."""
    soup = page_for(built, entry)
    kept = [code for code in feed_codes(entry) if code in page_code(page_article(page_for(built, entry)))]
    ours, theirs = page_text(soup, feed_codes(entry)), feed_text(entry, kept)
    ratio = difflib.SequenceMatcher(None, ours.split(" "), theirs.split(" "), autojunk=False).ratio()
    assert ratio >= 0.98, f"text ratio {ratio:.3f}"


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_code_block_is_identical(built, entry):
    """Every code block of the feed is on the page, in order and verbatim, except corrected ones, each of
    which has a visible Correction note; posts that do not execute have exactly the feed's blocks."""
    theirs = feed_codes(entry)
    body = page_article(page_for(built, entry))
    ours = page_code(body)
    if not notes(body):
        assert ours == theirs
        return
    present = [code for code in theirs if code in ours]
    assert [code for code in ours if code in present] == present, "the original blocks keep their order"
    assert len(theirs) - len(present) <= corrections(body), "a code block changed without a Correction note"


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
    theirs = [
        img["src"] if "://" in img["src"] else "https://julianygao.me" + img["src"] for img in soup.find_all("img")
    ]
    assert ours == theirs
    page_captions = normalise(" ".join(c.get_text(" ") for c in body.find_all("figcaption")))
    for caption in soup.select("figcaption, div.caption"):
        assert normalise(caption.get_text(" ")) in page_captions


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_heading_keeps_its_id(built, entry):
    """A link to a section of the old site (`/blog/2025/multimodal-notes/#pi_0-flow-model`) still lands on it: each
    heading's id is the original's (kramdown's, with a formula's TeX in it), and each is a heading of the page."""
    theirs = [h["id"] for h in feed_html(entry).find_all(re.compile("^h[1-6]$")) if h.get("id")]
    ours = {h["id"] for h in page_article(page_for(built, entry)).find_all(re.compile("^h[1-6]$")) if h.get("id")}
    assert [i for i in theirs if i not in ours] == []
