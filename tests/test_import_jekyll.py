"""`site-builder import OLD NEW` from Jekyll sources: a few real posts of each of three real blogs
(../shared/corpus/sources: al-folio, Chirpy, Minimal Mistakes) imported, built and checked with the shared
source_check tool, and small made-up sites for the rules a user relies on (URLs, Liquid, kramdown, drafts)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import run_cli

# ../shared beside the repository (CI's clone), or beside the folder of worktrees
SHARED = next((p / "shared" for p in Path(__file__).resolve().parents[2:4] if (p / "shared").is_dir()), Path("shared"))
SOURCES = SHARED / "corpus" / "sources"

# per source: the posts (with what they exercise) and the files they use, copied into a small tree
SUBSETS = {
    "markusthill": (
        [
            "_posts/2025-08-01-conways-game-of-life.md",  # figure.liquid includes, {% highlight %}
            "_posts/2024-05-02-obsfucated-c-code.md",  # {% highlight c linenos %}
            "_posts/2024-04-29-surprising-investment.md",  # {% cite %}
            "_posts/2025-09-24-connect-4-tree-search-algorithms.md",  # {% post_url %}
            "_posts/2025-07-05-connect-4-introduction-and-tree-search-algorithms.md",
            "_pages/about.md",
        ],
        ["assets/img/2019-04-13-conways-game-of-life", "assets/img/prof_pic.jpg"],
    ),
    "yunseo": (
        [
            "_posts/en/2021-02-07-Setting-up-a-Machine-Learning-Development-Environment.md",  # images, prompts
            "_posts/ko/2021-02-07-Setting-up-a-Machine-Learning-Development-Environment.md",  # /ko/ prefix
            "_posts/en/2025-02-05-how-to-support-multi-language-on-jekyll-blog-with-polyglot-3.md",  # raw, file=
            "_tabs/about.md",
        ],
        ["assets/img/머신러닝-개발환경-구축하기", "assets/img/technology.webp"],
    ),
    "helloworld": (
        [
            "_posts/latex/figure/2025-06-13-`listoffigures`-and-`listoftables`.md",  # include gallery
            "_posts/unpublished/2024-11-20-Filelocator-Pro.md",  # published: false
            "_posts/latex/font/2024-02-04-Chinese-Font-Size.md",  # notice--primary
            "_posts/mathematics/probability & statistics/2023-10-10-Law-of-Large-Numbers.md",  # notice in a quote
        ],
        ["_data/navigation.yml"],
    ),
}

if not SOURCES.is_dir():
    pytest.skip(f"real sources not found at {SOURCES}", allow_module_level=True)


def subset(name: str, into: Path) -> tuple[Path, Path]:
    """A copy of source `name` with its config, the chosen posts and files; its urls.tsv for those posts."""
    src, (posts, files) = SOURCES / name, SUBSETS[name]
    into.mkdir(parents=True)
    shutil.copy(src / "_config.yml", into / "_config.yml")
    for rel in posts + files:
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (src / rel).is_dir() else shutil.copy)(src / rel, into / rel)
    urls = into.parent / f"{name}-urls.tsv"
    lines = (src / "urls.tsv").read_text(encoding="utf-8").splitlines() if (src / "urls.tsv").exists() else []
    urls.write_text("".join(f"{line}\n" for line in lines if line.split("\t")[0] in posts), encoding="utf-8")
    return into, urls


def front(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each source's subset imported and built once for the tests of this module: name -> (old, urls, new)."""
    done: dict[str, tuple[Path, Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path, Path]:
        if name not in done:
            tmp = tmp_path_factory.mktemp(name)
            old, urls = subset(name, tmp / "old")
            new = tmp / "new"
            imported = run_cli("import", str(old), str(new), check=True)
            assert f"into {new}" in imported.stdout.splitlines()[-1]
            with (new / "site.yml").open("a", encoding="utf-8") as f:
                f.write("search: false\n")  # not what is tested here; Pagefind's index takes seconds
            run_cli("build", cwd=new, check=True)
            done[name] = (old, urls, new)
        return done[name]

    return get


@pytest.mark.parametrize("name", sorted(SUBSETS))
def test_real_jekyll_posts_import_build_and_check_clean(built, name):
    old, urls, new = built(name)
    check = subprocess.run(
        [sys.executable, str(SHARED / "tools" / "source_check.py"), str(old), str(new / "output"), str(urls)],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout
    assert "raw 0," in check.stdout and "unpublished leaked 0" in check.stdout


def test_al_folio_posts_keep_their_urls_code_and_links(built):
    _, urls, new = built("markusthill")
    for line in urls.read_text(encoding="utf-8").splitlines():
        assert (new / "output" / line.split("\t")[1].strip("/") / "index.html").is_file(), line
    page = (new / "output/blog/2025/connect-4-tree-search-algorithms/index.html").read_text(encoding="utf-8")
    assert 'href="/blog/2025/connect-4-introduction-and-tree-search-algorithms/"' in page  # {% post_url %}
    obfuscated = (new / "content/posts/2024-05-02-obsfucated-c-code.md").read_text(encoding="utf-8")
    assert "{% highlight" not in obfuscated and "```c" in obfuscated
    site = yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))
    assert site["url"] == "https://MarkusThill.github.io/" and site["permalink"] == "/blog/:year/:slug/"
    assert site["nav"] == ["about"]


