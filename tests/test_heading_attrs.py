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
