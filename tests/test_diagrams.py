"""Mermaid diagrams (```` ```mermaid ````, MyST's and Quarto's ```` ```{mermaid} ````), as the real CLI builds them and
a real headless Chromium draws them: Mermaid ships with the package and is published, and loaded, only where a post
draws a diagram; a label's markup is text, not script."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import built_posts, chromium, make_site, run_cli, serve_folder, write_post
from test_accessibility import axe_violations, emulate

FLOW = """graph LR
  A[Write a post] --> B{Code runs?}
  B -- yes --> C[Publish]
  B -- "no <img src=x onerror=window.__pwned=1>" --> D[Fix it]
"""
POST = f"""A flow:

```mermaid
{FLOW}```

A sequence, as MyST writes it:

```{{mermaid}}
:caption: How a save reaches the page
sequenceDiagram
  Writer->>Builder: save
  Builder-->>Browser: reload
```
"""
PATH = "/blog/2024/diagrams/"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    posts = {
        "diagrams.md": ("title: Diagrams\ndate: 2024-05-01", POST),
        "plain.md": ("title: Plain\ndate: 2024-04-01", "No diagram.\n"),
    }
    yield built_posts(tmp_path_factory.mktemp("diagrams") / "site", posts)


@pytest.fixture(scope="module")
def site(built) -> Iterator[str]:
    with serve_folder(built[0] / "output") as url:
        yield url


def _page(root: Path, path: str) -> str:
    return (root / "output" / path.strip("/") / "index.html").read_text(encoding="utf-8")


def test_a_diagram_is_its_source_for_mermaid_and_only_its_page_loads_mermaid(built):
    root, stderr = built
    html = _page(root, PATH)
    boxes = BeautifulSoup(html, "html.parser").select(".post-body pre.mermaid")
    assert [b.get_text() for b in boxes] == [
        FLOW,
        "sequenceDiagram\n  Writer->>Builder: save\n  Builder-->>Browser: reload\n",
    ]
    assert "<img src=x" not in html, "a label's markup is escaped in the page"
    assert 'data-src="/js/mermaid/mermaid.esm.min.mjs"' in html
    assert "mermaid" not in _page(root, "/blog/2024/plain/"), "a page without a diagram loads nothing"
    mermaid = root / "output/js/mermaid"
    assert (mermaid / "mermaid.esm.min.mjs").stat().st_size > 10_000 and "MIT" in (mermaid / "LICENSE").read_text()
    assert "warning:" not in stderr, stderr  # `{mermaid}` is not a directive "with no meaning here"


def test_a_site_under_a_path_loads_mermaid_from_its_path(tmp_path):
    root = make_site(tmp_path / "site", "title: D\nurl: https://example.org/notes/\nsearch: false\n")
    write_post(root, "d.md", "title: D\ndate: 2024-05-01", "```mermaid\ngraph LR\n  A --> B\n```\n")
    run_cli("build", "--source", str(root), check=True)
    assert 'data-src="/notes/js/mermaid/mermaid.esm.min.mjs"' in _page(root, "/blog/2024/d/")


def test_mermaid_is_published_only_while_a_post_draws_a_diagram(built, tmp_path):
    root, _ = built
    (root / "content/posts/diagrams.md").rename(tmp_path / "diagrams.md")
    try:
        run_cli("build", "--source", str(root), check=True)
        assert not (root / "output/js/mermaid").exists()
    finally:
        (tmp_path / "diagrams.md").rename(root / "content/posts/diagrams.md")
        run_cli("build", "--source", str(root), check=True)
    assert (root / "output/js/mermaid/mermaid.esm.min.mjs").is_file()


def _drawn(driver) -> list[str]:
    """The text of each diagram's drawing, once both are drawn (waits up to 20 s)."""
    for _ in range(200):
        texts = driver.execute_script(
            "return [...document.querySelectorAll('pre.mermaid')].map(p => "
            "p.querySelector('svg') && p.querySelector('svg').getBBox().width > 0 ? p.querySelector('svg').textContent : '')"
        )
        if all(texts):
            return texts
        time.sleep(0.1)
    return texts


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_chromium_draws_the_diagrams_within_the_page(site, width, mode):
    driver = chromium()
    try:
        emulate(driver, width, mode)
        driver.get(site + PATH)
        flow, sequence = _drawn(driver)
        assert "Publish" in flow and "Fix it" in flow and "Writer" in sequence and "reload" in sequence
        assert driver.execute_script("return window.__pwned") is None, "a label's markup did not run"
        assert not driver.execute_script("return document.querySelector('pre.mermaid img')"), "it is text"
        wide = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
        assert wide[0] <= wide[1] <= width
        before = driver.execute_script("return document.querySelector('pre.mermaid svg').outerHTML")
        emulate(driver, width, "dark" if mode == "light" else "light")  # the system's scheme changes: drawn again
        after = _redrawn(driver, before)
        assert after != before and "Publish" in after
        driver.find_element("css selector", ".theme-toggle").click()  # drawn again in the other scheme's colours
        assert _redrawn(driver, after) != after
    finally:
        driver.quit()


def _redrawn(driver, before: str) -> str:
    """The first diagram's drawing once it is not `before` (waits up to 10 s)."""
    for _ in range(100):
        after = driver.execute_script("var s = document.querySelector('pre.mermaid svg'); return s && s.outerHTML")
        if after and after != before:
            return str(after)
        time.sleep(0.1)
    return before


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_no_axe_violations(site, width, mode):
    drawn = "[...document.querySelectorAll('pre.mermaid svg')].filter(s => s.getBBox().width > 0).length == 2"
    assert not axe_violations(site, [PATH], width, mode, ready=drawn)