def test_chirpy_languages_prompts_and_file_titles(built):
    _, _, new = built("yunseo")
    ko = front(new / "content/posts/ko/2021-02-07-Setting-up-a-Machine-Learning-Development-Environment.md")
    assert ko["permalink"] == "/ko/posts/Setting-up-a-Machine-Learning-Development-Environment/"
    assert ko["lang"] == "ko" and ko["translation_key"] == "Setting-up-a-Machine-Learning-Development-Environment"
    body = (
        new / "content/posts/en/2025-02-05-how-to-support-multi-language-on-jekyll-blog-with-polyglot-3.md"
    ).read_text(encoding="utf-8")
    assert "::: note" in body and "{: .prompt" not in body
    assert "title=" in body and "{: file=" not in body
    assert "{% raw %}" not in body and "{%" in body  # raw's text kept as written
    site = yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))
    assert site["language"] == "en" and set(site["languages"]) == {"en", "ko"}


def test_minimal_mistakes_unpublished_is_a_draft_and_gallery_a_gallery(built):
    _, _, new = built("helloworld")
    assert front(new / "content/posts/unpublished/2024-11-20-Filelocator-Pro.md")["draft"] is True
    gallery = (new / "content/posts/latex/figure/2025-06-13-`listoffigures`-and-`listoftables`.md").read_text(
        encoding="utf-8"
    )
    assert "::: gallery" in gallery and "{% include gallery" not in gallery
    post = front(new / "content/posts/latex/font/2024-02-04-Chinese-Font-Size.md")
    assert post["permalink"] == "/2024-02-04/" + post["permalink"].split("/")[2]  # /:year-:month-:day/:hour-...
    assert post["permalink"].endswith(".html")


def jekyll_site(root: Path, config: str, posts: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / "_config.yml").write_text(config, encoding="utf-8")
    for rel, text in posts.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_jekyll_url_rules(tmp_path):
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nurl: https://ex.org\nbaseurl: /blog\n",
        {
            "_posts/2020-01-02-Hello_World.md": "---\ntitle: a\ncategories: [News, Tech]\nredirect_from: /a-old/\n---\nx\n",
            "redirects/old.md": "---\npermalink: /old-a/\nredirect_to: /news/tech/2020/01/02/Hello-World.html\n---\n",
            "code/_posts/2020-03-04-b.markdown": "---\ntitle: b\ndate: 2020-03-04 23:30:00 -0800\n---\ny\n",
            "_posts/sub/2021-05-06-c.md": "---\ntitle: c\npermalink: /custom/:title/\n---\nz\n",
            "_posts/notes.txt": "not a post",
        },
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    # Jekyll's default style: /:categories/:year/:month/:day/:title.html; category folders count; UTC by default
    hello = front(new / "content/posts/2020-01-02-Hello_World.md")
    assert hello["permalink"] == "/news/tech/2020/01/02/Hello-World.html"
    assert hello["aliases"] == ["/a-old/", "/old-a/"]  # redirect_from, and a redirect_to page (jekyll-redirect-from)
    assert front(new / "content/posts/code/2020-03-04-b.md")["permalink"] == "/code/2020/03/05/b.html"
    assert front(new / "content/posts/sub/2021-05-06-c.md")["permalink"] == "/custom/c/"
    assert yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))["url"] == "https://ex.org/blog/"
    assert "_posts/notes.txt: not read" in proc.stderr  # never skipped silently


