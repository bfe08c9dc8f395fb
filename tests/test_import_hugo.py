"""`site-builder import OLD NEW` from a Hugo site: URLs by Hugo's rules, shortcodes converted, files copied; and a
subset of two real Hugo blogs (../shared/corpus/sources) imported and built, checked by source_check.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from site_builder.importer.source import import_source
from tests.helpers import run_cli

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the clone (CI); a worktree one folder deeper finds it a level up
SHARED = next((p / "shared" for p in (REPO.parent, REPO.parent.parent) if (p / "shared").is_dir()), REPO / "shared")
SOURCES = SHARED / "corpus" / "sources"
TOOLS = SOURCES.parent.parent / "tools"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def front(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    _, head, body = text.split("---\n", 2)
    return yaml.safe_load(head), body


BILINGUAL = {
    "hugo.toml": """baseURL = "https://example.org/blog/"
title = "Two Tongues"
defaultContentLanguage = "en"
defaultContentLanguageInSubdir = false
[params]
description = "Notes in two languages"
author = "Ada"
[permalinks]
posts = "/:year/:month/:slug/"
[languages.en]
weight = 1
[languages.fr]
weight = 2
[[menus.main]]
name = "About"
pageRef = "/about"
weight = 1
""",
    "content/posts/first.md": '+++\ntitle = "First Post"\ndate = 2021-03-04T10:00:00+02:00\n'
    'lastmod = 2021-05-01\ntags = ["a"]\ncategories = ["Cat"]\naliases = ["old-first"]\n+++\n\nHello.\n',
    "content/posts/first.fr.md": '+++\ntitle = "Premier"\ndate = 2021-03-04\nslug = "premier-billet"\n+++\n\nBonjour.\n',
    "content/posts/bundle/index.md": "---\ntitle: A Bundle\ndate: 2022-01-02\ndraft: true\n---\n\n![x](pic.png)\n",
    "content/posts/bundle/pic.png": "PNG",
    "content/posts/fixed.md": "---\ntitle: Fixed\ndate: 2020-01-01\nurl: /elsewhere/fixed/\ntags: [cat]\n---\n\nText.\n",
    "content/about.md": '{\n  "title": "About",\n  "menu": "main"\n}\n\nWho.\n',  # JSON front matter
    "content/posts/_index.md": "---\ntitle: Posts\n---\n",
}


def test_hugo_bilingual_site_urls_front_matter_and_bundles(tmp_path):
    old = write(tmp_path / "old", BILINGUAL)
    report = import_source(old, tmp_path / "new")
    new = tmp_path / "new"
    site = yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))
    assert site["url"] == "https://example.org/blog/" and site["subtitle"] == "Notes in two languages"
    assert site["author"] == "Ada" and site["languages"] == {"en": {}, "fr": {}} and site["nav"] == ["about"]
    assert site["permalink"] == "/:year/:month/:slug/"
    meta, _ = front(new / "content/posts/first.md")
    # the date's own day (+02:00), Hugo's :slug falling back to the urlized title; aliases made absolute
    assert meta["permalink"] == "/2021/03/first-post/" and meta["lang"] == "en"
    # the category "Cat" and another post's tag "cat" are one tag, in the spelling the build shows it under
    assert meta["tags"] == ["a", "cat"] and meta["updated"].startswith("2021-05-01")
    assert meta["aliases"] == ["/2021/03/old-first"] and meta["translation_key"] == "posts/first"
    fr, _ = front(new / "content/posts/first.fr.md")
    assert fr["permalink"] == "/fr/2021/03/premier-billet/" and fr["translation_key"] == "posts/first"
    bundle, body = front(new / "content/posts/bundle/index.md")
    assert bundle["draft"] is True and bundle["permalink"] == "/2022/01/a-bundle/"
    assert (new / "content/posts/bundle/pic.png").read_text() == "PNG" and "![x](pic.png)" in body
    assert front(new / "content/posts/fixed.md")[0]["permalink"] == "/elsewhere/fixed/"
    about, about_body = front(new / "content/pages/about.md")
    assert about["title"] == "About" and about["permalink"] == "/about/" and about_body.strip() == "Who."
    assert report.posts == 3 and report.drafts == 1 and report.pages == 1
    assert any("content/posts/_index.md" in n for n in report.notes)


SCHEDULED = {
    "hugo.toml": 'title = "Later"\nbaseURL = "https://later.example/"\n',
    "content/posts/now.md": "---\ntitle: Now\ndate: 2020-01-01\nexpiryDate: 2999-01-01\n---\n\nShown.\n",
    "content/posts/soon.md": "---\ntitle: Soon\ndate: 2020-01-01\npublishDate: 2999-05-06\n---\n\nScheduled.\n",
    "content/posts/gone.md": "+++\ntitle = 'Gone'\ndate = 2020-01-01\nexpiryDate = 2021-01-01\n+++\n\nExpired.\n",
}


def test_hugo_future_publish_date_and_past_expiry_date_are_held_back(tmp_path):
    """Hugo publishes neither a page whose publishDate is to come nor one whose expiryDate has passed (without
    --buildFuture/--buildExpired): neither is published here; the report names both."""
    report = import_source(write(tmp_path / "old", SCHEDULED), tmp_path / "new")
    new = tmp_path / "new"
    soon, _ = front(new / "content/posts/soon.md")
    assert soon["date"].startswith("2999-05-06") and soon["permalink"] == "/posts/soon/" and "draft" not in soon
    assert front(new / "content/posts/gone.md")[0]["draft"] is True
    assert "draft" not in front(new / "content/posts/now.md")[0]
    held = [n for n in report.notes if n.startswith("held back")]
    assert len(held) == 2 and held[0].endswith(": content/posts/soon.md") and held[1].endswith("content/posts/gone.md")
    build(new)
    assert (new / "output/posts/now/index.html").is_file()
    assert not (new / "output/posts/soon").exists() and not (new / "output/posts/gone").exists()
    # the config's buildFuture and buildExpired: Hugo published both, and so does the import
    write(tmp_path / "old", {"hugo.toml": SCHEDULED["hugo.toml"] + "buildFuture = true\nbuildExpired = true\n"})
    import_source(tmp_path / "old", tmp_path / "again")
    assert front(tmp_path / "again/content/posts/soon.md")[0]["date"].startswith("2020-01-01")
    assert "draft" not in front(tmp_path / "again/content/posts/gone.md")[0]


SHORTCODES = {
    "config.toml": 'title = "S"\nbaseURL = "https://s.example/"\nuglyURLs = true\n',
    "layouts/shortcodes/pic.html": '<img src="/img/{{ .Get 0 }}.png" alt="{{ .Get 0 }}">',
    "layouts/shortcodes/clever.html": "{{ if .Get 0 }}{{ .Get 0 }}{{ end }}",
    "static/img/cat.png": "PNG",
    "content/post/other.md": "---\ntitle: Other\ndate: 2020-01-01\n---\n\nx\n",
    "content/post/codes.md": """---
