"""HTML -> Markdown conversion of single constructs, checked by rendering with the builder."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder.errors import SiteError
from site_builder.importer import import_feed
from site_builder.importer.convert import html_to_markdown
from site_builder.models import Post
from site_builder.render import render_post

BASE = "https://example.org/blog/2025/post/"


def md(html: str, base: str = BASE) -> tuple[str, list[str]]:
    warnings: list[str] = []
    return html_to_markdown(html, base, warnings.append), warnings


def render(markdown: str) -> BeautifulSoup:
    now = datetime.now(timezone.utc)
    post = Post(
        source=Path("x.md"),
        rel="x.md",
        title="t",
        date=now,
        updated=now,
        tags=[],
        lang="en",
        slug="x",
        permalink="/x/",
        id="x",
        summary="",
        body=markdown,
        body_line=1,
    )
    return BeautifulSoup(render_post(post).html, "html.parser")


def test_headings_emphasis_links_lists_quotes():
    out, _ = md(
        '<h2 id="a">Intro <a class="header-anchor" href="#a">#</a></h2>'
        '<p>Some <em>it</em>, <strong>bold</strong>, <a href="/x/">link</a> and <code>a_b*c</code>.</p>'
        '<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul><ol start="3"><li>three</li></ol>'
        "<blockquote><p>q1</p><p>q2</p></blockquote><hr/>"
    )
    assert out == (
        "## Intro\n\nSome *it*, **bold**, [link](https://example.org/x/) and `a_b*c`.\n\n"
        "- one\n  - nested\n- two\n\n3. three\n\n> q1\n>\n> q2\n\n---\n"
    )


def test_a_list_item_that_starts_with_code_keeps_the_code_inside_it():
    # jekyll-feed (haoxiansen): <li> holding only a Rouge block; the item was left empty and the code fell out of
    # the list (an ordered list then started again at 2)
    rouge = '<div class="language-shell highlighter-rouge"><div class="highlight"><pre class="highlight"><code>{}\n</code></pre></div></div>'
    out, _ = md(
        f"<ul><li><p>Install</p><ul><li>{rouge.format('brew tap x')}</li><li>{rouge.format('brew update')}</li></ul>"
        f"</li></ul><ol><li>{rouge.format('make')}</li><li>then this</li></ol>"
    )
    page = render(out)
    items = [li.find("pre", recursive=False) or li.find("div", recursive=False) for li in page.select("ul ul > li")]
    assert [i.get_text() if i else None for i in items] == ["brew tap x\n", "brew update\n"], out
    assert len(page.select("ol")) == 1 and page.select_one("ol > li:first-child pre").get_text() == "make\n", out
    assert "ol start" not in str(page), out


def test_markdown_specials_in_text_are_escaped_minimally():
    out, _ = md(
        "<p>Costs $5, a*b, _x_, snake_case, [a](b), &lt;div&gt;, C:\\dir, 5 * 3, [1, 2]</p>"
        "<p>1. not a list</p><p># not a heading</p>"
    )
    assert out == (
        "Costs \\$5, a\\*b, \\_x\\_, snake_case, \\[a](b), \\<div>, C:\\dir, 5 * 3, [1, 2]\n\n"
        "1\\. not a list\n\n\\# not a heading\n"
    )
    text = render(out).get_text()
    assert "Costs $5, a*b, _x_, snake_case, [a](b), <div>, C:\\dir, 5 * 3, [1, 2]" in text
    assert "1. not a list" in text and "# not a heading" in text


def test_hard_line_breaks():
    out, _ = md("<p><strong>第一行</strong><br/> <em>second</em><br>\nthird<br></p>")
    assert out == "**第一行**\\\n*second*\\\nthird\n"
    assert len(render(out).find_all("br")) == 2


def test_emphasis_that_markdown_cannot_express_stays_html():
    out, _ = md("<p>中文<em>“强调”</em>中文 and <strong>a</strong><strong>b</strong></p>")
    assert "<em>“强调”</em>" in out and "<strong>a</strong><strong>b</strong>" in out
    soup = render(out)
    assert soup.find("em").get_text() == "“强调”" and len(soup.find_all("strong")) == 2


def test_table_becomes_a_pipe_table():
    out, _ = md(
        "<table><thead><tr><th>a</th><th>b|c</th></tr></thead>"
        "<tbody><tr><td>1 \\(x\\)</td><td><code>y</code></td></tr></tbody></table>"
    )
    assert out == "| a | b\\|c |\n| --- | --- |\n| 1 $x$ | `y` |\n"
    soup = render(out)
    assert [th.get_text() for th in soup.find_all("th")] == ["a", "b|c"]
    assert soup.find("td").find("math") is not None


@pytest.mark.parametrize(
    "html, lang",
    [
        (
            '<div class="language-python highlighter-rouge"><div class="highlight"><pre class="highlight"><code>'
            '<span class="n">x</span> <span class="o">=</span> <span class="s">"```"</span>\nif a &lt; b &amp;&amp; c: pass\n'
            "</code></pre></div></div>",
            "python",
        ),
        (
            '<figure class="highlight"><pre><code class="language-ruby" data-lang="ruby">x = "```"\n'
            "if a &lt; b &amp;&amp; c: pass\n</code></pre></figure>",
            "ruby",
        ),
        (
            '<div class="highlight"><pre><code class="language-python">x = "```"\nif a &lt; b &amp;&amp; c: pass\n'
            "</code></pre></div>",
            "python",
        ),
        (
            '<div class="language-plaintext highlighter-rouge"><div class="highlight"><pre class="highlight"><code>'
            'x = "```"\nif a &lt; b &amp;&amp; c: pass\n</code></pre></div></div>',
            "",
        ),
        ('<pre><code class="language-text">x = "```"\nif a &lt; b &amp;&amp; c: pass\n</code></pre>', "text"),
    ],
)
def test_highlighted_code_becomes_a_fence_with_exact_text(html, lang):
    out, _ = md(html)
    assert out == f'````{lang}\nx = "```"\nif a < b && c: pass\n````\n'
    assert render(out).find("pre").get_text() == 'x = "```"\nif a < b && c: pass\n'


def test_rouge_table_with_line_numbers():
    out, _ = md(
        '<figure class="highlight"><pre><code class="language-ruby" data-lang="ruby"><table class="rouge-table">'
        '<tbody><tr><td class="gutter gl"><pre class="lineno">1\n2\n</pre></td><td class="code"><pre>a = 1\nb = 2\n'
        "</pre></td></tr></tbody></table></code></pre></figure>"
    )
    assert out == "```ruby\na = 1\nb = 2\n```\n"


def test_math_delimiters():
    out, _ = md(
        "<p>Let \\( a_1 \\) and $b_*$ cost $5 or $10; 10\\(\\times\\) faster.</p>"
        "<p>Display \\[\\begin{align}x &amp;= y\\\\ z &amp;= w\\end{align}\\] done.</p>"
    )
    assert out == (
        "Let $a_1$ and $b_*$ cost \\$5 or \\$10; 10<!-- -->$\\times$ faster.\n\nDisplay\n\n"
        "$$\n\\begin{align}x &= y\\\\ z &= w\\end{align}\n$$\n\ndone.\n"
    )
    soup = render(out)
    tex = [a.get_text() for a in soup.find_all("annotation")]
    assert tex == ["a_1", "b_*", "\\times", "\\begin{align}x &= y\\\\ z &= w\\end{align}"]
    assert "$5 or $10" in soup.get_text()


def test_our_mathml_goes_back_to_tex():
    out, _ = md(
        '<p>a <math display="inline"><semantics><mi>x</mi><annotation encoding="application/x-tex">x_1 &lt; y'
        '</annotation></semantics></math> and <span class="math display"><math display="block"><semantics><mi>y'
        '</mi><annotation encoding="application/x-tex">y</annotation></semantics></math></span></p>'
        '<div class="math"><math display="block"><semantics><mi>z</mi><annotation encoding="application/x-tex">'
        "z^2</annotation></semantics></math></div>"
    )
    assert out == "a $x_1 < y$ and $$y$$\n\n$$\nz^2\n$$\n"


def test_kramdown_footnotes():
    out, _ = md(
        '<p>Text.<sup id="fnref:1"><a href="#fn:1" class="footnote" rel="footnote" role="doc-noteref">1</a></sup>'
        '</p><div class="footnotes" role="doc-endnotes"><ol><li id="fn:1"><p>The note, <em>cited</em>.&nbsp;'
        '<a href="#fnref:1" class="reversefootnote" role="doc-backlink">&#8617;</a></p></li></ol></div>'
    )
    assert out == "Text.[^1]\n\n[^1]: The note, *cited*.\n"


def test_markdown_it_footnotes():
    out, _ = md(
        '<p>A<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup> B<sup class="footnote-ref">'
        '<a href="#fn2" id="fnref2">[2]</a></sup></p><hr class="footnotes-sep" /><section class="footnotes">'
        '<ol class="footnotes-list"><li id="fn1" class="footnote-item"><p>One <a href="#fnref1" '
        'class="footnote-backref">↩︎</a></p></li><li id="fn2" class="footnote-item"><p>Two</p><p>More '
        '<a href="#fnref2" class="footnote-backref">↩︎</a></p></li></ol></section>'
    )
    assert out == "A[^1] B[^2]\n\n[^1]: One\n\n[^2]: Two\n\n    More\n"
    assert len(render(out).find_all("li", class_="footnote-item")) == 2


def test_alfolio_figures_and_captions():
    picture = (
        '<picture><source srcset="/img/{0}-480.webp 480w" type="image/webp"/>'
        '<img src="/img/{0}.jpg" class="img-fluid"/></picture>'
    )
    out, _ = md(
        '<div class="row mt-3"><div class="col-sm mt-3"><figure>' + picture.format("a") + "</figure></div></div>"
        '<div class="caption"> One <em>image</em> </div>'
        '<div class="row mt-3"><div class="col-sm">'
        "<figure>" + picture.format("b") + "</figure></div>"
        '<div class="col-sm"><figure>' + picture.format("c") + "</figure></div></div>"
        '<div class="caption">Two images</div>'
        '<div class="masonry"><div class="masonry-item"><figure>' + picture.format("d") + "</figure></div>"
        '<div class="masonry-item"><figure>' + picture.format("e") + "</figure></div></div>"
        '<div class="d-flex flex-wrap"><div><figure>' + picture.format("f") + "</figure></div>"
        "<div><figure>" + picture.format("g") + '</figure></div></div><div class="caption mt-2">Flex</div>'
        '<div class="spotlight-group"><a class="spotlight"><figure>' + picture.format("h") + "</figure></a>"
        '<a class="spotlight"><figure>' + picture.format("i") + "</figure></a></div>"
    )
    u = "https://example.org/img/"
    assert out == (
        f"![One image]({u}a.jpg)\n\n"
        f"::: gallery row\n![]({u}b.jpg)\n![]({u}c.jpg)\n:::\n: Two images\n\n"
        f"::: gallery\n![]({u}d.jpg)\n![]({u}e.jpg)\n:::\n\n"
        f"::: gallery row\n![]({u}f.jpg)\n![]({u}g.jpg)\n:::\n: Flex\n\n"
        f"::: gallery grid\n![]({u}h.jpg)\n![]({u}i.jpg)\n:::\n"
    )
    soup = render(out)
    assert [f.get("class") for f in soup.find_all("figure", class_="gallery")] == [
        ["gallery", "gallery-row"],
        ["gallery", "gallery-masonry"],
        ["gallery", "gallery-row"],
        ["gallery", "gallery-grid"],
    ]
    assert soup.find("figure").find("figcaption").get_text() == "One image"
    assert "webp" not in out


def test_lightbox_links_use_the_full_size_image():
    out, _ = md(
        '<p><a href="https://cdn.x/1-big.jpg" data-lightbox="trip"><img src="https://cdn.x/1-small.jpg"/></a> '
        '<a href="https://cdn.x/2-big.jpg" data-lightbox="trip"><img src="https://cdn.x/2-small.jpg" alt="Two"/></a></p>'
    )
    assert out == "::: gallery grid\n![](https://cdn.x/1-big.jpg)\n![Two](https://cdn.x/2-big.jpg)\n:::\n"


def test_our_own_figures_and_galleries_round_trip():
    markdown = (
        "![A caption](https://e.com/a.png)\n\n::: gallery row\n![one](https://e.com/1.png)\n"
        "![](https://e.com/2.png)\n:::\n: Gallery *caption*\n\n::: gallery\n![x](https://e.com/3.png)\n"
        "![y](https://e.com/4.png)\n:::\n"
    )
    out, warnings = md(str(render(markdown)))
    assert out == markdown and warnings == []


def test_linked_images_keep_their_link_once():
    out, _ = md(
        '<p><a href="/page/"><figure><img src="a.png" alt="x"><figcaption>Cap</figcaption></figure></a></p>'
        '<p>text <a href="/big.png"><img src="/small.png" alt="s"></a></p>'
    )
    assert out == (
        "[![Cap](https://example.org/blog/2025/post/a.png)](https://example.org/page/)\n\n"
        "text [![s](https://example.org/small.png)](https://example.org/big.png)\n"
    )


def test_alt_text_that_is_only_the_file_name_is_dropped():
    out, _ = md(
        '<p><img src="https://cdn.x/shots/20230817image-20230817195343871.png" alt="image-20230817195343871"/></p>'
    )
    assert out == "![](https://cdn.x/shots/20230817image-20230817195343871.png)\n"


def test_unknown_and_interactive_elements_warn():
    out, warnings = md(
        '<p>The <CLS> token.</p><iframe src="https://www.youtube.com/embed/x"></iframe>'
        '<script>alert(1)</script><pre><code class="language-mermaid">graph TD;</code></pre>'
    )
    assert "The \\<CLS> token." in out
    assert "<iframe" not in out and "<https://www.youtube.com/embed/x>" in out
    assert "alert" not in out and "```mermaid\ngraph TD;\n```" in out
    assert any("<CLS>" in w for w in warnings) and any("iframe" in w for w in warnings)
    assert any("script" in w for w in warnings)
    assert not any("mermaid" in w for w in warnings)  # drawn here too (a ```mermaid block is a diagram)
    _, warnings = md('<pre><code class="language-plotly">{}</code></pre>')
    assert any("plotly" in w and "rendered it in the browser" in w for w in warnings)


def test_relative_urls_resolved_against_the_base():
    out, _ = md(
        '<p><a href="../other/">o</a> <a href="#sec">s</a> <img src="pic.png" alt="p"/> '
        '<a href="mailto:a@b.c">m</a> <a href="https://x.org/a b">sp</a></p>'
    )
    assert out == (
        "[o](https://example.org/blog/2025/other/) [s](#sec) ![p](https://example.org/blog/2025/post/pic.png) "
        "[m](mailto:a@b.c) [sp](https://x.org/a%20b)\n"
    )


def test_output_is_tidy():
    out, _ = md("<p>a  </p>\n\n\n<p> </p><div><p>b</p>\n\n</div><p>c<br></p>")
    assert out == "a\n\nb\n\nc\n"


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "feed file not found"),
        (b"", "feed file is empty"),
        (b"<html><body><p>Not a feed</p></body></html>", "not an RSS or Atom feed"),
        (b"<?xml version='1.0'?><rss><channel><title>x</title><item><title>a</ti", "cannot read feed"),
    ],
)
def test_unreadable_feeds_are_one_line_errors(tmp_path, content, message):
    feed = tmp_path / "feed.xml"
    if content is not None:
        feed.write_bytes(content)
    with pytest.raises(SiteError) as info:
        import_feed(feed, tmp_path / "posts", log=lambda _: None)
    assert message in str(info.value) and str(feed) in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "posts").exists()


def test_entry_lang_and_fallbacks(tmp_path):
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>x</title>'
        '<link href="https://ex.org/"/><id>urn:f</id><updated>2025-01-01T00:00:00Z</updated>'
        '<entry xml:lang="fr"><title>Bonjour</title><link href="https://ex.org/fr/bonjour/"/><id>urn:1</id>'
        '<published>2025-02-01T10:00:00+02:00</published><content type="html">&lt;p&gt;Salut&lt;/p&gt;</content></entry>'
        '<entry><title>你好</title><link href="https://ex.org/%E4%BD%A0%E5%A5%BD/"/><id>urn:2</id>'
        '<updated>2025-03-01T00:00:00Z</updated><content type="html">&lt;p&gt;这是一篇中文文章。&lt;/p&gt;</content></entry>'
        '<entry><title>Same</title><link href="https://ex.org/a/same/"/><id>urn:3</id><updated>2025-03-01T00:00:00Z</updated>'
        '<content type="text">plain &lt;text&gt; *here*</content></entry>'
        '<entry><title>Same</title><link href="https://ex.org/b/same/"/><id>urn:4</id><updated>2025-03-01T00:00:00Z</updated>'
        "<summary>Only this.</summary></entry>"
        '<entry><title>Home Page Post</title><link href="https://ex.org/?p=5"/><id>urn:5</id><updated>2025-03-01T00:00:00Z</updated>'
        '<content type="html">x</content></entry>'
        '<entry><title>Indexed</title><link href="https://ex.org/2025/indexed/index.html"/><id>urn:6</id>'
        '<updated>2025-03-01T00:00:00Z</updated><content type="html">y</content></entry>'
        "</feed>",
        encoding="utf-8",
    )
    report = import_feed(feed, tmp_path / "posts", log=lambda _: None)
    names = [p.name for p in report.written]
    assert names == ["bonjour.md", "你好.md", "same.md", "same-2.md", "home-page-post.md", "indexed.md"]
    texts = [p.read_text(encoding="utf-8") for p in report.written]
    assert "lang: fr\n" in texts[0] and "date: '2025-02-01T10:00:00+02:00'\n" in texts[0]
    assert (
        "lang: zh\n" in texts[1]
        and "permalink: /你好/\n" in texts[1]
        and "date: '2025-03-01T00:00:00+00:00'" in texts[1]
    )
    assert texts[2].endswith("---\n\nplain \\<text> \\*here\\*\n")
    assert texts[3].endswith("---\n\nOnly this.\n") and "summary: Only this.\n" in texts[3]
    assert len(report.warnings) == 1 and "same-2.md" in report.warnings[0] and "only a summary" in report.warnings[0]
    assert "permalink" not in texts[4], "a link to the site root is no permalink for a post"
    assert "permalink: /2025/indexed/index.html\n" in texts[5]


POEM = (
    "<blockquote> <p>To my wife, and my newborn baby</p> </blockquote> "
    "<p><strong>她软绵绵的肚子 曾经是他的家</strong><br/> <em>Her cloud-soft belly, once his nest;</em></p> "
    "<p><strong>现在的他搬家了 留下空荡荡的房</strong><br/> <em>He’s moved out now; the room’s at rest.</em></p>"
)
POEM_MD = (
    "> To my wife, and my newborn baby\n\n::: bilingual\n"
    "**她软绵绵的肚子 曾经是他的家**\n*Her cloud-soft belly, once his nest;*\n\n"
    "**现在的他搬家了 留下空荡荡的房**\n*He’s moved out now; the room’s at rest.*\n:::\n"
)


def test_stanzas_alternating_chinese_and_english_become_a_bilingual_block():
    out, warnings = md(POEM)
    assert out == POEM_MD and warnings == []
    stanzas = render(out).select("div.bilingual > p.bilingual-stanza")
    assert [[(s["lang"], s.get_text()) for s in p.find_all("span", class_="bilingual-line")] for p in stanzas] == [
        [("zh-Hans", "她软绵绵的肚子 曾经是他的家"), ("en", "Her cloud-soft belly, once his nest;")],
        [("zh-Hans", "现在的他搬家了 留下空荡荡的房"), ("en", "He’s moved out now; the room’s at rest.")],
    ]


def test_bilingual_stanzas_keep_inline_markup_escapes_and_any_number_of_lines():
    out, _ = md(
        '<p>春眠不觉晓<br>Spring sleep,\n  unaware<br>处处闻啼鸟<br>birds sing, <a href="/x">everywhere</a></p>\n'
        "<p>1. 夜来风雨声<br>- night wind and rain, $5</p>"
    )
    assert out == (
        "::: bilingual\n春眠不觉晓\nSpring sleep, unaware\n处处闻啼鸟\n"
        "birds sing, [everywhere](https://example.org/x)\n\n1\\. 夜来风雨声\n\\- night wind and rain, \\$5\n:::\n"
    )
    lines = render(out).find_all("span", class_="bilingual-line")
    assert [s["lang"] for s in lines] == ["zh-Hans", "en", "zh-Hans", "en", "zh-Hans", "en"]
    assert lines[-1].get_text() == "- night wind and rain, $5" and lines[3].find("a")["href"] == "https://example.org/x"


def test_a_run_inside_a_blockquote_stays_in_it():
    out, _ = md(
        "<blockquote><p>山高水长<br>Mountains high, rivers long</p><p>后会有期<br>We will meet again</p></blockquote>"
    )
    assert out == (
        "> ::: bilingual\n> 山高水长\n> Mountains high, rivers long\n>\n> 后会有期\n> We will meet again\n> :::\n"
    )
    assert render(out).select_one("blockquote > div.bilingual") is not None


@pytest.mark.parametrize(
    "html, expected",
    [
        # an English paragraph with a break and a Chinese quote in it (twice)
        (
            (
                "<p>Grandma used to say “慢慢来”<br>and she was right, <em>as always</em>.</p>"
                "<p>Then she said “别着急”<br>so I waited.</p>"
            ),
            "Grandma used to say “慢慢来”\\\nand she was right, *as always*.\n\nThen she said “别着急”\\\nso I waited.\n",
        ),
        # a quote introduced by an English line is prose, not a stanza
        (
            "<p>She wrote:<br>“山高水长”</p><p>He replied:<br>“后会有期”</p>",
            "She wrote:\\\n“山高水长”\n\nHe replied:\\\n“后会有期”\n",
        ),
        # a single two-line paragraph
        (
            "<p><strong>她软绵绵的肚子 曾经是他的家</strong><br/> <em>Her cloud-soft belly, once his nest;</em></p><p>After.</p>",
            "**她软绵绵的肚子 曾经是他的家**\\\n*Her cloud-soft belly, once his nest;*\n\nAfter.\n",
        ),
        # lines that do not alternate
        (
            "<p>山高水长<br>后会有期</p><p>Mountains high<br>we meet again</p>",
            "山高水长\\\n后会有期\n\nMountains high\\\nwe meet again\n",
        ),
        (
            "<p>山高水长<br>Mountains high<br>rivers long</p><p>后会有期<br>We meet again<br>some day</p>",
            "山高水长\\\nMountains high\\\nrivers long\n\n后会有期\\\nWe meet again\\\nsome day\n",
        ),
        # stanzas that start in different languages are not one poem
        (
            "<p>山高水长<br>Mountains high</p><p>We meet again<br>后会有期</p>",
            "山高水长\\\nMountains high\n\nWe meet again\\\n后会有期\n",
        ),
        # stanzas not next to each other
        (
            "<p>山高水长<br>Mountains high</p><p>An aside.</p><p>后会有期<br>We meet again</p>",
            "山高水长\\\nMountains high\n\nAn aside.\n\n后会有期\\\nWe meet again\n",
        ),
        # an empty line inside a paragraph
        (
            "<p>山高水长<br><br>Mountains high</p><p>后会有期<br>We meet again</p>",
            "山高水长\\\n\\\nMountains high\n\n后会有期\\\nWe meet again\n",
        ),
        # Japanese is not the Chinese the block is made for
        (
            "<p>古池や<br>An old pond</p><p>蛙飛び込む<br>A frog jumps in</p>",
            "古池や\\\nAn old pond\n\n蛙飛び込む\\\nA frog jumps in\n",
        ),
        # paragraphs in a list item
        (
            "<ul><li><p>山高水长<br>Mountains high</p><p>后会有期<br>We meet again</p></li></ul>",
            "- 山高水长\\\n  Mountains high\n\n  后会有期\\\n  We meet again\n",
        ),
    ],
)
def test_paragraphs_that_are_not_a_bilingual_poem_convert_as_before(html, expected):
    out, _ = md(html)
    assert out == expected
    assert "bilingual" not in out and render(out).find(class_="bilingual") is None


@pytest.mark.parametrize(
    "markdown",
    [
        POEM_MD,
        (
            "Before.\n\n::: bilingual\n山高水长\nMountains high, [rivers](https://e.com/r) long\n后会有期\n*We* meet `again`\n\n"
            "夜来风雨声\nNight wind and rain\n:::\n\nAfter.\n"
        ),
        "> ::: bilingual\n> 山高水长\n> Mountains high\n>\n> 后会有期\n> We meet again\n> :::\n",
        "::: bilingual\nOne stanza only\n只有一节\n:::\n",
    ],
)
def test_our_own_bilingual_blocks_round_trip(markdown):
    html = str(render(markdown))
    assert 'class="bilingual"' in html
    out, warnings = md(html)
    assert out == markdown and warnings == []


def test_a_table_whose_header_cells_are_all_empty_has_no_header_row():
    # kramdown writes a table without a header this way; its empty <th> cells named no column (axe)
    page = render("|  |  |\n|--|--|\n| a | b |\n\n| | x |\n|--|--|\n| c | d |\n")
    first, second = page.select("table")
    assert first.find("thead") is None and first.find("th") is None and [td.text for td in first("td")] == ["a", "b"]
    assert [th.text for th in second.select("thead th")] == ["", "x"], "a header with a name keeps its row"
