"""Posts written for Jekyll, Hugo or Pelican, copied into a site, build as they built there (issue 28): what their
front matter meant, their old addresses as redirect pages, their template code named in warnings, bare TeX
environments numbered, formulas in summaries rendered on cards, and the site's static folder copied. Every test
runs the real CLI on a small site in tmp_path."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
from helpers import make_site, run_cli, write_post


def build(root: Path, *flags: str):
    return run_cli("build", *flags, cwd=root)


def warnings_of(proc) -> list[str]:
    return [line[len("warning: ") :] for line in proc.stderr.splitlines() if line.startswith("warning: ")]


def page(root: Path, path: str) -> str:
    return (root / "output" / path).read_text(encoding="utf-8")


def test_front_matter_other_generators_write_keeps_its_meaning(tmp_path):
    root = make_site(tmp_path / "site")
    posts = root / "content" / "posts"
    write_post(root, "unpublished.md", "title: Unpublished\ndate: 2024-01-01\npublished: false")
    write_post(
        root,
        "jekyll.markdown",
        "title: Jekyll post\ndate: 2024-01-02\ndescription: What Jekyll called the description\n"
        "last_modified_at: 2024-05-06\ncategories: [Machine Learning, stats]\ntags: [stats]\n"
        "image: {path: /img/chirpy.png, alt: A chart}",
    )
    (posts / "hugo.mkd").write_text(
        '+++\ntitle = "Hugo post"\ndate = 2024-01-03T10:00:00+02:00\nlastmod = 2024-02-03\nhidden = true\n'
        'tags = ["stats"]\n\n[cover]\nimage = "cover.png"\n+++\n\nHidden but built.\n',
        encoding="utf-8",
    )
    write_post(root, "kramdown.mkdn", "title: Mkdn post\ndate: 2024-01-04\nexcerpt: An excerpt")
    for name in ("notes.txt", "old.html", "pic.png", "data.csv", "helper.py"):
        (posts / name).write_text("x", encoding="utf-8")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert sorted(warnings_of(proc)) == [
        f"content/posts/{name}: not a post, not read (a post is a .md, .markdown, .mkd, .mkdn, .qmd or .ipynb file)"
        for name in ("notes.txt", "old.html")
    ], proc.stderr
    assert "left out: 1 draft" in proc.stdout + proc.stderr
    assert not (root / "output/blog/2024/unpublished").exists()

    home = page(root, "index.html")
    assert "What Jekyll called the description" in home and "An excerpt" in home and "Mkdn post" in home
    assert "Hugo post" not in home  # hidden: in no list, tag page or feed, but built and in the sitemap
    assert "Hidden but built." in page(root, "blog/2024/hugo/index.html")
    assert "Hugo post" not in page(root, "blog/tag/stats/index.html")
    assert "/blog/2024/hugo/" in page(root, "sitemap.xml")
    feed = feedparser.parse(page(root, "feed.xml"))
    assert [e.title for e in feed.entries] == ["Mkdn post", "Jekyll post"]
    assert feed.entries[1].updated.startswith("2024-05-06")
    assert "Jekyll post" in page(root, "blog/tag/machine-learning/index.html")  # categories are tags
    assert 'property="og:image" content="https://example.org/img/chirpy.png"' in page(
        root, "blog/2024/jekyll/index.html"
    )
    assert 'content="https://example.org/blog/2024/hugo/cover.png"' in page(root, "blog/2024/hugo/index.html")


def test_categories_in_the_permalink_pattern_are_not_tags(tmp_path):
    root = make_site(tmp_path / "site", "title: T\npermalink: /:categories/:year/:slug/\n")
    write_post(root, "x.md", "title: X\ndate: 2024-01-02\ncategories: [ML, Notes]")
    write_post(root, "y.md", "title: Y\ndate: 2024-01-03")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "output/ml/notes/2024/x/index.html").is_file()
    assert (root / "output/2024/y/index.html").is_file()  # no category: no empty folder
    assert not (root / "output/blog/tag/ml").exists()


def test_aliases_and_redirect_from_are_redirect_pages(tmp_path):
    root = make_site(tmp_path / "site")
    post = write_post(
        root,
        "moved.md",
        "title: Moved\ndate: 2024-01-02\naliases: [/old/moved/, /2015/05/moved.html]\nredirect_from: older",
    )
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    target = "https://example.org/blog/2024/moved/"
    for path in ("old/moved/index.html", "2015/05/moved.html", "older/index.html"):
        html = page(root, path)
        assert f'<link rel="canonical" href="{target}">' in html
        assert f'<meta http-equiv="refresh" content="0; url={target}">' in html
        assert '<meta name="robots" content="noindex">' in html
    assert "old/moved" not in page(root, "sitemap.xml")

    write_post(root, "other.md", "title: Other\ndate: 2024-01-03")
    post.write_text(post.read_text().replace("/old/moved/", "/blog/2024/other/"), encoding="utf-8")
    proc = build(root)
    assert proc.returncode == 1
    assert "error: content/posts/moved.md:4: redirect /blog/2024/other/ collides with content/posts/other.md" in (
        proc.stderr
    )
    post.write_text(post.read_text().replace("/blog/2024/other/", "https://elsewhere.org/x/"), encoding="utf-8")
    proc = build(root)
    assert proc.returncode == 1
    assert "error: content/posts/moved.md:4: bad aliases 'https://elsewhere.org/x/': it leaves the site" in proc.stderr
    assert (root / "output/old/moved/index.html").is_file()  # the last good output is kept
    # an old address that is the post's own (Hugo sites list `/post/x` for `/post/x/`) is no error: nothing to redirect
    post.write_text(post.read_text().replace("https://elsewhere.org/x/", "/blog/2024/moved"), encoding="utf-8")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    own = "warning: content/posts/moved.md:4: aliases '/blog/2024/moved' is the post's own address, no redirect made"
    assert own in proc.stderr
    assert "Moved" in page(root, "blog/2024/moved/index.html")


TEMPLATE_CODE = """\
Intro {% include figure.liquid path="a.png" %} here.