def test_unconverted_liquid_is_a_comment_and_a_warning_at_its_line(tmp_path):
    body = "Intro with {{ site.baseurl }}/x and $$ E = mc^2 $$ inline.\n\n{% if page.x %}\nshown\n{% endif %}\n"
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-a.md": f"---\ntitle: a\n---\n{body}"})
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "warning: _posts/2020-01-02-a.md:6: not converted, kept as an HTML comment: {% if page.x %}" in proc.stderr
    assert "1 constructs not converted" in proc.stdout
    text = (new / "content/posts/2020-01-02-a.md").read_text(encoding="utf-8")
    assert "Intro with /x and $E = mc^2$ inline." in text
    assert "<!-- not converted: {% if page.x %}" in text
    run_cli("build", cwd=new, check=True)
    page = next((new / "output").rglob("a.html")).read_text(encoding="utf-8")
    assert "{% if" not in page.replace("<!-- not converted: {% if", "")


def test_import_refuses_a_non_empty_new_site(tmp_path):
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-a.md": "---\ntitle: a\n---\nx\n"})
    new = tmp_path / "new"
    new.mkdir()
    (new / "keep.txt").write_text("mine", encoding="utf-8")
    proc = run_cli("import", str(old), str(new))
    assert proc.returncode != 0 and "not empty" in proc.stderr
    assert sorted(p.name for p in new.iterdir()) == ["keep.txt"]


def test_tex_macros_a_post_defines_are_expanded_where_it_uses_them(tmp_path):
    body = (
        "\\\\(\n\\def\\matr#1{\\mathbf{#1}}\n\\newcommand{\\batch}{\\mathord{N}}\n\\DeclareMathOperator{\\E}{E}\n\\\\)\n\n"
        "The mean $\\E[\\matr X]$ over $\\batch$ rows, and $\\matr\\Delta$.\n"
    )
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-m.md": f"---\ntitle: m\n---\n{body}"})
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    text = (new / "content/posts/2020-01-02-m.md").read_text(encoding="utf-8")
    assert "\\def" not in text and "\\newcommand" not in text and "\\\\(" not in text
    assert "$\\operatorname{E} [{\\mathbf{X}}]$" in text and "$\\mathord{N} $" in text
    assert "${\\mathbf{\\Delta}}$" in text
    build = run_cli("build", cwd=new, check=True)
    assert "cannot render math" not in build.stderr


def test_collection_pages_and_images_from_the_authors_computer(tmp_path):
    old = jekyll_site(
        tmp_path / "old",
        "title: T\ncollections:\n  projects:\n    output: true\n  news:\n    output: true\n    permalink: /news/:path/\n",
        {
            "_projects/bitbully.md": "---\ntitle: BitBully\nnav: true\n---\nA Connect-4 solver.\n",
            "_news/one.md": "---\ntitle: One\n---\nNews.\n",
            "_posts/2020-01-02-a.md": "---\ntitle: a\n---\nSee ![shot](C:\\Users\\me\\Typora\\shot.png) here.\n",
        },
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert front(new / "content/pages/projects/bitbully.md")["permalink"] == "/projects/bitbully.html"
    assert front(new / "content/pages/news/one.md")["permalink"] == "/news/one/"
    assert yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))["nav"] == ["projects/bitbully"]
    assert "See shot here." in (new / "content/posts/2020-01-02-a.md").read_text(encoding="utf-8")
    assert "_posts/2020-01-02-a.md:4: image at a path of the author's computer" in proc.stderr
    run_cli("build", cwd=new, check=True)
    assert 'href="/projects/bitbully.html"' in (new / "output/index.html").read_text(encoding="utf-8")  # the header


