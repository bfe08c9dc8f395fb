"""A post's table of contents and its admonitions (`::: note`, GitHub's `> [!NOTE]`), as the real CLI builds them
and a real headless Chromium shows them: semantics, warnings, the importer's callouts, axe-core at 1280 and 360 px
in light and dark, and no page wider than a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import REPO, chromium, make_site, run_cli, serve_folder, write_post
from test_accessibility import axe_violations, emulate

from site_builder.importer.convert import html_to_markdown
from site_builder.parse import parse

CALLOUTS = """Text before, with a [link](https://example.org).

::: note
A plain note with `code` and a [link](https://example.org).
:::

::: tip Use the *fast* path
A title of its own.
:::

::: important
Important.
:::

::: warning
A warning long enough to wrap onto a second line on a phone, and then a few more words to be sure of it.
:::

::: danger
Danger.
:::

::: correction
the result has shape `(3, 2, 2)`:

```python
print(len([1, 2, 3]))
```
:::

::: notte
An unknown kind.
:::

> [!NOTE]
> A GitHub note.

> [!TIP]
> A GitHub tip.

> [!IMPORTANT]
> A GitHub important.

> [!WARNING]
> A GitHub warning.

> [!CAUTION]
>
> A GitHub caution, its text after a blank line.

> A plain quote.
"""

LONG = """Intro. {lorem}

## First section with `code` and $x^2$

{lorem}

### A subsection with a [link](https://example.org) and a note[^1]

{lorem}

### Another subsection whose title is long enough to wrap in the contents beside the text

{lorem}

## Second section

{lorem}

> ## A heading in a quote is not in the contents

## Third section

{lorem}

[^1]: A footnote.
""".format(lorem="Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut " * 3)

MYST = """```{note}
A MyST note with `code`.
```

````{warning}
:class: dropdown
A warning that holds code:

```python
print(1)
```
````

```{admonition} Your own title
:class: tip
Text.
```

```{toctree}
first.md
```

:::{seealso}
:class: dropdown
The [docs](https://example.org).
:::

:::{toctree}
second.md
:::

```{figure} https://example.org/fig.png
:alt: A figure

Its *caption*.

Its legend.
```

```{topic} A topic
Words of the author's.
```
"""
FEW = "## One\n\na\n\n### Two\n\nb\n"
PAGES = ["/blog/2024/callouts/", "/blog/2024/long/", "/zh/blog/2024/callouts/"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """The site's root and stderr of its build."""
    root = make_site(
        tmp_path_factory.mktemp("toc") / "site",
        "title: Notes\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n",
    )
    write_post(root, "callouts.md", "title: Callouts\ndate: 2024-03-01\ntags: [notes]", CALLOUTS)
    write_post(
        root, "callouts.zh.md", "title: 提示\ndate: 2024-03-01", "::: warning\n小心。\n:::\n\n> [!TIP]\n> 提示。\n"
    )
    write_post(root, "long.md", "title: A long post\ndate: 2024-02-01", LONG)
    write_post(root, "notoc.md", "title: No contents\ndate: 2024-01-02\ntoc: false", LONG)
    write_post(root, "few.md", "title: Few headings\ndate: 2024-01-01", FEW)
    write_post(root, "myst.md", "title: MyST\ndate: 2023-12-01", MYST)
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    yield root, proc.stderr


@pytest.fixture(scope="module")
def site(built) -> Iterator[str]:
    root, _ = built

    with serve_folder(root / "output") as url:
        yield url


def page(root: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_admonitions_are_labelled_notes_with_a_visible_title(built):
    body = page(built[0], PAGES[0]).select_one(".post-body")
    asides = body.select("aside.admonition")
    kinds = [a["class"][1].removeprefix("admonition-") for a in asides]
    ours = ["note", "tip", "important", "warning", "danger", "correction", "note"]
    assert kinds == [*ours, "note", "tip", "important", "warning", "danger"]
    titles = [a.select_one(".admonition-title").get_text() for a in asides]
    assert titles[:7] == ["Note", "Tip: Use the fast path", "Important", "Warning", "Danger", "Correction", "Note"]
    assert titles[7:] == ["Note", "Tip", "Important", "Warning", "Caution"]  # GitHub's own words
    for aside in asides:
        assert aside["role"] == "note"
        title = aside.find(id=aside["aria-labelledby"])
        assert title is not None and "admonition-title" in title["class"] and title is aside.find("p")
    assert len({a["aria-labelledby"] for a in asides}) == len(asides)
    tip = asides[1].select_one(".admonition-title")
    assert tip.select_one(".admonition-kind").get_text() == "Tip: " and tip.find("em").get_text() == "fast"
    assert asides[5].select_one("div.highlight code.language-python"), "the code of a correction is inside it"
    assert asides[11].find_all("p")[1].get_text() == "A GitHub caution, its text after a blank line."
    assert "[!" not in body.get_text()
    quotes = body.find_all("blockquote")
    assert [q.get_text(strip=True) for q in quotes] == ["A plain quote."]


def test_an_unknown_kind_is_a_warning_at_its_line_and_a_note(built):
    root, stderr = built
    line = (root / "content/posts/callouts.md").read_text().split("\n").index("::: notte") + 1
    expected = (
        f"warning: content/posts/callouts.md:{line}: unknown admonition kind 'notte', shown as a note "
        "(did you mean 'note'?)"
    )
    assert expected in stderr.splitlines(), stderr
    assert stderr.count("warning:") == 2, stderr  # `toc: false` is a known key; myst.md's {toctree}


def test_a_myst_note_fence_is_the_sites_note(built):
    root, stderr = built
    body = page(root, "/blog/2023/myst/").select_one(".post-body")
    asides = body.select(".admonition")
    kinds = [a["class"][1] for a in asides]
    assert kinds == ["admonition-note", "admonition-warning", "admonition-tip", "admonition-note", "admonition-note"]
    # `:class: dropdown` folds the warning and the seealso: a <details> each, its title the summary
    assert [a.name for a in asides] == ["aside", "details", "aside", "details", "aside"]
    assert [a.get("open") for a in asides if a.name == "details"] == [None, None]
    titles = [a.select_one(".admonition-title").get_text() for a in asides]
    assert titles == ["Note", "Warning", "Tip: Your own title", "See also", "Note: A topic"]
    assert asides[4].find_all("p")[1].get_text() == "Words of the author's."  # a directive's text is never lost
    figure = body.select_one('img[alt="A figure"]')
    assert figure is not None and figure["src"] == "https://example.org/fig.png", "{figure} is the image"
    caption = figure.find_parent("figure").find("figcaption")  # a figure's caption is its <figcaption>, not the alt
    assert caption is not None and caption.get_text() == "Its caption." and caption.find("em").get_text() == "caption"
    assert figure.find_parent("figure").find_next_sibling("p").get_text() == "Its legend."  # a legend follows it
    # a colon fence's option line left out (its title: the summary)
    assert asides[3].find_all("p")[0].get_text() == "The docs."
    assert asides[0].find_all("p")[1].find("code").get_text() == "code"  # its body is Markdown
    assert asides[1].select_one("div.highlight code.language-python"), "the code inside it is code"
    assert "{" not in body.get_text() and ":class:" not in body.get_text() and "first.md" not in body.get_text()
    assert "second.md" not in body.get_text() and ":::" not in body.get_text()
    line = MYST.split("\n").index("```{toctree}") + 6  # below the front matter write_post writes
    said = (
        f"warning: content/posts/myst.md:{line}: MyST directives with no meaning here: {{toctree}}, {{topic}} (its text "
        "as a note), not shown as directives"
    )
    assert any(w.startswith(said) for w in stderr.splitlines()), stderr


def test_titles_in_the_posts_language(built):
    body = page(built[0], PAGES[2]).select_one(".post-body")
    assert [t.get_text() for t in body.select(".admonition-title")] == ["警告", "提示"]


def test_a_post_with_three_headings_has_its_contents_before_the_text(built):
    soup = page(built[0], PAGES[1])
    nav = soup.select_one("article > nav.toc")
    assert nav is not None and nav.find_next_sibling("div")["class"] == ["post-body"]
    assert nav["aria-label"] == "Contents" and nav.has_attr("data-pagefind-ignore")
    details = nav.find("details")
    assert details.find("summary").get_text() == "Contents" and not details.has_attr("open")
    top = details.find("ol").find_all("li", recursive=False)
    assert [li.a.get_text() for li in top[1:]] == ["Second section", "Third section"]
    assert top[0].a.get_text(" ", strip=True).startswith("First section with code and x 2")
    subs = top[0].find("ol").find_all("a")
    assert [a.get_text() for a in subs] == [
        "A subsection with a link and a note",
        "Another subsection whose title is long enough to wrap in the contents beside the text",
    ]
    assert top[0].a.find("code") and top[0].a.find("math"), "code and math keep their form"
    links = nav.find_all("a")
    assert not any(a.find("a") or a.find("sup") for a in links), "no link or footnote mark inside an entry"
    for a in links:
        target = soup.find(id=a["href"][1:])
        assert target is not None and target.name in ("h2", "h3")
    assert len(links) == 5, "a heading inside a quote is not listed"


def test_no_contents_with_toc_false_or_fewer_than_three_headings(built):
    root, _ = built
    for url in ("/blog/2024/notoc/", "/blog/2024/few/", PAGES[0]):
        assert page(root, url).select_one("nav.toc") is None, url
    assert 'class="toc' not in (root / "output" / "feed.xml").read_text(encoding="utf-8")


def test_the_parse_stage_names_the_line_of_a_bad_kind_in_an_alert():
    _, env = parse("Text.\n\n> [!NOTEE]\n> body\n", {"rel": "a.md", "line_offset": 5})
    [warning] = env["warnings"]
    assert (warning.file, warning.line) == ("a.md", 7)
    assert str(warning) == "a.md:7: unknown admonition kind 'NOTEE', shown as a note (did you mean 'note'?)"


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])  # each scheme, each width, once
def test_no_axe_violations(site, width, mode):
    assert not axe_violations(site, PAGES, width, mode)


def _layout(site: str, width: int) -> dict[str, dict]:
    """Per page: its scroll width, and where the contents and the text are."""
    driver = chromium()
    found = {}
    try:
        emulate(driver, width)
        for path in PAGES:
            driver.get(site + path)
            found[path] = driver.execute_script(
                """const toc = document.querySelector('.toc'), body = document.querySelector('.post-body');
                const box = e => e && e.getBoundingClientRect();
                const link = toc && toc.querySelector('a');
                return {scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
                        toc: toc && box(toc).toJSON(), body: box(body).toJSON(),
                        linkShown: !!link && link.checkVisibility(),
                        summaryShown: !!toc && toc.querySelector('summary').checkVisibility()};"""
            )
        if width < 600:  # a tap on "Contents" opens it
            driver.get(site + PAGES[1])
            driver.find_element("css selector", ".toc summary").click()
            shown = driver.execute_script("return document.querySelector('.toc a').checkVisibility()")
            found["opened"] = {"linkShown": shown}
    finally:
        driver.quit()
    return found


def test_contents_beside_the_text_on_wide_screens(site):
    found = _layout(site, 1280)
    for path, box in found.items():
        assert box["scroll"] <= box["client"], path
    long = found[PAGES[1]]
    assert long["linkShown"] and not long["summaryShown"]
    assert long["toc"]["left"] >= long["body"]["right"] + 16 and long["toc"]["right"] <= 1280


def test_contents_fold_above_the_text_on_phones_and_nothing_scrolls_sideways(site):
    found = _layout(site, 360)
    for path in PAGES:
        assert found[path]["scroll"] <= found[path]["client"] <= 360, path
    long = found[PAGES[1]]
    assert long["summaryShown"] and not long["linkShown"]
    assert long["toc"]["bottom"] <= long["body"]["top"] and long["toc"]["right"] <= 360
    assert found["opened"]["linkShown"]


CALLOUT_HTML = [
    (  # al-folio: `> ##### TIP` then `{: .block-tip }`
        '<blockquote class="block-tip"><h5 id="tip">TIP</h5><p>Give <em>advice</em>.</p></blockquote>',
        "::: tip\nGive *advice*.\n:::",
    ),
    ('<blockquote class="block-warning"><h5>WARNING</h5><p>Careful.</p></blockquote>', "::: warning\nCareful.\n:::"),
    ('<blockquote class="block-danger"><h5>Do not</h5><p>Bad.</p></blockquote>', "::: danger Do not\nBad.\n:::"),
    ('<blockquote class="prompt-info"><p>Chirpy.</p></blockquote>', "::: info\nChirpy.\n:::"),
    ('<p class="notice--warning">Minimal Mistakes.</p>', "::: warning\nMinimal Mistakes.\n:::"),
    (
        '<div class="admonition warning"><p class="admonition-title">Mind the gap</p><p>MkDocs.</p></div>',
        "::: warning Mind the gap\nMkDocs.\n:::",
    ),
    (
        '<div class="markdown-alert markdown-alert-caution"><p class="markdown-alert-title">Caution</p><p>GitHub.</p>'
        "</div>",
        "::: caution\nGitHub.\n:::",
    ),
    (  # ours, with its title of its own
        '<aside class="admonition admonition-tip" role="note" aria-labelledby="admonition_1"><p class="admonition-title"'
        ' id="admonition_1"><span class="admonition-kind">Tip: </span>Use the <em>fast</em> path</p><p>Ours.</p></aside>',
        "::: tip Use the *fast* path\nOurs.\n:::",
    ),
    (
        '<blockquote class="block-tip"><p>outer</p><blockquote class="block-danger"><p>inner</p></blockquote></blockquote>',
        ":::: tip\nouter\n\n::: danger\ninner\n:::\n::::",
    ),
    (
        '<div class="alert alert-dismissible">Not a kind.</div><blockquote><p>Plain.</p></blockquote>',
        "Not a kind.\n\n> Plain.",
    ),
]


@pytest.mark.parametrize("html, markdown", CALLOUT_HTML)
def test_importer_maps_callouts_to_admonitions(html, markdown):
    assert html_to_markdown(html) == markdown + "\n"


def test_an_imported_al_folio_post_shows_its_callouts_as_admonitions(tmp_path):
    root = make_site(tmp_path / "site")
    feed = tmp_path / "feed.xml"
    content = (
        '<p>Intro.</p><blockquote class="block-tip"><h5 id="tip">TIP</h5><p>A tip.</p></blockquote>'
        '<blockquote class="block-warning"><h5 id="warning">WARNING</h5><p>A warning.</p></blockquote>'
        '<blockquote class="block-danger"><h5 id="danger">DANGER</h5><p>A danger.</p></blockquote>'
    )
    feed.write_text(
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>B</title>'
        "<id>https://example.org/feed.xml</id><updated>2024-01-01T00:00:00Z</updated>"
        '<entry><title>Callouts</title><link href="https://example.org/blog/2024/callouts/" rel="alternate"/>'
        "<id>https://example.org/blog/2024/callouts</id><published>2024-01-01T00:00:00Z</published>"
        f'<updated>2024-01-01T00:00:00Z</updated><content type="html">{content.replace("<", "&lt;")}</content>'
        "</entry></feed>",
        encoding="utf-8",
    )
    run_cli("import", str(feed), "--into", "content/posts", cwd=root, check=True)
    text = (root / "content/posts/callouts.md").read_text(encoding="utf-8")
    assert "::: tip\nA tip.\n:::\n\n::: warning\nA warning.\n:::\n\n::: danger\nA danger.\n:::\n" in text
    run_cli("build", "--source", str(root), check=True)
    asides = page(root, "/blog/2024/callouts/").select("aside.admonition")
    assert [(a["class"][1], a.p.get_text()) for a in asides] == [
        ("admonition-tip", "Tip"),
        ("admonition-warning", "Warning"),
        ("admonition-danger", "Danger"),
    ]


def test_the_bundled_corrections_are_correction_blocks():
    """The editorial corrections of the bundled posts: `::: correction` blocks, none left as a quote."""
    counts = {}
    for name in ("numpy-bug.md", "fast-ray-framework.md", "motion-transform.md"):
        text = (REPO / "content/posts" / name).read_text(encoding="utf-8")
        assert not re.search(r"^> \*\*Correction", text, re.M), name
        tokens, _ = parse(text.split("\n---\n", 1)[1])
        opened = [t for t in tokens if t.type == "admonition_open"]
        assert all(t.meta["kind"] == "correction" for t in opened), name
        counts[name] = len(opened)
    assert counts == {"numpy-bug.md": 5, "fast-ray-framework.md": 1, "motion-transform.md": 1}


def test_headings_that_all_sit_below_h2_move_up_to_start_at_h2():
    """`###` first (as the bundled Ray post writes them): h2 under the title's h1, no level skipped; a post with an
    h2 keeps its levels."""
    tokens, _ = parse("### Setup\n\ntext\n\n#### Detail\n\n> ### Quoted\n\n### Results\n")
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2", "h3", "h2", "h2"]
    tokens, _ = parse("## Part\n\n#### Deep\n")
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2", "h4"]