title: Codes
date: 2020-02-02
---

{{< highlight python "linenos=table,hl_lines=2 3" >}}
x = 1
y = 2
{{< /highlight >}}

{{< figure src="/img/cat.png" caption="A *cat*" >}}

See [the other]({{< ref "post/other.md" >}}) and {{< youtube dQw4w9WgXcQ >}}.

{{% admonition warning "Careful" true %}}
Hot **stove**; {{< katex >}}x^2{{< /katex >}}.
{{% /admonition %}}

{{% fold "More" %}}
Hidden.
{{% /fold %}}

{{< pic cat >}} and {{< clever yes >}} and {{< cite "knuth84" >}}

`{{</* figure src="x" */>}}`
""",
}


def test_hugo_shortcodes_converted_by_rule(tmp_path):
    old = write(tmp_path / "old", SHORTCODES)
    report = import_source(old, tmp_path / "new")
    meta, body = front(tmp_path / "new/content/posts/codes.md")
    assert meta["permalink"] == "/post/codes.html"  # uglyURLs
    assert '```python {linenos hl_lines="2 3"}\nx = 1\ny = 2\n```' in body
    assert "![A *cat*](</img/cat.png>)" in body and (tmp_path / "new/content/img/cat.png").is_file()
    assert "[the other](/post/other.html)" in body
    assert "(https://www.youtube.com/watch?v=dQw4w9WgXcQ)" in body
    assert "::: warning Careful\nHot **stove**; $x^2$.\n:::" in body
    assert "<details>\n<summary>More</summary>\n\nHidden.\n\n</details>" in body
    assert "![cat](</img/cat.png>)" in body  # the site's own template, expanded
    assert "<!-- not converted: {{< clever yes >}} -->" in body  # logic: not expanded, a warning at its line
    assert '`{{< figure src="x" >}}`' in body
    problems = sorted(str(p) for p in report.problems)
    assert problems == [
        'content/post/codes.md:23: not converted, kept as an HTML comment: {{< cite "knuth84" >}}'
        " (the shortcode 'cite' of the old site's theme)",  # not an admonition: it has no inner text
        "content/post/codes.md:23: not converted, kept as an HTML comment: {{< clever yes >}}"
        " (the shortcode 'clever' of the old site's theme)",
    ]


def build(new: Path):
    """`site-builder build` of an imported site, without the search index (not what is tested; Pagefind takes
    seconds)."""
    with (new / "site.yml").open("a", encoding="utf-8") as f:
        f.write("search: false\n")
    return run_cli("build", "--source", str(new), check=True)


def source_check(old: Path, out: Path, urls: Path | None) -> str:
    args = [sys.executable, str(TOOLS / "source_check.py"), str(old), str(out)] + ([str(urls)] if urls else [])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def subset(src: Path, dest: Path, keep: list[str], also: list[str]) -> Path:
    """A copy of the source with only the posts named (and the other files named), and its urls.tsv for them."""
    for name in also + keep:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (src / name).is_dir() else shutil.copy)(src / name, target)
    urls = src / "urls.tsv"
    if urls.is_file():
        lines = [line for line in urls.read_text(encoding="utf-8").splitlines() if line.split("\t")[0] in keep]
        (dest / "urls.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


OUUAN = [
    "content/post/Surreal-Numbers-阅读笔记.md",  # a Chinese file name, admonitions with a title, math
    "content/post/conditional-probability-in-heredity-calculation.md",  # the site's own img shortcode
    "content/post/firefox-tree-style-tab-and-duplicate-tabs-closer/index.md",  # a bundle; the theme's video
    "content/post/AtCoder-Beginner-Contest-115.md",  # aliases
]


@pytest.mark.skipif(not SOURCES.is_dir(), reason="../shared/corpus/sources not found")
def test_ouuan_subset_imports_and_builds_faithfully(tmp_path):
    src = SOURCES / "ouuan"
    also = ["config.toml", "layouts", "static/post_img/conditional-probability-in-heredity-calculation"]
    old = subset(src, tmp_path / "old", OUUAN, also)
    import_source(old, tmp_path / "new")
    build(tmp_path / "new")
    line = source_check(old, tmp_path / "new" / "output", old / "urls.tsv")
    assert "raw 0," in line and "urls 2/2" in line and "images resolve 1/1" in line, line


@pytest.mark.skipif(not SOURCES.is_dir(), reason="../shared/corpus/sources not found")
def test_jeremykun_subset_keeps_url_and_highlight(tmp_path):
    src = SOURCES / "jeremykun"
    posts = sorted(p.relative_to(src).as_posix() for p in (src / "content/_posts").glob("2014-0[1-2]*.markdown"))
    old = subset(src, tmp_path / "old", posts[:3], ["config.toml"])
    import_source(old, tmp_path / "new")
    site = yaml.safe_load((tmp_path / "new/site.yml").read_text(encoding="utf-8"))
    assert site["math_macros"] == {"textup": "\\textrm{#1}"}  # KaTeX's \textup, which math-core lacks
    built = build(tmp_path / "new")
    assert "cannot render math" not in built.stderr, built.stderr
    line = source_check(old, tmp_path / "new" / "output", None)
    assert "raw 0," in line, line
    for post in posts[:3]:
        url = next(ln for ln in (old / post).read_text(encoding="utf-8").splitlines() if ln.startswith("url:"))
        assert (tmp_path / "new/output" / url.split(":", 1)[1].strip().strip("/") / "index.html").is_file()


CONFIG_DIR = {
    "config/_default/hugo.yaml": "baseURL: https://multi.example/\ntitle: Multi\ndefaultContentLanguage: zh\n"
    "defaultContentLanguageInSubdir: true\n",
    "config/_default/languages.toml": '[zh]\ncontentDir = "content/zh"\nweight = 1\n'
    '[en]\ncontentDir = "content/en"\nweight = 2\n',
    "config/_default/params.toml": 'description = "两种语言"\n',
    "config/_default/menus.toml": '[[main]]\nname = "About"\nurl = "/zh/about/"\n',
    "content/zh/posts/hello/index.md": "---\ntitle: 你好 世界\ndate: 2023-04-05\n---\n\n{{< notice tip >}}\n提示\n{{< /notice >}}\n",
    "content/en/posts/hello/index.md": "---\ntitle: Hello World\ndate: 2023-04-05\n---\n\n"
    '[Home]({{< relref "posts/hello" >}})\n',
    "content/zh/about.md": "---\ntitle: 关于\n---\n\n我。\n",
}


def test_hugo_config_folder_and_a_content_folder_per_language(tmp_path):
    old = write(tmp_path / "old", CONFIG_DIR)
    import_source(old, tmp_path / "new")
    new = tmp_path / "new"
    site = yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))
    assert site["title"] == "Multi" and site["subtitle"] == "两种语言" and site["language"] == "zh"
    assert site["languages"] == {"zh": {}, "en": {}} and site["nav"] == ["about"]
    zh, body = front(new / "content/posts/hello/index.md")
    en, en_body = front(new / "content/posts/hello/index.en.md")
    assert zh["permalink"] == "/zh/posts/hello/" and en["permalink"] == "/en/posts/hello/"  # in a subdir, both
    assert zh["translation_key"] == en["translation_key"] and (zh["lang"], en["lang"]) == ("zh", "en")
    assert "::: tip\n提示\n:::" in body and "[Home](/en/posts/hello/)" in en_body  # in its own language
    assert front(new / "content/pages/about.md")[0]["permalink"] == "/zh/about/"


def test_mathjax_commands_math_core_lacks_are_macros_it_reads():
    """Each command of the table is unknown to math-core (else the macro is not needed) and its macro renders."""
    from math_core import LatexError, LatexToMathML

    from site_builder.importer.source.mathjax import KNOWN_ELSEWHERE

    for name, tex in KNOWN_ELSEWHERE.items():
        use = f"\\{name}" + ("{x}" if "#1" in tex else "")
        with pytest.raises(LatexError):
            LatexToMathML(fancy_error=False).convert_with_local_state(use, displaystyle=False)
        LatexToMathML(fancy_error=False, macros={name: tex}).convert_with_local_state(use, displaystyle=False)


GOLDMARK_MATH = "---\ntitle: Sets\ndate: 2020-01-01\n---\n\nThe set $\\\\{a\\_1, b\\\\}$ and\n\n$$\\begin{cases}x\\\\\\\\y\\end{cases}$$\n"


@pytest.mark.parametrize(
    ("config", "body", "expected"),
    [  # written for Goldmark's escapes, no passthrough: unescaped as MathJax saw it
        ('title = "M"\n', GOLDMARK_MATH, "The set $\\{a_1, b\\}$ and\n\n$$\\begin{cases}x\\\\y\\end{cases}$$"),
        # passthrough keeps math apart from Markdown: as written
        (
            'title = "M"\n[markup.goldmark.extensions.passthrough]\nenable = true\n',
            GOLDMARK_MATH,
            "The set $\\\\{a\\_1, b\\\\}$",
        ),
        # TeX written as it is (jeremykun's): as written
        (
            'title = "M"\n',
            "---\ntitle: S\ndate: 2020-01-01\n---\n\n$\\{a\\}$ and $\\{b\\}$, $\\\\{c\\\\}$\n",
            "$\\{a\\}$ and $\\{b\\}$, $\\\\{c\\\\}$",
        ),
    ],
)
def test_hugo_math_written_for_goldmark_escapes_is_unescaped(tmp_path, config, body, expected):
    old = write(tmp_path / "old", {"config.toml": config, "content/posts/m.md": body})
    import_source(old, tmp_path / "new")
    assert expected in front(tmp_path / "new/content/posts/m.md")[1]


@pytest.mark.parametrize(
    ("files", "post"),
    [
        (
            {"hugo.toml": 'title = "H"\n', "content/posts/p.md": "---\ntitle: P\ndate: 2021-01-01\n---\n\n"},
            "content/posts/p.md",
        ),
        (
            {"pelicanconf.py": "SITENAME = 'P'\n", "content/p.md": "Title: P\nDate: 2021-01-01\n\n"},
            "content/p.md",
        ),
        ({"_config.yml": "title: J\n", "_posts/2021-01-01-p.md": "---\ntitle: P\n---\n\n"}, "_posts/2021-01-01-p.md"),
    ],
    ids=["hugo", "pelican", "jekyll"],
)
def test_each_reader_names_the_post_whose_images_the_source_lacks(tmp_path, files, post):
    """Every reader's posts alike: a post showing images the source folder lacks is named in a warning at the
    post, beside the report's count (only the Jekyll reader did this before)."""
    body = "![a](/img/gone.png) and ![b](/img/gone2.jpg), a [file](/files/x.pdf) and ![ok](/img/here.png)\n"
    files = {
        **files,
        post: files[post] + body,
        "static/img/here.png": "PNG",
        "img/here.png": "PNG",
        "content/img/here.png": "PNG",
    }
    old = write(tmp_path / "old", files)
    proc = run_cli("import", str(old), str(tmp_path / "new"), check=True)
    assert f"{post}: 2 image(s) the post shows are not in the source folder, e.g. /img/gone.png" in proc.stderr
    assert "here.png" not in proc.stderr


