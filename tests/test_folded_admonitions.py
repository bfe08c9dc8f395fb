"""Admonitions as other tools write them (MkDocs' `!!!`/`???`, Quarto's callouts, Pandoc's `{.warning}` divs,
sphinx-design's `{dropdown}`) and folded ones (Obsidian's `> [!TIP]-`), as the real CLI builds them and a real
headless Chromium shows them: a folded one is a `<details>` a reader opens by its title."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import built_posts, chromium, post_body, serve_folder
from test_accessibility import axe_violations, emulate

from site_builder.parse import parse

POST = """Intro.

> [!TIP]- A folded tip
> Hidden until opened.

> [!WARNING]+ An open warning
> Shown at first.

!!! note "MkDocs title"
    MkDocs *body*.

!!! danger
    No title of its own.

??? tip "Folded in MkDocs"
    Folded body.

???+ warning
    Open body.

::: {.callout-important collapse="true"}
## Quarto heading title
Quarto body.
:::

::: {.callout-tip title="Attribute title"}
Shown callout.
:::

::: callout-caution
Caution callout.
:::

::: {.warning}
Pandoc div.
:::

```{dropdown} Click me
Dropdown body.
```

:::{dropdown} Open one
:open:
:color: danger
Open dropdown.
:::

Outro.
"""
PATH = "/blog/2024/folded/"
# (element, kind, open, title, body) of each admonition, in order
EXPECTED = [
    ("details", "tip", False, "Tip: A folded tip", "Hidden until opened."),
    ("details", "warning", True, "Warning: An open warning", "Shown at first."),
    ("aside", "note", False, "Note: MkDocs title", "MkDocs body."),
    ("aside", "danger", False, "Danger", "No title of its own."),
    ("details", "tip", False, "Tip: Folded in MkDocs", "Folded body."),
    ("details", "warning", True, "Warning", "Open body."),
    ("details", "important", False, "Important: Quarto heading title", "Quarto body."),
    ("aside", "tip", False, "Tip: Attribute title", "Shown callout."),
    ("aside", "danger", False, "Caution", "Caution callout."),
    ("aside", "warning", False, "Warning", "Pandoc div."),
    ("details", "note", False, "Note: Click me", "Dropdown body."),
    ("details", "danger", True, "Danger: Open one", "Open dropdown."),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    yield built_posts(
        tmp_path_factory.mktemp("folded") / "site", {"folded.md": ("title: Folded\ndate: 2024-05-01", POST)}
    )


@pytest.fixture(scope="module")
def site(built) -> Iterator[str]:
    with serve_folder(built[0] / "output") as url:
        yield url


def test_every_syntax_is_an_admonition_and_folded_ones_are_details(built):
    root, stderr = built
    body = post_body(root, PATH)
    found = []
    for box in body.select(".admonition"):
        title = box.select_one(".admonition-title")
        assert title.name == ("summary" if box.name == "details" else "p")
        assert title.parent is box and box.find(recursive=False) is title  # the summary first: it opens the box
        text = " ".join(p.get_text() for p in box.find_all("p", recursive=False) if p is not title)
        kind = box["class"][1].removeprefix("admonition-")
        found.append((box.name, kind, box.has_attr("open"), title.get_text(), text))
    assert found == EXPECTED
    assert body.select_one(".admonition-note em").get_text() == "body"  # MkDocs' indented body is Markdown
    assert not body.find("h2"), "Quarto's first heading is the callout's title, not a heading of the post"
    for raw in ("!!!", "???", ":::", "{.", "[!", "collapse", ":open:", "{dropdown}"):
        assert raw not in body.get_text(), raw
    assert [p.get_text() for p in body.find_all("p", recursive=False)] == ["Intro.", "Outro."]
    assert "warning:" not in stderr, stderr


@pytest.mark.parametrize(
    "text",
    [
        "!!!\n\nWow.\n",  # no kind: a paragraph
        "Wow!!! such speed\n",
        "```\n??? P-file is not authorized\n```\n",  # in code (MATLAB's own message)
        "::: {.column-margin}\nA margin note.\n:::\n",  # a Pandoc div that is not a callout is not made one
    ],
)
def test_what_is_not_an_admonition_stays_as_it_was(text):
    tokens, _ = parse(text)
    assert not [t for t in tokens if t.type.startswith("admonition")]


@pytest.mark.parametrize("width", [1280, 360])
def test_a_folded_admonition_opens_when_its_title_is_clicked(site, width):
    driver = chromium()
    try:
        emulate(driver, width)
        driver.get(site + PATH)
        shown = "return [...document.querySelectorAll('.admonition')].map(b => b.querySelector(':scope > p').checkVisibility())"
        assert driver.execute_script(shown) == [not fold or opened for fold, _, opened, *_ in _folds()]
        driver.find_element("css selector", "details.admonition > summary").click()
        assert driver.execute_script(shown)[0], "a click on the title opens it"
        wide = driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert wide[0] <= wide[1] <= width
    finally:
        driver.quit()


def _folds() -> list[tuple[bool, str, bool]]:
    return [(element == "details", kind, opened) for element, kind, opened, *_ in EXPECTED]


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_no_axe_violations(site, width, mode):
    assert not axe_violations(site, [PATH], width, mode)