![chart]({{ site.baseurl }}/assets/chart.png)

{{< figure src="x.png" >}}

{{% admonition note "Proof" true %}}

{: .prompt-tip }

`{% raw %}` in code, and in a block:

```liquid
{% highlight python %}
```

<!-- {% include kept-by-the-importer.html %} -->

$x = \\{% y \\}$ is math.
"""


def test_template_code_left_as_text_is_a_warning_at_its_line(tmp_path):
    root = make_site(tmp_path / "site")
    path = write_post(root, "liquid.md", "title: Liquid\ndate: 2024-01-02", TEMPLATE_CODE)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    lines = path.read_text().splitlines()
    at = {n: text for n, text in enumerate(lines, 1)}
    found = [re.match(r"content/posts/liquid.md:(\d+): (.*) left as text", w) for w in warnings_of(proc)]
    assert all(found), proc.stderr
    got = [(at[int(m[1])].split()[0], m[2]) for m in found if m]
    assert got == [
        ("Intro", "Liquid tag"),
        ("![chart]({{", "Liquid tag"),
        ("{{<", "Hugo shortcode"),
        ("{{%", "Hugo shortcode"),
        ("{:", "kramdown attribute list"),
    ]
    assert "see the docs, Moving your blog: From Jekyll, Hugo or Pelican source" in proc.stderr
    assert build(root, "--strict").returncode == 1


EQUATIONS = """\
As \\eqref{eq:energy} says, and \\ref{eq:sum} too:

\\begin{equation}
E = mc^2 \\label{eq:energy}
\\end{equation}

where \\begin{align*} a &= b \\end{align*} is not numbered and
\\begin{align}
s &= \\sum_i x_i \\label{eq:sum} \\\\
t &= 1
\\end{align}