@pytest.mark.parametrize(
    ("files", "post", "url"),
    [
        (
            {
                "hugo.toml": 'title = "H"\nbuildFuture = true\n',
                "content/posts/p.md": "---\ntitle: P\ndate: 2999-01-01\n---\n",
            },
            "content/posts/p.md",
            "posts/p",
        ),
        (
            {"pelicanconf.py": "SITENAME = 'P'\n", "content/p.md": "Title: P\nDate: 2999-01-01\n"},
            "content/p.md",
            "p.html",
        ),
        (
            {"_config.yml": "title: J\nfuture: true\n", "_posts/2999-01-01-p.md": "---\ntitle: P\n---\n"},
            "_posts/2999-01-01-p.md",
            "2999/01/01/p.html",
        ),
    ],
    ids=["hugo-buildFuture", "pelican-default", "jekyll-future"],
)
def test_a_source_that_published_future_posts_keeps_them_published(tmp_path, files, post, url):
    """Hugo with `buildFuture = true`, Jekyll with `future: true` and Pelican (WITH_FUTURE_DATES, on unless set)
    published posts dated later: the import writes `future: true`, so the build publishes them at their URLs."""
    files = {**files, post: files[post] + "\nLater text.\n"}
    new = tmp_path / "new"
    import_source(write(tmp_path / "old", files), new)
    assert yaml.safe_load((new / "site.yml").read_text())["future"] is True
    build(new)
    page = new / "output" / url
    assert (page / "index.html" if page.suffix != ".html" else page).is_file(), sorted(
        new.joinpath("output").rglob("*.html")
    )