def test_values_liquid_computes_and_mathjax_numbering(tmp_path):
    body = (
        '{% capture notice-1 %}\nCaptured **text**.\n{% endcapture %}\n<div class="notice--info">{{ notice-1 | markdownify }}</div>\n\n'
        '{% assign open = "{%" %}Write {{ open }} raw.\n\n'
        "Date: {{ \"2024-11-25 10:00:50 +0800\" | date: '%B %-d, %Y' }}.\n\n"
        '<div class="notice--warning" markdown="1">\nMind **this**.\n</div>\n\n'
        "$$y = c_1y_1 + c_2y_2 \\label{eqn:sol}\\tag{5}$$\n\nSee \\eqref{eqn:sol}; $y^\\*$ is optimal.\n\n"
        "$$\n\\begin{split}\na &= b \\mbox{ and } c \\thicksim d\\\\\n&= e\n\\end{split}\n$$\n"
        "Bare:\n\\begin{align}\nx &= 1 \\label{eq:x}\n\\end{align}\nso \\eqref{eq:x}.\n"
    )
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-v.md": f"---\ntitle: v\n---\n{body}"})
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "everything converted" in proc.stdout
    text = (new / "content/posts/2020-01-02-v.md").read_text(encoding="utf-8")
    assert "Captured **text**." in text and "Write {% raw." in text and "Date: November 25, 2024." in text
    assert "::: warning\nMind **this**.\n:::" in text
    assert "\\begin{equation}y = c_1y_1" in text and "$y^*$" in text
    assert "\\begin{split}\na &= b \\mbox{ and } c \\thicksim d" in text  # kept: the build reads MathJax's TeX
    # MathJax's bare environment: kept as the source wrote it, the build renders it (numbered, \eqref linked)
    assert "Bare:\n\\begin{align}\nx &= 1 \\label{eq:x}\n\\end{align}\nso \\eqref{eq:x}." in text
    build = run_cli("build", cwd=new, check=True)
    assert "cannot render math" not in build.stderr
    page = next((new / "output").rglob("v.html")).read_text(encoding="utf-8")
    assert 'id="eq:x"><mtext>(1)' in page and '<a href="#eq:x">(1)</a>' in page  # numbered; \eqref links it


def test_jekyll_scholar_citations_and_references(tmp_path):
    bib = "@article{Chernoff73,\n  author = {Chernoff, Herman},\n  title = {The Use of Faces.},\n  journal = {JASA},\n  year = 1973\n}\n"
    post = (  # in al-folio's <div>, as its posts have it
        "---\ntitle: c\n---\nFaces {% cite Chernoff73 --file refs %} and {% cite Nobody99 %}.\n\n"
        '<div class="publications">\n{% bibliography --file refs --cited %}\n</div>\n'
    )
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_bibliography/refs.bib": bib, "_posts/2020-01-02-c.md": post})
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    text = (new / "content/posts/2020-01-02-c.md").read_text(encoding="utf-8")
    assert "Faces ([Chernoff, 1973](#Chernoff73)) and [Nobody99]." in text
    assert '1. <span id="Chernoff73"></span>**The Use of Faces**. Herman Chernoff. *JASA*. 1973.' in text
    assert "_posts/2020-01-02-c.md:4: citation {% cite Nobody99 %}: no entry Nobody99" in proc.stderr
    run_cli("build", cwd=new, check=True)
    page = next(p for p in (new / "output").rglob("*.html") if "Chernoff73" in p.read_text()).read_text()
    # the list is Markdown, not text of the HTML block around it (a blank line ends that block)
    assert (
        '<div class="publications">\n<ol>\n<li><span id="Chernoff73"></span><strong>The Use of Faces</strong>' in page
    )
    assert "**" not in page


