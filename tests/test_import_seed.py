"""Importing the blog's own feed (the seed): front matter, math, code, galleries, footnotes, --force."""

from __future__ import annotations

import html
import re
from datetime import datetime
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import feedparser
import pytest
import yaml
from bs4 import BeautifulSoup

from site_builder.config import SiteConfig
from site_builder.importer import ImportReport, import_feed
from site_builder.load import load_post
from site_builder.parse import parse
from site_builder.render import render_post

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "tests" / "data" / "strawberry-fields.atom.xml"
ENTRIES = feedparser.parse(SEED.read_bytes(), sanitize_html=False, resolve_relative_uris=False).entries
SLUGS = [e.link.rstrip("/").rsplit("/", 1)[1] for e in ENTRIES]
TEX = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, ImportReport, list[str]]:
    out = tmp_path_factory.mktemp("seed") / "posts"
    lines: list[str] = []
    report = import_feed(SEED, out, log=lines.append)
    return out, report, lines


@pytest.fixture(scope="module")
def posts(imported):
    out, _, _ = imported
    cfg = SiteConfig(root=out.parent, url="https://julianygao.me")
    return {p.stem: load_post(p, cfg) for p in sorted(out.glob("*.md"))}


@pytest.fixture(scope="module")
def rendered(posts):
    return {slug: render_post(post) for slug, post in posts.items()}