def test_hugo_frontmatter_date_order_and_filename_dates(tmp_path):
    """The config's `[frontmatter] date` list picks each page's date as Hugo does: `:filename` takes a
    `2019-05-01-first-steps.md` file's date and slug (its URL is /posts/first-steps/, not the whole file name),
    before the front matter's `date` when listed first; `:default` is Hugo's own list. The `lastmod` and
    `expiryDate` lists name their keys the same way."""
    files = {
        "hugo.toml": 'title = "F"\n[frontmatter]\ndate = [":filename", ":default"]\nlastmod = ["revised", ":default"]\n'
        'expiryDate = ["hide_after"]\n',
        "content/posts/revised.md": "---\ntitle: R\ndate: 2018-02-02\nrevised: 2019-03-03\nhide_after: 2019-04-04\n---\n",
        "content/posts/2019-05-01-first-steps.md": "---\ntitle: First\n---\n\nOne.\n",
        "content/posts/2020-02-02-second.md": "---\ntitle: Second\ndate: 2021-03-03\nslug: kept\n---\n\nTwo.\n",
        "content/posts/plain.md": "---\ntitle: Plain\ndate: 2018-01-01\n---\n\nThree.\n",
        "content/posts/2017-07-07-bundle/index.md": "---\ntitle: Bundle\n---\n\nFour.\n",
    }
    new = tmp_path / "new"
    import_source(write(tmp_path / "old", files), new)
    first, _ = front(new / "content/posts/2019-05-01-first-steps.md")
    assert str(first["date"]).startswith("2019-05-01") and first["permalink"] == "/posts/first-steps/"
    second, _ = front(new / "content/posts/2020-02-02-second.md")
    assert str(second["date"]).startswith("2020-02-02") and second["permalink"] == "/posts/kept/"
    assert str(front(new / "content/posts/plain.md")[0]["date"]).startswith("2018-01-01")
    bundle, _ = front(new / "content/posts/2017-07-07-bundle/index.md")
    assert str(bundle["date"]).startswith("2017-07-07") and bundle["permalink"] == "/posts/bundle/"
    revised, _ = front(new / "content/posts/revised.md")  # the config's lastmod and expiryDate lists too
    assert str(revised["updated"]).startswith("2019-03-03") and revised["draft"] is True
    build(new)
    assert (new / "output/posts/first-steps/index.html").is_file()