def test_octopress_site_in_its_source_folder(tmp_path):
    from PIL import Image

    post = (
        "---\nlayout: post\ntitle: Hello\ncategories: [news]\n---\n"
        '{% img right /images/dot.png 50 50 "A dot" "a red dot" %}\n\n'
        "{% blockquote Douglas Adams, The Hitchhiker's Guide %}\nDon't panic.\n{% endblockquote %}\n\n"
        "{% codeblock Greeting lang:python %}\nprint('hi')\n{% endcodeblock %}\n\n"
        '{% pullquote %}\nSome {" text that matters "} here.\n{% endpullquote %}\n'
    )
    old = jekyll_site(
        tmp_path / "old",
        "title: Octo\nurl: http://ex.org\nsource: source\npermalink: /blog/:year/:month/:day/:title/\n",
        {"source/_posts/2012-01-02-hello.markdown": post, "Rakefile": "task :x"},
    )
    (old / "source/images").mkdir()
    Image.new("RGB", (4, 4), "red").save(old / "source/images/dot.png")
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "everything converted" in proc.stdout, proc.stderr
    meta = front(new / "content/posts/2012-01-02-hello.md")
    assert meta["permalink"] == "/blog/2012/01/02/hello/" and meta["tags"] == ["news"]
    text = (new / "content/posts/2012-01-02-hello.md").read_text(encoding="utf-8")
    assert "![a red dot](</images/dot.png>)" in text
    assert "> Don't panic.\n>\n> — Douglas Adams, The Hitchhiker's Guide" in text
    assert "```python {title=\"Greeting\"}\nprint('hi')\n```" in text
    assert "Some text that matters here." in text
    run_cli("build", cwd=new, check=True)
    assert (new / "output/images/dot.png").is_file()


def test_a_figure_whose_path_is_a_liquid_variable_is_not_guessed(tmp_path):
    body = '{% include figure.liquid path=callout_content caption="c" %}\n\n$$\n\\begin{eqnarray*}\na &=& b\n\\end{eqnarray*}\n$$\n'
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-f.md": f"---\ntitle: f\n---\n{body}"})
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert (
        "_posts/2020-01-02-f.md:4: not converted, kept as an HTML comment: {% include figure.liquid path=callout_content"
        in proc.stderr
    )
    text = (new / "content/posts/2020-01-02-f.md").read_text(encoding="utf-8")
    assert "/callout_content" not in text and "\\begin{eqnarray*}\na &=& b\n\\end{eqnarray*}" in text
    build = run_cli("build", cwd=new, check=True)
    assert "cannot render math" not in build.stderr


def test_liquid_loop_inside_html_keeps_the_html_block_whole(tmp_path):
    body = (
        "<div>\n<swiper-container>\n    {% for i in (1..3) %}\n        {% if i < 10 %}\n"
        '            {% assign prefix = "0" %}\n        {% endif %}\n'
        "  <swiper-slide>{% include figure.liquid path=callout_content %}</swiper-slide>\n    {% endfor %}\n"
        "</swiper-container>\n</div>\n\nAfter the slides.\n"
    )
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-s.md": f"---\ntitle: s\n---\n{body}"})
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    run_cli("build", cwd=new, check=True)
    page = next((new / "output").rglob("s.html")).read_text(encoding="utf-8")
    assert "<pre" not in page and "<p>After the slides.</p>" in page
    assert "{% assign" not in page.replace("<!-- not converted:", "").split("-->")[-1]


def test_polyglot_redirects_are_under_each_languages_prefix(tmp_path):
    """jekyll-polyglot writes each language's pages under its prefix, the redirect pages of `redirect_from` too: two
    translations that keep one old address each redirect from their own language's (/old/ and /ko/old/)."""
    post = "---\ntitle: {t}\nredirect_from: /old/\n---\n{t}\n"
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nurl: https://ex.org\nlanguages: [en, ko]\ndefault_lang: en\npermalink: /posts/:title/\n",
        {"_posts/en/2020-01-02-a.md": post.format(t="Hello"), "_posts/ko/2020-01-02-a.md": post.format(t="안녕")},
    )
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    assert front(new / "content/posts/en/2020-01-02-a.md")["aliases"] == ["/old/"]
    assert front(new / "content/posts/ko/2020-01-02-a.md")["aliases"] == ["/ko/old/"]
    run_cli("build", cwd=new, check=True)
    for path, target in (("old", "https://ex.org/posts/a/"), ("ko/old", "https://ex.org/ko/posts/a/")):
        html = (new / "output" / path / "index.html").read_text(encoding="utf-8")
        assert f'<link rel="canonical" href="{target}">' in html