Not here: `\\begin{equation}x\\end{equation}`, nor \\eqref{eq:nowhere}.
"""


def test_bare_environments_are_numbered_formulas_and_eqref_links_them(tmp_path):
    root = make_site(tmp_path / "site")
    path = write_post(root, "eq.md", "title: Eq\ndate: 2024-01-02", EQUATIONS)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    html = page(root, "blog/2024/eq/index.html")
    assert "\\begin{equation}\nE" not in html.split("<annotation")[0]  # rendered, not shown as text
    assert re.search(r'<div class="math"[^>]*><math display="block">.*?id="eq:energy"><mtext>\(1\)', html, re.S)
    assert re.search(r'id="eq:sum"><mtext>\(2\)</mtext>.*?<mtext>\(3\)</mtext>', html, re.S)  # align* has none
    assert '<a href="#eq:energy">(1)</a>' in html and '<a href="#eq:sum">(2)</a>' in html
    assert "<code>\\begin{equation}x\\end{equation}</code>" in html
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "eq:nowhere" in text)
    assert warnings_of(proc) == [
        f"content/posts/eq.md:{line}: \\eqref{{eq:nowhere}}: no equation of this post has \\label{{eq:nowhere}}"
    ]


def test_formulas_in_summaries_are_rendered_on_cards(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "given.md", "title: Given\ndate: 2024-01-02\nsummary: 'the training loss $L$ decreases, $5 < $6'")
    write_post(root, "derived.md", "title: Derived\ndate: 2024-01-03", "Minimise $\\|w\\|^2$ over $w$.\n")
    write_post(root, "plain.md", "title: Plain\ndate: 2024-01-04\nsummary: 'Tom & Jerry \"quoted\"'")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    cards = dict(re.findall(r'<h2 class="card-title"><a href="[^"]*">(\w+)</a>.*?<p class="summary">(.*?)</p>',
                            page(root, "index.html"), re.S))  # fmt: skip
    assert re.fullmatch(r"the training loss <math>.*?<mi>L</mi>.*?</math> decreases, \$5 &lt; \$6", cards["Given"])
    assert re.fullmatch(r"Minimise <math.*?</math> over <math>.*?<mi>w</mi>.*?</math>\.", cards["Derived"])
    assert cards["Plain"] == "Tom &amp; Jerry &#34;quoted&#34;"
    assert "$" not in cards["Derived"]
    description = re.search(r'name="description" content="([^"]*)"', page(root, "blog/2024/derived/index.html"))
    assert description and description[1] == "Minimise $\\|w\\|^2$ over $w$."
    feed = feedparser.parse(page(root, "feed.xml"))
    assert {e.title: e.get("summary") for e in feed.entries}["Given"].startswith("the training loss $L$ decreases")


def test_the_static_folder_is_copied_to_the_output_root(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-02")
    static = root / "static"
    (static / "files").mkdir(parents=True)
    (static / "files" / "paper.pdf").write_bytes(b"%PDF-1.4 paper")
    (static / "CNAME").write_text("example.org\n")
    (static / "robots.txt").write_text("User-agent: *\nDisallow: /drafts/\n")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    out = root / "output"
    assert (out / "files" / "paper.pdf").read_bytes() == b"%PDF-1.4 paper"
    assert (out / "CNAME").read_text() == "example.org\n"
    assert (out / "robots.txt").read_text() == "User-agent: *\nDisallow: /drafts/\n"

    (static / "files" / "paper.pdf").write_bytes(b"%PDF-1.4 second version")  # nothing else changed
    assert build(root).returncode == 0
    assert (out / "files" / "paper.pdf").read_bytes() == b"%PDF-1.4 second version"

    (static / "blog" / "2024" / "a").mkdir(parents=True)
    (static / "blog" / "2024" / "a" / "index.html").write_text("mine")
    proc = build(root)
    assert proc.returncode == 1
    assert "error: static/blog/2024/a/index.html: static/blog/2024/a/index.html would replace" in proc.stderr
    assert "<title>" in (out / "blog/2024/a/index.html").read_text()  # the output is left as it was


def test_a_summary_removed_gives_the_excerpt_back(tmp_path):
    root = make_site(tmp_path / "site")
    path = write_post(root, "p.md", "title: P\ndate: 2024-01-02\nsummary: Given $L$", "The text's own start, $x$.\n")
    assert build(root).returncode == 0
    assert "Given <math>" in page(root, "index.html")
    path.write_text(path.read_text().replace("summary: Given $L$\n", ""), encoding="utf-8")  # the text is the same
    assert build(root).returncode == 0
    assert re.search(r'<p class="summary">The text&#39;s own start, <math>.*?<mi>x</mi>', page(root, "index.html"))
