"""A heading's attributes after its text (Pandoc, Quarto, kramdown, Hugo's goldmark, MkDocs' attr_list): `## Method
{#sec-method}` is "Method" with the id `sec-method`, so the links written to it reach it. Before, the braces were
part of the heading's text and its id (`method-sec-method`), and each link to `#sec-method` was a broken link."""

from __future__ import annotations

from helpers import built_posts, post_body

BODY = """See [the method](#sec-method), [the setup](#setup) and [the aim](#aim).

## Method {#sec-method}

### Setup {: #setup .no_toc}

## Aim {#aim .unnumbered data-x="y"}

## Intro {-}

## Sets {1, 2}

## Again {#aim}
"""


def test_a_headings_id_is_the_one_written_after_it_and_its_braces_are_not_shown(tmp_path):
    root, said = built_posts(tmp_path / "site", {"h.md": ("title: H\ndate: 2024-05-01", BODY)})
    body = post_body(root, "/blog/2024/h/")
    headings = [(h.name, h.get("id"), h.get_text().removesuffix("#").strip()) for h in body.select("h2, h3")]
    assert headings == [
        ("h2", "sec-method", "Method"),
        ("h3", "setup", "Setup"),
        ("h2", "aim", "Aim"),
        ("h2", "intro", "Intro"),
        ("h2", "sets-1-2", "Sets {1, 2}"),  # braces that are no attributes are text
        ("h2", "again", "Again"),  # `aim` was given to an earlier heading
    ]
    assert "links to" not in said, said  # every link reaches its heading: no link-check warning
    line = 6 + BODY.splitlines().index("## Again {#aim}")  # the body starts at line 6
    assert f"content/posts/h.md:{line}: heading id 'aim' is given to an earlier heading too" in said, said


def test_quarto_section_references_link_to_their_heading_and_the_others_are_named(tmp_path):
    """`@sec-method` (Quarto, pandoc-crossref) is a link to the heading `{#sec-method}`, in its words; `@fig-x` and
    `@eq-x`, which are not numbered here, and a section the post does not have stay text, named in a warning."""
    body = (
        "As @sec-method says [@knuth1984, p. 3], and @fig-plot and @eq-energy and @sec-gone show; mail me@sec-x.org, "
        "[not @sec-method](https://example.org) and `@sec-method` [photo by @ndwtb].\n\n## The method {#sec-method}\n"
    )
    root, said = built_posts(tmp_path / "site", {"r.md": ("title: R\ndate: 2024-05-01", body)})
    paragraph = post_body(root, "/blog/2024/r/").find("p")
    links = [(a["href"], a.get_text()) for a in paragraph.find_all("a")]
    assert links == [("#sec-method", "The method"), ("https://example.org", "not @sec-method")]
    assert "@fig-plot and @eq-energy and @sec-gone" in paragraph.get_text()
    assert "me@sec-x.org" in paragraph.get_text() and paragraph.find("code").get_text() == "@sec-method"
    assert (
        "content/posts/r.md:6: cross-references with nothing to refer to here: @fig-plot, @eq-energy, @sec-gone, "
        "shown as their text" in said
    ), said
    assert (
        "content/posts/r.md:6: Pandoc citations are not rendered here: [@knuth1984, p. 3], shown as their text" in said
    )
    assert "[@knuth1984, p. 3]" in paragraph.get_text()
