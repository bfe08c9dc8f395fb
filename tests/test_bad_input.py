"""Bad input: one clear `file:line: message` line on stderr, exit code 1, no traceback, no output.

Every test runs the real CLI in a subprocess on a tiny site and checks only what a user sees.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import assert_one_line_error, make_site, run_cli, write_post

GOOD = "title: Good post\ndate: 2024-01-02\ntags: [a]"


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site")
    write_post(root, "good.md", GOOD)
    return root


def build(root: Path, *extra: str):
    return run_cli("build", "--source", str(root), *extra)


def assert_nothing_written(root: Path) -> None:
    assert not (root / "output").exists(), "a failed first build must not leave an output directory"
    assert not list(root.glob(".output.tmp-*")), "a failed build must not leave its staging directory"


# --- post files ------------------------------------------------------------------------------------

POST_CASES = {
    # id: (file text, stderr pattern)
    "yaml-mapping-error": (
        "---\ntitle: x\ndate: 2024-01-01\nsummary: a: b\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: invalid YAML front matter: .+",
    ),
    "yaml-unclosed-list": (
        "---\ntitle: x\ndate: 2024-01-01\ntags: [a, b\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: invalid YAML front matter: .+",
    ),
    "yaml-tab-indent": (
        "---\ntitle: x\ndate: 2024-01-01\nextra:\n\t- a\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:5: invalid YAML front matter: .+",
    ),
    "front-matter-not-closed": (
        "---\ntitle: x\ndate: 2024-01-01\n\nbody\n",
        r"^error: content/posts/bad\.md:1: .*not closed",
    ),
    "no-front-matter": ("# A title\n\nJust Markdown.\n", r"^error: content/posts/bad\.md:1: missing front matter"),
    "empty-file": ("", r"^error: content/posts/bad\.md:1: missing front matter"),
    "front-matter-not-a-mapping": (
        "---\n- a\n- b\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:2: front matter must be a mapping",
    ),
    "missing-title": ("---\ndate: 2024-01-01\n---\n\nbody\n", r"^error: content/posts/bad\.md:1: .*'title'"),
    "empty-title": ("---\ndate: 2024-01-01\ntitle:\n---\n\nbody\n", r"^error: content/posts/bad\.md:3: .*'title'"),
    "missing-date": ("---\ntitle: x\ntags: [a]\n---\n\nbody\n", r"^error: content/posts/bad\.md:1: .*'date'"),
    "unparseable-date": (
        "---\ntitle: x\ndate: last tuesday\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:3: 'date' is not a date: 'last tuesday'",
    ),
    "impossible-date": (
        "---\ntitle: x\ntags: []\ndate: 2024-13-45\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: .*2024-13-45.*not a valid date",
    ),
    "impossible-day": (
        "---\ntitle: x\ndate: 2024-02-30\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:3: .*2024-02-30",
    ),
    "bad-updated": (
        "---\ntitle: x\ndate: 2024-01-01\nupdated: soon\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: 'updated' is not a date",
    ),
    "tags-mapping": (
        "---\ntitle: x\ndate: 2024-01-01\ntags: {a: 1}\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: 'tags' must be a list",
    ),
    "tags-number": (
        "---\ntitle: x\ndate: 2024-01-01\ntags: 5\n---\n\nbody\n",
        r"^error: content/posts/bad\.md:4: 'tags' must be a list",
    ),
}


@pytest.mark.parametrize("text,pattern", POST_CASES.values(), ids=POST_CASES.keys())
def test_bad_post_gives_one_line_with_file_and_line(site, text, pattern):
    (site / "content" / "posts" / "bad.md").write_text(text, encoding="utf-8")
    assert_one_line_error(build(site), pattern)
    assert_nothing_written(site)


def test_post_that_is_not_utf8_names_the_line_of_the_bad_byte(site):
    data = b"---\ntitle: x\ndate: 2024-01-01\n---\n\nfine line\ncaf" + b"\xe9 au lait\n"
    (site / "content" / "posts" / "bad.md").write_bytes(data)
    assert_one_line_error(build(site), r"^error: content/posts/bad\.md:7: not UTF-8 .*0xe9")
    assert_nothing_written(site)


def test_two_posts_with_the_same_permalink_name_both_files(site):
    write_post(site, "one.md", "title: One\ndate: 2024-01-01\npermalink: /same/")
    write_post(site, "two.md", "title: Two\ndate: 2024-02-01\npermalink: /same/")
    line = assert_one_line_error(build(site), r"^error: content/posts/(one|two)\.md:\d+: .*/same/")
    assert "content/posts/one.md" in line and "content/posts/two.md" in line
    assert_nothing_written(site)


def test_nested_posts_are_named_by_their_path_from_the_site_root(site):
    path = site / "content" / "posts" / "2024" / "deep.md"
    path.parent.mkdir()
    path.write_text("---\ntitle: x\ndate: nope\n---\n", encoding="utf-8")
    assert_one_line_error(build(site), r"^error: content/posts/2024/deep\.md:3: ")


def test_errors_name_files_relative_to_the_site_root_from_any_working_directory(site, tmp_path):
    (site / "content" / "posts" / "bad.md").write_text("---\ntitle: x\ndate: nope\n---\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli("build", "--source", "../site", cwd=elsewhere)
    assert_one_line_error(proc, r"^error: content/posts/bad\.md:3: ")


# --- math ----------------------------------------------------------------------------------------

MATH_POST = "---\ntitle: Maths\ndate: 2024-01-01\n---\n\nText before.\n\nBad: $\\frac{1}{$ here.\n"


@pytest.mark.parametrize("known", [False, True], ids=["cold", "known to the cache"])
def test_a_post_removed_after_the_folder_was_listed_is_an_error_naming_it_not_a_crash(site, monkeypatch, known):
    """A file listed, then gone before it is read (an editor's swap file, a checkout): one error at that file, with
    the rest of the posts read, not an internal error from the worker (cold) or from the scan that compares it
    with the cache (a file the last build read)."""
    import site_builder.build.posts as posts
    from site_builder.build.pipeline import build_site
    from site_builder.errors import SiteErrors

    for n in range(200):  # enough posts that the build forks its workers
        write_post(site, f"p{n}.md", GOOD)
    gone = site / "content" / "posts" / "gone.md"
    if known:
        write_post(site, "gone.md", GOOD)
        build_site(site, site / "output", log=lambda message: None)
        gone.unlink()
    listed = posts.find_post_names
    monkeypatch.setattr(posts, "find_post_names", lambda *a: sorted({*listed(*a), str(gone)}))
    with pytest.raises(SiteErrors) as caught:
        build_site(site, site / "output", log=lambda message: None)
    assert [(e.file, e.message) for e in caught.value.errors] == [
        ("content/posts/gone.md", "the file was removed while the site was being built; build again")
    ]


def _warnings(proc) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("warning:")]


def test_bad_inline_math_is_a_warning_at_its_line_and_a_marked_box_in_the_page(site):
    text = MATH_POST + "\nGood: $x^2$ and $\\alpha$.\n"
    (site / "content" / "posts" / "bad.md").write_text(text, encoding="utf-8")
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    (warning,) = _warnings(proc)
    assert re.match(r"^warning: content/posts/bad\.md:8: cannot render math \$\\frac\{1\}\{\$: \S", warning), warning
    assert proc.stdout.strip().endswith("1 warning"), proc.stdout
    page = (site / "output" / "blog" / "2024" / "bad" / "index.html").read_text(encoding="utf-8")
    box = re.search(
        r'<span class="math-error" role="note"><code>(.*?)</code><span class="math-error-reason">(.*?)</span>', page
    )
    assert box and box[1] == "\\frac{1}{" and box[2].startswith("not rendered: "), page
    assert page.count("<math") == 2  # the post's other formulas still render


def test_bad_display_math_is_a_warning_at_its_line(site):
    text = "---\ntitle: Maths\ndate: 2024-01-01\n---\n\nIntro.\n\n$$\nx^\n$$\n"
    (site / "content" / "posts" / "bad.md").write_text(text, encoding="utf-8")
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    assert [w.split(": cannot render math")[0] for w in _warnings(proc)] == ["warning: content/posts/bad.md:8"]
    page = (site / "output" / "blog" / "2024" / "bad" / "index.html").read_text(encoding="utf-8")
    assert '<div class="math"><span class="math-error"' in page


def test_bad_math_with_strict_is_an_error_and_writes_nothing(site):
    (site / "content" / "posts" / "bad.md").write_text(MATH_POST, encoding="utf-8")
    proc = build(site, "--strict")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert re.match(r"^error: content/posts/bad\.md:8: cannot render math .*frac", lines[0]), lines
    assert lines[-1] == "error: 1 warning is an error under --strict"
    assert_nothing_written(site)


# --- site.yml ------------------------------------------------------------------------------------

CONFIG_CASES = {
    "yaml-mapping-error": ("title: T\nsubtitle: a: b\n", r"^error: site\.yml:2: invalid YAML: .+"),
    "yaml-unclosed-list": ("title: T\nurl: [x\n", r"^error: site\.yml:2: invalid YAML: .+"),
    "not-a-mapping": ("- a\n- b\n", r"^error: site\.yml:1: .*mapping"),
    "impossible-date": ("title: T\nstarted: 2024-13-45\n", r"^error: site\.yml:2: .*2024-13-45"),
    "missing-theme": ("title: T\ntheme: nope\n", r"^error: site\.yml(:2)?: theme 'nope' not found"),
    "url-without-scheme": (
        "title: T\nurl: example.org/blog\n",
        r"^error: site\.yml:2: url must be an absolute http\(s\) address",
    ),
    "theme-path": ("title: T\ntheme: ../elsewhere\n", r"^error: site\.yml:2: theme must be"),
    "posts-per-page-zero": ("title: T\nposts_per_page: 0\n", r"^error: site\.yml:2: posts_per_page must be at least 1"),
    "posts-per-page-word": (
        "title: T\nposts_per_page: lots\n",
        r"^error: site\.yml:2: setting 'posts_per_page' must be int",
    ),
    "posts-per-page-list": (
        "title: T\nposts_per_page: [1]\n",
        r"^error: site\.yml:2: setting 'posts_per_page' must be int",
    ),
    "feed-limit-negative": (
        "title: T\nurl: https://x.org\nfeed_limit: -1\n",
        r"^error: site\.yml:3: feed_limit must be 0",
    ),
}


@pytest.mark.parametrize("text,pattern", CONFIG_CASES.values(), ids=CONFIG_CASES.keys())
def test_bad_site_yml_gives_one_line_with_line_number(site, text, pattern):
    (site / "site.yml").write_text(text, encoding="utf-8")
    assert_one_line_error(build(site), pattern)
    assert_nothing_written(site)


def test_site_yml_that_is_not_utf8(site):
    (site / "site.yml").write_bytes(b"title: T\nauthor: Jos\xe9\n")
    assert_one_line_error(build(site), r"^error: site\.yml:2: not UTF-8")


# --- themes --------------------------------------------------------------------------------------


def _theme(site: Path, name: str, files: dict[str, str]) -> None:
    (site / "site.yml").write_text(f"title: T\ntheme: {name}\n", encoding="utf-8")
    for rel, text in files.items():
        path = site / "themes" / name / "templates" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_template_syntax_error_names_the_template_and_line(site):
    _theme(site, "mine", {"post.html": '{% extends "base.html" %}\n{% block content %}\n{% if post.title %}\nx\n'})
    assert_one_line_error(build(site), r"^error: themes/mine/templates/post\.html:\d+: template error: .+")
    assert_nothing_written(site)


def test_template_syntax_error_in_an_extended_template(site):
    _theme(site, "mine", {"base.html": "<!doctype html>\n<title>{{ site.title }}</title>\n{{ page_title( }}\n"})
    assert_one_line_error(build(site), r"^error: themes/mine/templates/base\.html:3: template error: .+")
    assert_nothing_written(site)


# --- where to build from -------------------------------------------------------------------------


def test_missing_source_directory_is_refused_and_not_created(tmp_path):
    proc = run_cli("build", "--source", str(tmp_path / "typo"))
    assert_one_line_error(proc, r"^error: source directory .*typo does not exist")
    assert not (tmp_path / "typo").exists()


def test_directory_without_site_yml_or_content_is_refused(tmp_path):
    (tmp_path / "notasite").mkdir()
    proc = run_cli("build", "--source", str(tmp_path / "notasite"))
    assert_one_line_error(proc, r"^error: .*notasite has neither site\.yml nor content/")
    assert list((tmp_path / "notasite").iterdir()) == []