def test_link_to_a_site_file_config_values_and_a_home_page_at_slash(tmp_path):
    """minima starters write `{{ site.base_url }}{% link /assets/x.png %}` (a config value as a base path, and
    Jekyll's link to any file of the site), `{{ site.x }}` of their own config, and a front page at `permalink: /`."""
    body = '<img src="{{ site.base_url }}{% link /assets/imgs/a.png %}" width="80%">\n\nBy {{ site.author_name }}.\n'
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nbase_url: /proj\nauthor_name: Ann Lee\n",
        {
            "_posts/2020-01-02-a.md": f"---\ntitle: a\n---\n{body}",
            "assets/imgs/a.png": "png",
            "_pages/front.md": "---\npermalink: /\nlayout: home\n---\nWelcome, this is my blog.\n",
        },
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    text = (new / "content/posts/2020-01-02-a.md").read_text(encoding="utf-8")
    assert '<img src="/assets/imgs/a.png" width="80%">' in text and "By Ann Lee." in text
    assert (new / "static/assets/imgs/a.png").read_text(encoding="utf-8") == "png"
    assert "warning" not in proc.stderr, proc.stderr
    assert "pages not imported" in proc.stdout and "_pages/front.md" in proc.stdout  # the home page: not `//`
    assert not (new / "content/pages").is_dir() or not list((new / "content/pages").iterdir())


def test_chirpy_prompts_in_list_items_after_paragraphs_and_polyglot_redirects(tmp_path):
    """Chirpy (kramdown's GFM input): a prompt in a list item, indented; a quote right after a paragraph (GFM ends
    the paragraph there) with lazy lines; a polyglot language's redirect_from under /LANG/, as polyglot wrote it."""
    body = (
        "- **Pins:**\n    Pip pins versions.\n    > `pip install numpy==1.21`\n    {: .prompt-tip}\n\n"
        "Find the amount.\n> $$\\begin{aligned}\na &= b \\\\\n&= c\n> \\end{aligned}$$\n{: .prompt-info }\n"
    )
    post = f"---\ntitle: a\nredirect_from: /posts/old-a/\n---\n{body}"
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nlanguages: [en, ko]\ndefault_lang: en\n",
        {"_posts/en/2020-01-02-a.md": post, "_posts/ko/2020-01-02-a.md": post},
    )
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    text = (new / "content/posts/ko/2020-01-02-a.md").read_text(encoding="utf-8")
    assert "    Pip pins versions.\n    ::: tip\n    `pip install numpy==1.21`\n    :::" in text
    assert "Find the amount.\n::: note\n" in text and "&= c\n\\end{aligned}$$\n\n:::" in text and "\n>" not in text
    assert front(new / "content/posts/ko/2020-01-02-a.md")["aliases"] == ["/ko/posts/old-a/"]
    assert front(new / "content/posts/en/2020-01-02-a.md")["aliases"] == ["/posts/old-a/"]
    build = run_cli("build", cwd=new, check=True)
    assert "prompt" not in build.stderr


