"""MyST's inline roles as a MyST page shows them (myst_roles.py): what a Jupyter Book or MyST blog wrote keeps its
math, marks and code, and what has no meaning here is named, never shown raw."""

from __future__ import annotations

from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post

BODY = """Energy {math}`E = mc^2`, water H{sub}`2`O, x{sup}`2`, press {kbd}`Ctrl+C`, {abbr}`CSS (Cascading Style Sheets)`.

See {py:func}`numpy.add` and {code}`a < b`; {ref}`the intro <intro>` and {doc}`other`.

A set {x}`y` stays as Markdown has it.
"""


def test_myst_roles_show_what_a_myst_page_shows(tmp_path):
    site = make_site(tmp_path / "site")
    path = write_post(site, "a.md", "title: A\ndate: 2025-01-01", BODY)
    line = path.read_text(encoding="utf-8").splitlines().index(BODY.splitlines()[2]) + 1
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: content/posts/a.md:{line}: MyST roles with no meaning here: {{ref}}, {{doc}}, shown as their text"
    ], proc.stderr
    page = BeautifulSoup((site / "output/blog/2025/a/index.html").read_text(encoding="utf-8"), "html.parser")
    first, second, third = page.select("div.post-body > p")
    assert first.math is not None and first.math.annotation.text == "E = mc^2"
    assert [(t.name, t.text) for t in first.find_all(["sub", "sup", "kbd", "abbr"])] == [
        ("sub", "2"), ("sup", "2"), ("kbd", "Ctrl+C"), ("abbr", "CSS")
    ]  # fmt: skip
    assert first.abbr["title"] == "Cascading Style Sheets"
    assert [c.text for c in second.find_all("code")] == ["numpy.add", "a < b"]
    assert second.text == "See numpy.add and a < b; the intro and other."
    assert third.text == "A set {x}y stays as Markdown has it." and third.code.text == "y"
    assert "{math}" not in page.text and "{py:func}" not in page.text


FIGURES = """```{figure} field.png
:alt: An orange field
:width: 300px

A *field* at dusk.
```

```{figure} gone.png
:alt: Not there

Its caption.
```
"""


def test_a_myst_figure_is_one_figure_with_its_caption_and_a_missing_one_is_named_at_its_line(tmp_path):
    """`{figure}`'s first paragraph is its <figcaption> (the `:alt:` stays the image's alt), for a site image with
    its WebP sizes too; an image the post lacks is a warning at the directive's line, as a Markdown image is, and so
    is an option not read (`:width:`)."""
    from PIL import Image

    site = make_site(tmp_path / "site")
    path = write_post(site, "f.md", "title: F\ndate: 2025-01-01", FIGURES)
    Image.new("RGB", (900, 600), (200, 120, 40)).save(path.parent / "field.png")
    line = path.read_text(encoding="utf-8").splitlines().index("```{figure} gone.png") + 1
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, proc.stderr
    assert f"warning: content/posts/f.md:{line}: image 'gone.png': file not found" in proc.stderr, proc.stderr
    assert "f.md:6: {figure} options not read here: :width:, ignored" in proc.stderr  # never a silent ignore
    page = BeautifulSoup((site / "output/blog/2025/f/index.html").read_text(encoding="utf-8"), "html.parser")
    shown, missing = page.select("div.post-body > figure")
    assert shown.picture.img["alt"] == "An orange field" and shown.picture.source["type"] == "image/webp"
    assert shown.figcaption.text == "A field at dusk." and shown.figcaption.em.text == "field"
    assert missing.figcaption.text == "Its caption." and "Not there" in missing.select_one(".image-missing").text
    assert not page.select("div.post-body > p")
    # a post of figures alone: its link preview says what they show, from their captions
    assert page.find("meta", attrs={"name": "description"})["content"] == "A field at dusk. Its caption."