def front(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def feed_tex(entry) -> list[str]:
    found = [(m.group(1) or m.group(2)).strip() for m in TEX.finditer(html.unescape(entry.content[0].value))]
    if "ray-oom" in entry.link:
        text = BeautifulSoup(entry.content[0].value, "html.parser").get_text()
        found += re.findall(r"\$([^$\s][^$]*?)\$", text)
    return found


def test_ten_posts_named_after_the_link_path(imported):
    out, report, lines = imported
    assert sorted(p.name for p in report.written) == sorted(f"{s}.md" for s in SLUGS)
    assert report.skipped == []
    assert sorted(p.name for p in out.glob("*.md")) == sorted(f"{s}.md" for s in SLUGS)
    assert [line for line in lines if line.startswith("wrote ")] == [f"wrote {p}" for p in report.written]


def test_only_warning_is_the_literal_cls_tag(imported):
    _, report, _ = imported
    assert len(report.warnings) == 1
    assert "multimodal-notes.md" in report.warnings[0] and "<CLS>" in report.warnings[0]


def test_front_matter_fields_in_order(imported):
    out, _, _ = imported
    text = (out / "ray-oom.md").read_text(encoding="utf-8")
    meta = front(out / "ray-oom.md")
    assert list(meta) == ["title", "date", "updated", "tags", "lang", "permalink", "id", "summary"]
    assert meta["title"] == "Ray OOM Prevention: Best Practices"
    entry = next(e for e in ENTRIES if "ray-oom" in e.link)
    assert datetime.fromisoformat(meta["date"]) == datetime.fromisoformat(entry.published)
    assert meta["date"].endswith("+00:00")
    assert meta["tags"] == ["programming", "machine-learning", "ray"]
    assert meta["lang"] == "en"
    assert meta["permalink"] == "/blog/2025/ray-oom/"
    assert meta["id"] == "https://julianygao.me/blog/2025/ray-oom"
    assert meta["summary"] == "Background"
    assert text.startswith("---\ntitle: 'Ray OOM Prevention: Best Practices'\n")


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_ids_titles_dates_permalinks_kept(posts, entry):
    post = posts[entry.link.rstrip("/").rsplit("/", 1)[1]]
    assert post.id == entry.id
    assert post.title == entry.title
    assert post.date == datetime.fromisoformat(entry.published)
    assert post.permalink == entry.link.split("julianygao.me", 1)[1]
    assert post.tags == [t.term for t in entry.tags]


def test_chinese_posts_are_zh_english_posts_en(posts):
    assert posts["learning-in-the-llm-era"].lang == "zh"
    assert posts["baby-poem"].lang == "zh"
    assert {s for s, p in posts.items() if p.lang == "en"} == set(SLUGS) - {"learning-in-the-llm-era", "baby-poem"}


def test_all_147_math_expressions_survive_with_their_tex(posts, rendered):
    assert sum(r.math_count for r in rendered.values()) == 147
    for entry in ENTRIES:
        slug = entry.link.rstrip("/").rsplit("/", 1)[1]
        soup = BeautifulSoup(rendered[slug].html, "html.parser")
        ours = sorted(a.get_text().strip() for a in soup.find_all("annotation"))
        assert ours == sorted(feed_tex(entry)), slug


def test_math_is_dollar_delimited_and_not_escaped(posts):
    body = posts["motion-transform"].body
    assert "\\(" not in body and "\\[" not in body
    assert "$$\n\\begin{align}\\begin{bmatrix}{}^{B}v_M\\\\{}^B\\omega_{M'}\\end{bmatrix} &= " in body
    ray = posts["ray-oom"].body
    for tex in ("$M_{\\min}$", "$C$", "$N$", "$N \\cdot K$", "$K = \\lfloor M_{\\min} / C \\rfloor$"):
        assert tex in ray
    for post in posts.values():
        for tok in parse(post.body)[0]:
            for t in [tok, *(tok.children or [])]:
                if t.type.startswith("math"):
                    assert "\\_" not in t.content and "\\*" not in t.content and "&amp;" not in t.content


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_code_blocks_identical_to_the_feed(posts, entry):
    slug = entry.link.rstrip("/").rsplit("/", 1)[1]
    theirs = [code.get_text() for code in BeautifulSoup(entry.content[0].value, "html.parser").select("pre code")]
    ours = [t.content for t in parse(posts[slug].body)[0] if t.type == "fence"]
    assert ours == theirs


def test_code_languages(posts):
    infos = [t.info for t in parse(posts["ray-oom"].body)[0] if t.type == "fence"]
    assert infos == ["", "python", "", "python"], "Rouge plaintext has no language"


def test_poem_becomes_a_bilingual_block_with_its_lines(posts, rendered):
    entry = next(e for e in ENTRIES if "baby-poem" in e.link)
    theirs = [
        (p.strong.get_text(), p.em.get_text())
        for p in BeautifulSoup(entry.content[0].value, "html.parser").find_all("p")
        if p.find("br")
    ]
    assert len(theirs) == 4
    body = posts["baby-poem"].body.strip("\n") + "\n"
    assert body.startswith("> To my wife, and my newborn baby\n\n::: bilingual\n") and body.endswith("\n:::\n")
    assert "\\\n" not in body, "no hard-break markers: a bilingual block's lines are its own"
    block = body.split("::: bilingual\n", 1)[1].rsplit("\n:::", 1)[0]
    stanzas = [stanza.split("\n") for stanza in block.split("\n\n")]
    assert stanzas == [[f"**{zh}**", f"*{en}*"] for zh, en in theirs]
    soup = BeautifulSoup(rendered["baby-poem"].html, "html.parser")
    shown = [
        [(span["lang"], span.get_text()) for span in p.find_all("span", class_="bilingual-line")]
        for p in soup.select("div.bilingual > p.bilingual-stanza")
    ]
    assert shown == [[("zh-Hans", zh), ("en", en)] for zh, en in theirs]
    assert len(soup.find_all("br", class_="bilingual-br")) == 4 and len(soup.find_all("br")) == 4


def test_galleries_hold_every_image_of_the_seed(posts, rendered):
    for slug, galleries, images in (("urbex-1", 2, 9), ("urbex-2", 14, 37)):
        body = posts[slug].body
        assert body.count("::: gallery") == galleries
        soup = BeautifulSoup(rendered[slug].html, "html.parser")
        assert len(soup.select("figure.gallery")) == galleries
        entry = next(e for e in ENTRIES if slug in e.link)
        theirs = [
            "https://julianygao.me" + img["src"]
            for img in BeautifulSoup(entry.content[0].value, "html.parser").find_all("img")
        ]
        assert [img["src"] for img in soup.find_all("img")] == theirs
        assert len(theirs) == images
    urbex2 = posts["urbex-2"].body
    assert "::: gallery\n![](https://julianygao.me/assets/img/blogs/urbex-2/sf-2-1.jpeg)\n" in urbex2
    assert ":::\n: Abandoned warehouse on SF piers; Pier 90 silos\n" in urbex2
    assert "::: gallery row\n![](https://julianygao.me/assets/img/blogs/urbex-2/hp-2-a.jpeg)" in urbex2
    assert "::: gallery grid\n![](https://julianygao.me/assets/img/blogs/urbex-2/av-1.jpeg)" in urbex2
    assert "::: gallery row\n![](https://julianygao.me/assets/img/blogs/urbex-1/graf.jpeg)" in posts["urbex-1"].body


def test_single_captioned_images_are_figures(posts, rendered):
    assert (
        "\n\n![The 16th street railway station, Oakland](https://julianygao.me/assets/img/blogs/urbex-1/station.jpeg)\n\n"
        in posts["urbex-1"].body
    )
    soup = BeautifulSoup(rendered["multimodal-notes"].html, "html.parser")
    captions = [f.get_text() for f in soup.find_all("figcaption")]
    assert "Vision Transformer Architecture" in captions and len(captions) == 5


def test_urbex1_footnotes(posts, rendered):
    body = posts["urbex-1"].body
    assert body.count("[^1]") == 2 and body.count("[^2]") == 2 and body.count("[^3]") == 2
    assert "\n[^1]: Elizabeth Blasius, *Urban Exploration as Creative Practice*, [MAS Context]" in body
    assert "↩" not in body and "reversefootnote" not in body
    soup = BeautifulSoup(rendered["urbex-1"].html, "html.parser")
    assert len(soup.select("li.footnote-item")) == 3
    assert len(soup.select("sup.footnote-ref")) == 3


def test_literal_cls_stays_visible(posts, rendered):
    assert "only \\<CLS> token" in posts["multimodal-notes"].body
    text = BeautifulSoup(rendered["multimodal-notes"].html, "html.parser").get_text()
    assert "only <CLS> token" in text


def test_markdown_is_tidy(imported):
    out, _, _ = imported
    for path in out.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert "\n\n\n" not in text, path.name
        assert text.endswith("\n") and not text.endswith("\n\n"), path.name
        body = text.split("---\n", 2)[2]
        in_fence = False
        for line in body.split("\n"):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            if not in_fence:
                assert line == line.rstrip(), f"{path.name}: trailing space in {line!r}"
        assert "\t" not in body.replace("```", "")


def test_bundled_content_is_exactly_what_the_importer_writes(imported):
    """content/posts/ is generated: re-importing the seed reproduces it byte for byte, except the posts the
    author has since made executable (execute: true), which now hold added checks and corrections."""
    out, _, _ = imported
    compared = 0
    for path in sorted(out.glob("*.md")):
        committed = (REPO / "content" / "posts" / path.name).read_text(encoding="utf-8")
        if "\nexecute: true\n" in committed.split("\n---\n", 1)[0]:
            continue
        compared += 1
        assert committed == path.read_text(encoding="utf-8"), path.name
    assert compared == 6


def _own_feed(posts: dict, rendered: dict) -> str:
    """An Atom feed of the builder's own HTML for these posts (what `build` publishes)."""
    entries = []
    for slug, post in posts.items():
        link = "https://julianygao.me" + post.permalink
        lang = f" xml:lang={quoteattr(post.lang)}" if post.lang != "en" else ""
        cats = "".join(f"<category term={quoteattr(t)}/>" for t in post.tags)
        entries.append(
            f'<entry{lang}><title type="html">{escape(post.title)}</title>'
            f'<link href={quoteattr(link)} rel="alternate" type="text/html"/>'
            f"<published>{post.date.isoformat()}</published><updated>{post.updated.isoformat()}</updated>"
            f"<id>{escape(post.id)}</id>"
            f'<content type="html" xml:base={quoteattr(link)}>{escape(rendered[slug].html)}</content>{cats}'
            f'<summary type="html">{escape(post.summary)}</summary></entry>'
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">'
        "<title>Strawberry Fields</title><id>https://julianygao.me/feed.xml</id>"
        '<updated>2026-06-03T19:16:00+00:00</updated><link href="https://julianygao.me/"/>'
        + "".join(entries)
        + "</feed>"
    )


def test_importing_our_own_feed_gives_back_the_same_markdown(imported, posts, rendered, tmp_path):
    out, _, _ = imported
    feed = tmp_path / "feed.xml"
    feed.write_text(_own_feed(posts, rendered), encoding="utf-8")
    report = import_feed(feed, tmp_path / "again", log=lambda _: None)
    assert report.warnings == []
    for path in sorted(out.glob("*.md")):
        again = (tmp_path / "again" / path.name).read_text(encoding="utf-8")
        assert again == _as_shown(path.read_text(encoding="utf-8")), path.name


def _as_shown(markdown: str) -> str:
    """The Markdown as its page shows it: headings that all sit below `##` are moved up to start at `##` (parse.py
    does so under the title's h1), so our own feed gives them back at that level."""
    lines, fenced, headings = markdown.split("\n"), False, []
    for i, line in enumerate(lines):
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#{1,6}) ", line)):
            headings.append((i, len(m.group(1))))
    shift = min((n for _, n in headings), default=2) - 2
    for i, n in headings if shift > 0 else ():
        lines[i] = "#" * (n - shift) + lines[i][n:]
    return "\n".join(lines)


def test_second_import_skips_and_leaves_files_untouched(imported, tmp_path):
    out = tmp_path / "posts"
    import_feed(SEED, out, log=lambda _: None)
    target = out / "ray-oom.md"
    target.write_text(
        "---\ntitle: edited by hand\ndate: 2025-01-01\nid: https://julianygao.me/blog/2025/ray-oom\n---\n\nMine.\n",
        encoding="utf-8",
    )
    before = {p.name: p.read_bytes() for p in out.glob("*.md")}
    lines: list[str] = []
    report = import_feed(SEED, out, log=lines.append)
    assert report.written == [] and len(report.skipped) == 10
    assert report.warnings == [], "skipped posts are not converted, so they warn about nothing"
    assert {p.name: p.read_bytes() for p in out.glob("*.md")} == before
    assert f"skipped {out / 'ray-oom.md'} (exists; use --force to overwrite)" in lines
    assert len(list(out.iterdir())) == 10, "no temporary files left behind"

    report = import_feed(SEED, out, force=True, log=lambda _: None)
    assert len(report.written) == 10 and report.skipped == []
    assert target.read_text(encoding="utf-8") == (imported[0] / "ray-oom.md").read_text(encoding="utf-8")


def test_a_different_post_with_the_same_name_is_not_taken_over(tmp_path):
    out = tmp_path / "posts"
    out.mkdir()
    other = out / "ray-oom.md"
    other.write_text("---\ntitle: Another post\ndate: 2020-01-01\nid: urn:other\n---\n\nOther.\n", encoding="utf-8")
    report = import_feed(SEED, out, log=lambda _: None)
    assert other.read_text(encoding="utf-8").endswith("Other.\n")
    assert (out / "ray-oom-2.md") in report.written
    assert front(out / "ray-oom-2.md")["id"] == "https://julianygao.me/blog/2025/ray-oom"


def test_truncated_feed_imports_what_is_complete_with_a_warning(tmp_path):
    feed = tmp_path / "cut.xml"
    feed.write_bytes(SEED.read_bytes()[:90_000])
    report = import_feed(feed, tmp_path / "posts", log=lambda _: None)
    assert report.warnings[0].startswith(f"{feed}:") and "not well-formed" in report.warnings[0]
    assert [p.name for p in report.written][:4] == [f"{s}.md" for s in SLUGS[:4]]
    assert (tmp_path / "posts" / "multimodal-notes.md").read_text(encoding="utf-8") == (
        (REPO / "content" / "posts" / "multimodal-notes.md").read_text(encoding="utf-8")
    )