def test_config_exclude_leaves_folders_and_files_out(tmp_path):
    """Minimal Mistakes' own repository keeps its demo posts in test/_posts and docs/, excluded by its
    _config.yml (`exclude: [/docs, /test]`): Jekyll does not build them, nor does the import."""
    post = "---\ntitle: a\n---\nx\n"
    old = jekyll_site(
        tmp_path / "old",
        'title: T\nexclude:\n  - /test\n  - docs\n  - "*.sublime-project"\n',
        {"_posts/2020-01-02-a.md": post, "test/_posts/2010-01-02-demo.md": post, "docs/_docs/01-x.md": post},
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "imported 1 posts" in proc.stdout
    assert [p.name for p in (new / "content").rglob("*.md")] == ["2020-01-02-a.md"]


def test_an_image_named_in_another_case_than_its_file_is_linked_by_the_files_name(tmp_path):
    """`Iteratee1.svg` for `iteratee1.svg` showed on a case-insensitive disk only: one file alone matching, the
    image links the file by its own name (a warning says so); two matching is not guessed."""
    from site_builder.importer.source import import_source

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'
    body = "![It](/Images/Iteratee1.svg) and ![P](pics/Photo.PNG) and ![Two](/images/two.png)\n\n`![](/Images/Iteratee1.svg)`\n"
    old = jekyll_site(
        tmp_path / "old",
        "title: T\n",
        {
            "_posts/2020-01-02-a.md": f"---\ntitle: a\n---\n{body}",
            "images/iteratee1.svg": svg,
            "images/Two.png": "PNG",
            "images/TWO.png": "PNG",
            "_posts/pics/photo.png": "PNG",
        },
    )
    report = import_source(old, tmp_path / "new")
    text = (tmp_path / "new/content/posts/2020-01-02-a.md").read_text(encoding="utf-8")
    assert "![It](/images/iteratee1.svg) and ![P](pics/photo.png) and ![Two](/images/two.png)" in text
    assert "`![](/Images/Iteratee1.svg)`" in text  # code: as written
    assert (tmp_path / "new/content/images/iteratee1.svg").read_text(encoding="utf-8") == svg
    assert (tmp_path / "new/content/posts/pics/photo.png").is_file()
    problems = [str(p) for p in report.problems]
    assert (
        "_posts/2020-01-02-a.md:4: /Images/Iteratee1.svg is /images/iteratee1.svg on disk (a name in another case:"
        " it showed on a case-insensitive disk only): linked as /images/iteratee1.svg; write /images/iteratee1.svg"
        " in the source to fix it there"
    ) in problems
    assert any("pics/Photo.PNG is pics/photo.png on disk" in p for p in problems)
    assert any("not in the source folder, e.g. /images/two.png" in p for p in problems)


def test_al_folio_sizes_link_their_originals_and_the_report_counts_what_the_source_lacks(tmp_path):
    """al-folio's `x-480.webp` is made from `x.JPG` when the old site is built (jekyll-imagemagick): not in the
    source, it is the original. What the source lacks (commented out aside) is counted in one line, by where it goes
    in the new site, so the user knows what to copy from the old site."""
    body = (
        '<a href="/assets/img/p.JPG"><img src="/assets/img/p-480.webp" width="33%"/></a>\n\n'
        "![q](/assets/img/q-800.webp) ![r](/assets/img/r-123.webp) ![g](/assets/img/trip/gone.png)\n\n"
        '<img src="/assets/img/trip/gone2-480.webp"> <audio src="/assets/audio/a.mp3"></audio>\n\n'
        "<!--- ![old](/slides/old.png) --->\n"
    )
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nimagemagick:\n  enabled: true\n  widths: [480, 800]\n",
        {
            "_posts/2020-01-02-a.md": f"---\ntitle: a\nthumbnail: /assets/img/p-800.webp\n---\n{body}",
            "assets/img/p.JPG": "JPEG",
            "assets/img/q.png": "PNG",
            "assets/img/r.png": "PNG",
        },
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    post = (new / "content/posts/2020-01-02-a.md").read_text(encoding="utf-8")
    assert '<a href="/assets/img/p.JPG"><img src="/assets/img/p.JPG" width="33%"/></a>' in post
    assert "![q](/assets/img/q.png) ![r](/assets/img/r-123.webp)" in post  # 123 is not one of the config's widths
    assert front(new / "content/posts/2020-01-02-a.md")["image"] == "/assets/img/p.JPG"
    assert (new / "static/assets/img/p.JPG").read_text() == "JPEG" and (new / "content/assets/img/q.png").is_file()
    assert not list(new.rglob("*.webp"))
    lines = proc.stdout.splitlines()
    assert lines[-2] == (
        f"3 images and 1 other file the posts use are not in {old}: copy them from the old site (the path after"
        f" content/ or static/ is their URL there) into {new}: content/assets/img/r-123.webp,"
        " content/assets/img/trip/gone.png, static/assets/audio/a.mp3, static/assets/img/trip/gone2-480.webp"
    )
    assert "_posts/2020-01-02-a.md: 3 image(s) the post shows are not in the source folder" in proc.stderr


def test_tags_one_spelling_and_katex_macros_as_for_hugo_and_pelican(tmp_path):
    """A category "Optimization" and another post's tag "optimization" are one tag here: the import writes the
    spelling the build shows (the most common), so the build has nothing to warn about; KaTeX's `\\textup`, which
    math-core lacks, becomes a `math_macros` entry, as the Hugo and Pelican imports do."""
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nurl: https://ex.org\npermalink: /:year/:title/\n",  # categories not in the URL: they join the tags
        {
            "_posts/2020-01-02-a.md": "---\ntitle: a\ncategories: [Optimization]\n---\nSee $\\textup{x}$.\n",
            "_posts/2020-01-03-b.md": "---\ntitle: b\ntags: [optimization]\n---\ny\n",
            "_posts/2020-01-04-c.md": "---\ntitle: c\ntags: [optimization, Optimization]\n---\nz\n",
        },
    )
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    assert [front(new / f"content/posts/2020-01-0{d}-{n}.md")["tags"] for d, n in ((2, "a"), (3, "b"), (4, "c"))] == [
        ["optimization"]
    ] * 3
    assert yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))["math_macros"] == {"textup": "\\textrm{#1}"}
    proc = run_cli("build", "--source", str(new), "--strict")
    assert proc.returncode == 0 and "warning" not in proc.stderr and "error" not in proc.stderr, proc.stderr


