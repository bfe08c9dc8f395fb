"""What real blogs put in their feeds and the importer must keep: math inside <details>, LaTeX environments
written straight into the text, al-folio <d-footnote>, Octopress code languages, empty (zero) dates."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import REPO, make_site, run_cli

DATA = REPO / "tests" / "data"


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, str, str]:
    root = make_site(tmp_path_factory.mktemp("fidelity") / "site", "title: T\nurl: https://ex.org\n")
    proc = run_cli("import", str(DATA / "fidelity.atom.xml"), "--into", "content/posts", cwd=root)
    assert proc.returncode == 0, proc.stderr
    build = run_cli("build", "--source", str(root))
    assert build.returncode == 0, build.stderr
    return root, proc.stderr, build.stderr


def post_html(root: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / url.strip("/") / "index.html").read_text(), "html.parser")


def test_math_inside_details_is_kept_and_rendered(imported):
    root, warnings, build_warnings = imported
    text = (root / "content/posts/a.md").read_text()
    assert "<details>\n<summary>Proof of $p_\\theta$</summary>\n\nWe have $a+b$ and" in text
    assert "kept <details> as raw HTML" not in warnings
    details = post_html(root, "/a/").find("details")
    assert details is not None and details.find("summary") is not None
    tex = [a.get_text() for a in details.find_all("annotation")]
    assert tex == ["a+b", "\\int_0^1 f(x)\\,dx"]
    assert "cannot render math" not in build_warnings


def test_bare_align_environment_and_eqref_become_math(imported):
    root, _, build_warnings = imported
    text = (root / "content/posts/a.md").read_text()
    assert "$$\n\\begin{align}\na &= b \\label{eq:one_two}\\\\\nc &= d\n\\end{align}\n$$" in text
    assert "See $\\eqref{eq:one_two}$" in text
    page = post_html(root, "/a/")
    assert any("\\begin{align}" in a.get_text() for a in page.find_all("annotation"))
    ref = [m for m in page.find_all("math") if "eqref" in m.get_text()]
    assert ref and ref[0].find("a") is not None and ref[0].find("a").get_text() == "(1)"
    assert "cannot render math" not in build_warnings, build_warnings


def test_distill_footnote_becomes_a_markdown_footnote(imported):
    root, warnings, _ = imported
    text = (root / "content/posts/a.md").read_text()
    assert "the note[^d1]." in text and "[^d1]: A footnote with $y$." in text
    assert "d-footnote" not in text and "kept <d-footnote>" not in warnings
    page = post_html(root, "/a/")
    footnotes = page.select(".footnotes li")
    assert len(footnotes) == 1 and footnotes[0].find("annotation").get_text() == "y"


def test_octopress_code_keeps_its_language_and_drops_the_gutter(imported):
    root, _, _ = imported
    text = (root / "content/posts/a.md").read_text()
    assert "```python\nimport os\nprint(os.sep)\n```" in text
    assert "```ruby\nputs 1\n```" in text
    assert "line-number" not in text


def test_a_zero_date_falls_back_to_the_updated_date_with_a_warning(imported):
    root, warnings, _ = imported
    assert "date: '2023-05-01T00:00:00+00:00'" in (root / "content/posts/b.md").read_text()
    assert "('Zero') -> b.md: date '0001-01-01T00:00:00Z' is empty; used its updated date" in warnings


def test_an_rss_zero_pubdate_is_not_read_as_2000_and_falls_back_to_the_feed_date(tmp_path):
    root = make_site(tmp_path / "site")
    proc = run_cli("import", str(DATA / "zero-date.rss.xml"), "--into", "content/posts", cwd=root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "content/posts/never-dated.md").read_text()
    assert "date: '2019-03-05T10:00:00+00:00'" in text, text
    assert "date 'Mon, 30 Nov -0001 00:00:00 +0000' is empty; used the feed's updated date" in proc.stderr
    assert "2000-" not in text and "2001-" not in text


CHROMA_TABLE = (
    '<div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd">'
    '<pre tabindex="0" class="chroma"><code><span class="lnt">1\n</span><span class="lnt">2\n</span></code></pre></td>'
    '<td class="lntd"><pre tabindex="0" class="chroma"><code class="language-python" data-lang="python">'
    '<span class="line"><span class="cl">import os\n</span></span><span class="line"><span class="cl">print(1)\n'
    "</span></span></code></pre></td></tr></table></div></div>"
)
PYGMENTS_TABLE = (
    '<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1\n2</pre></div></td>'
    '<td class="code"><div class="highlight"><pre><span></span><span class="kn">import</span> os\n'
    '<span class="nb">print</span>(1)\n</pre></div></td></tr></table>'
)


@pytest.mark.parametrize(
    "html,fence",
    [(CHROMA_TABLE, "```python\n"), (PYGMENTS_TABLE, "```\n")],
    ids=["hugo-chroma-line-numbers", "pelican-pygments-line-numbers"],
)
def test_code_with_a_line_number_table_is_one_fence_without_the_numbers(html, fence):
    from site_builder.importer.convert import html_to_markdown

    assert html_to_markdown(html) == f"{fence}import os\nprint(1)\n```\n"


def test_an_empty_published_date_is_named_and_falls_back_to_the_updated_date(tmp_path):
    feed = tmp_path / "empty.atom.xml"
    feed.write_text(
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:t</id>'
        "<updated>2020-01-01T00:00:00Z</updated><entry><title>Blank</title><id>urn:b</id>"
        '<link href="https://ex.org/blank/"/><published></published><updated>2022-06-01T00:00:00Z</updated>'
        "<content>x</content></entry></feed>",
        encoding="utf-8",
    )
    root = make_site(tmp_path / "site")
    proc = run_cli("import", str(feed), "--into", "content/posts", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "date: '2022-06-01T00:00:00+00:00'" in (root / "content/posts/blank.md").read_text()
    assert "('Blank') -> blank.md: date '' is empty; used its updated date" in proc.stderr