def test_enable_git_info_takes_each_pages_updated_date_from_its_last_commit(tmp_path):
    """Hugo's `enableGitInfo`: a page's lastmod is its file's last commit (author date), before its front matter's
    `lastmod`, in Hugo's default order; a source that is no git repository keeps the front matter's, with a note."""
    files = {
        "hugo.toml": 'title = "G"\nbaseURL = "https://g.example/"\nenableGitInfo = true\n',
        "content/posts/edited.md": "---\ntitle: Edited\ndate: 2020-01-01\nlastmod: 2020-02-02\n---\n\nOne.\n",
        "content/posts/new.md": "---\ntitle: New\ndate: 2020-01-05\n---\n\nTwo.\n",
    }
    old = write(tmp_path / "old", files)
    report = import_source(old, tmp_path / "copy")  # not a clone yet: a note, the front matter's dates
    assert str(front(tmp_path / "copy/content/posts/edited.md")[0]["updated"]).startswith("2020-02-02")
    assert any(n.startswith("enableGitInfo: the source is not in a git repository") for n in report.notes)

    def git(*args: str, when: str = "2024-06-07T08:09:10+02:00") -> None:
        env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"}
        who = ["-c", "user.name=A", "-c", "user.email=a@example.org"]
        subprocess.run(["git", *who, "-C", str(old), *args], check=True, capture_output=True, env=env)

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "first", when="2024-01-02T03:04:05+00:00")
    (old / "content/posts/edited.md").write_text(files["content/posts/edited.md"] + "\nMore.\n", encoding="utf-8")
    git("commit", "-qam", "edit")
    report = import_source(old, tmp_path / "clone")
    edited, _ = front(tmp_path / "clone/content/posts/edited.md")
    new, _ = front(tmp_path / "clone/content/posts/new.md")
    assert str(edited["updated"]).startswith("2024-06-07T08:09:10+02:00"), edited
    assert str(new["updated"]).startswith("2024-01-02T03:04:05+00:00"), new
    assert not any(n.startswith("enableGitInfo") for n in report.notes)
    build(tmp_path / "clone")