def test_polyglot_links_go_to_the_posts_language_as_polyglot_led_them(tmp_path):
    """jekyll-polyglot relativized every root-relative link of a page in another language: a Korean post's
    `/posts/b/#x` led to `/ko/posts/b/#x`. The import writes that link where there is a Korean page; a page only the
    default language has (polyglot served a copy), an image and code are left as written; the built site has no
    broken link."""
    b = "---\ntitle: {t}\n---\n## Section X\n\n{t}\n"
    ko = (
        '---\ntitle: 가\n---\n[b](/posts/b/#section-x), <a href="/posts/b/">raw</a>, [en only](/posts/c/)'
        " ![i](/assets/i.png)\n\n```\n[code](/posts/b/)\n```\n"
    )
    old = jekyll_site(
        tmp_path / "old",
        "title: T\nurl: https://ex.org\nlanguages: [en, ko]\ndefault_lang: en\npermalink: /posts/:title/\n",
        {
            "_posts/en/2020-01-02-b.md": b.format(t="Bee"),
            "_posts/ko/2020-01-02-b.md": b.format(t="비"),
            "_posts/en/2020-01-03-c.md": "---\ntitle: C\n---\nSee.\n",
            "_posts/ko/2020-01-04-a.md": ko,
            "assets/i.png": "png",
        },
    )
    new = tmp_path / "new"
    run_cli("import", str(old), str(new), check=True)
    text = (new / "content/posts/ko/2020-01-04-a.md").read_text(encoding="utf-8")
    assert '[b](/ko/posts/b/#section-x), <a href="/ko/posts/b/">raw</a>, [en only](/posts/c/)' in text
    assert "![i](/assets/i.png)" in text and "[code](/posts/b/)" in text
    proc = run_cli("build", cwd=new, check=True)
    assert " links to " not in proc.stderr, proc.stderr


def test_a_title_is_html_as_liquid_prints_it(tmp_path):
    """al-folio's `title: Connect-4&#58; First Steps` (a colon YAML would not take unquoted) showed `:` there."""
    post = "---\ntitle: Connect-4&#58; First Steps &#8211; Part 1\n---\nText.\n"
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-c.md": post})
    run_cli("import", str(old), str(tmp_path / "new"), check=True)
    text = (tmp_path / "new/content/posts/2020-01-02-c.md").read_text(encoding="utf-8")
    assert "title: 'Connect-4: First Steps – Part 1'" in text
