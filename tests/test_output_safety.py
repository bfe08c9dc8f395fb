"""The output directory: a failed build leaves it as it was, incremental builds touch only what changed,
and the builder never writes where it would destroy an author's files or escape the output directory."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import assert_one_line_error, make_site, run_cli, write_post

MARKER = ".site-builder"


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under `root` (hidden ones too) by relative path, with its bytes; the search index (`pagefind/`,
    made again whenever the site changed: tests/test_search.py) left out."""
    skip = (*skip, "pagefind/")
    files = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(skip):
                files[rel] = path.read_bytes()
    return files


def identities(root: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every file: equal means the build did not rewrite it."""
    return {rel: (os.stat(root / rel).st_ino, os.stat(root / rel).st_mtime_ns) for rel in snapshot(root)}


def build(root: Path, *extra: str, ok: bool = True):
    return run_cli("build", "--source", str(root), *extra, check=ok)


def staging_dirs(parent: Path) -> list[Path]:
    return list(parent.glob(".*.tmp-*"))


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site", "title: Test Site\nurl: https://example.org\nposts_per_page: 10\n")
    write_post(root, "alpha.md", "title: Alpha\ndate: 2024-01-10\ntags: [common, only-alpha]", "Alpha body.\n")
    write_post(root, "beta.md", "title: Beta\ndate: 2024-02-10\ntags: [common]", "Beta body with $x^2$.\n")
    write_post(root, "gamma.md", "title: Gamma\ndate: 2025-03-10\ntags: [common]", "Gamma body.\n")
    build(root)
    return root


# --- a failed build changes nothing ----------------------------------------------------------------


def _break_post_yaml(root: Path) -> None:
    (root / "content/posts/beta.md").write_text("---\ntitle: Beta\ndate: [2024\n---\n", encoding="utf-8")


def _break_post_math(root: Path) -> None:
    """A bad formula is a warning; under --strict (which every breakage here runs with) it fails the build."""
    write_post(root, "beta.md", "title: Beta\ndate: 2024-02-10", "Now $\\frac{1}{$ is broken.\n")


def _duplicate_permalink(root: Path) -> None:
    write_post(root, "copy.md", "title: Copy\ndate: 2024-05-01\npermalink: /blog/2024/beta/")


def _break_site_yml(root: Path) -> None:
    (root / "site.yml").write_text("title: [Test\n", encoding="utf-8")


def _break_template(root: Path) -> None:
    """Fails while pages are being written into the staging directory, after loading succeeded."""
    (root / "site.yml").write_text("title: Test Site\ntheme: mine\n", encoding="utf-8")
    tpl = root / "themes/mine/templates/post.html"
    tpl.parent.mkdir(parents=True)
    tpl.write_text('{% extends "base.html" %}\n{% block content %}{{ post.title }\n{% endblock %}\n', encoding="utf-8")


def _template_fails_while_rendering(root: Path) -> None:
    """Fails on the last post page, after other pages were already rendered into the staging directory."""
    (root / "site.yml").write_text("title: Test Site\ntheme: mine\n", encoding="utf-8")
    tpl = root / "themes/mine/templates/post.html"
    tpl.parent.mkdir(parents=True)
    tpl.write_text(
        '{% extends "base.html" %}\n{% block main %}{{ post.title }}'
        '{% if post.title == "Alpha" %}{{ 1 // 0 }}{% endif %}{% endblock %}\n',
        encoding="utf-8",
    )


def _new_post_with_bad_date(root: Path) -> None:
    write_post(root, "delta.md", "title: Delta\ndate: someday")


BREAKAGES = {
    f.__name__.lstrip("_"): f
    for f in (
        _break_post_yaml,
        _break_post_math,
        _duplicate_permalink,
        _break_site_yml,
        _break_template,
        _template_fails_while_rendering,
        _new_post_with_bad_date,
    )
}


@pytest.mark.parametrize("breakage", BREAKAGES.values(), ids=BREAKAGES.keys())
def test_failed_build_leaves_previous_output_exactly_as_it_was(site, breakage):
    before = snapshot(site / "output")
    assert "blog/2024/beta/index.html" in before and MARKER in before
    breakage(site)
    proc = build(site, "--strict", ok=False)
    assert proc.returncode == 1, f"exit code {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and all(re.match(r"error: \S", line) for line in lines), proc.stderr
    assert snapshot(site / "output") == before
    assert staging_dirs(site) == [], "the staging directory of a failed build must be removed"


def test_build_after_a_failed_build_and_a_fix_is_complete(site):
    before = snapshot(site / "output", skip=(MARKER,))
    original = (site / "content/posts/beta.md").read_bytes()
    _break_post_math(site)
    build(site, "--strict", ok=False)
    (site / "content/posts/beta.md").write_bytes(original)
    build(site)
    assert snapshot(site / "output", skip=(MARKER,)) == before


# --- incremental builds ----------------------------------------------------------------------------


def test_editing_one_post_body_rewrites_only_its_page_and_the_feeds(site):
    out = site / "output"
    front = "title: Beta\ndate: 2024-02-10\ntags: [common]\nsummary: What lists show of Beta."
    write_post(site, "beta.md", front, "Beta body with $x^2$.\n")  # with a summary, the lists do not show the body
    build(site)
    before, ids = snapshot(out), identities(out)
    write_post(site, "beta.md", front, "Beta body, EDITED.\n")
    build(site)
    after = snapshot(out)
    assert after.keys() == before.keys()
    changed = {rel for rel in after if after[rel] != before[rel]}
    assert "blog/2024/beta/index.html" in changed
    assert "EDITED" in after["blog/2024/beta/index.html"].decode()
    allowed = {"blog/2024/beta/index.html", "feed.xml", "blog/tag/common/feed.xml", "sitemap.xml", MARKER}
    assert changed <= allowed, f"unexpected changes: {sorted(changed - allowed)}"
    rewritten = {rel for rel, ident in identities(out).items() if ident != ids[rel]}
    assert rewritten <= allowed, f"files rewritten although unchanged: {sorted(rewritten - allowed)}"


def test_editing_the_start_of_a_post_without_summary_updates_the_lists_showing_it(site):
    write_post(site, "beta.md", "title: Beta\ndate: 2024-02-10\ntags: [common]", "Beta body, EDITED.\n")
    build(site)
    out = site / "output"
    for page in ("index.html", "blog/tag/common/index.html", "blog/2024/beta/index.html"):
        assert "Beta body, EDITED." in (out / page).read_text(encoding="utf-8"), page  # its excerpt, in the lists


def test_retitling_a_post_updates_every_page_that_lists_it(site):
    write_post(site, "beta.md", "title: Beta Renamed\ndate: 2024-02-10\ntags: [common]", "Beta body with $x^2$.\n")
    build(site)
    out = site / "output"
    for page in (
        "index.html",
        "blog/index.html",
        "blog/2024/index.html",
        "blog/tag/common/index.html",
        "blog/2024/beta/index.html",
        "feed.xml",
    ):
        assert "Beta Renamed" in (out / page).read_text(encoding="utf-8"), page


def test_deleted_post_disappears_from_the_output(site):
    out = site / "output"
    assert (out / "blog/2024/alpha/index.html").exists()
    assert (out / "blog/tag/only-alpha/index.html").exists()
    (site / "content/posts/alpha.md").unlink()
    build(site)
    assert not (out / "blog/2024/alpha").exists(), "the deleted post's page (and its folder) must go"
    assert not (out / "blog/tag/only-alpha").exists(), "a tag no post uses any more must go"
    for rel, data in snapshot(out).items():
        assert b"Alpha" not in data and b"/blog/2024/alpha/" not in data, f"{rel} still mentions the deleted post"
    assert (out / "blog/2024/beta/index.html").exists()


def test_deleting_output_then_building_recreates_it_fully(site):
    before = snapshot(site / "output", skip=(MARKER,))
    import shutil

    shutil.rmtree(site / "output")
    build(site)
    assert snapshot(site / "output", skip=(MARKER,)) == before
    assert (site / "output" / MARKER).exists()


def test_a_file_removed_from_output_by_hand_comes_back(site):
    before = snapshot(site / "output", skip=(MARKER,))
    (site / "output/blog/2024/beta/index.html").unlink()
    (site / "output/css/pygments.css").unlink()
    build(site)
    assert snapshot(site / "output", skip=(MARKER,)) == before


# --- output directories the builder must refuse ------------------------------------------------------


def _refuse(tmp_path: Path, root: Path, output: str, pattern: str = r"^error: refusing to build into ") -> None:
    before = snapshot(tmp_path)
    proc = run_cli("build", "--source", str(root), "--output", output)
    assert_one_line_error(proc, pattern)
    assert snapshot(tmp_path) == before, "a refused build must not touch any file"
    assert staging_dirs(root) == [] and staging_dirs(root.parent) == [] and staging_dirs(tmp_path) == []


@pytest.fixture()
def fresh(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site")
    write_post(root, "alpha.md", "title: Alpha\ndate: 2024-01-10")
    return root


def test_refuses_the_source_tree_itself(tmp_path, fresh):
    _refuse(tmp_path, fresh, ".")


def test_refuses_the_source_tree_given_as_an_absolute_path(tmp_path, fresh):
    _refuse(tmp_path, fresh, str(fresh))


def test_refuses_a_parent_of_the_source(tmp_path, fresh):
    _refuse(tmp_path, fresh, "..")


def test_refuses_a_directory_holding_content(tmp_path, fresh):
    other = tmp_path / "other"
    (other / "content" / "posts").mkdir(parents=True)
    (other / "content" / "posts" / "mine.md").write_text("keep me", encoding="utf-8")
    (other / MARKER).write_text("even with a marker\n")
    _refuse(tmp_path, fresh, str(other))


def test_refuses_a_directory_holding_site_yml(tmp_path, fresh):
    other = tmp_path / "other"
    other.mkdir()
    (other / "site.yml").write_text("title: Other\n", encoding="utf-8")
    _refuse(tmp_path, fresh, str(other))


def test_refuses_a_non_empty_directory_it_did_not_create(tmp_path, fresh):
    other = tmp_path / "docs"
    other.mkdir()
    (other / "notes.txt").write_text("precious", encoding="utf-8")
    _refuse(tmp_path, fresh, str(other), r"^error: refusing to build into .*not made by site-builder")


def test_refuses_a_file(tmp_path, fresh):
    (tmp_path / "afile").write_text("precious", encoding="utf-8")
    _refuse(tmp_path, fresh, str(tmp_path / "afile"))


def test_refuses_the_content_folder(tmp_path, fresh):
    _refuse(tmp_path, fresh, "content")


def test_accepts_an_empty_directory_and_one_it_made(tmp_path, fresh):
    empty = tmp_path / "public"
    empty.mkdir()
    build(fresh, "--output", str(empty))
    assert (empty / "blog/2024/alpha/index.html").exists() and (empty / MARKER).exists()
    build(fresh, "--output", str(empty))  # its own output: fine to rebuild


# --- permalinks must not escape the output ---------------------------------------------------------

ESCAPES = ["../../../etc/x/", "/../../x/", "/blog/../../../x/index.html", "a/./../../b/", ".."]


@pytest.mark.parametrize("permalink", ESCAPES)
def test_permalink_cannot_write_outside_output(tmp_path, fresh, permalink):
    write_post(fresh, "evil.md", f'title: Evil\ndate: 2024-01-01\npermalink: "{permalink}"')
    before = snapshot(tmp_path)
    proc = run_cli("build", "--source", str(fresh))
    after = snapshot(tmp_path)
    new = {rel for rel in after.keys() - before.keys() if not rel.startswith(("site/output/", "site/.cache/"))}
    assert new == set(), f"files written outside the output: {sorted(new)}"
    escaped = (fresh / "output" / permalink.lstrip("/")).resolve()
    assert not (escaped / "index.html").exists() and not (escaped.is_file() and escaped.suffix == ".html")
    assert not (tmp_path.parent / "x").exists() and not (tmp_path / "x").exists() and not (tmp_path / "b").exists()
    assert_one_line_error(proc, r"^error: content/posts/evil\.md:4: bad permalink")


def test_slug_cannot_write_outside_output(tmp_path, fresh):
    write_post(fresh, "evil.md", "title: Evil\ndate: 2024-01-01\nslug: ../../../x")
    before = snapshot(tmp_path)
    proc = run_cli("build", "--source", str(fresh))
    assert_one_line_error(proc, r"^error: content/posts/evil\.md:4: bad permalink")
    assert snapshot(tmp_path) == before


def test_permalink_with_double_slashes_stays_inside_output(tmp_path, fresh):
    write_post(fresh, "odd.md", "title: Odd\ndate: 2024-01-01\npermalink: /odd//path/")
    build(fresh)
    assert (fresh / "output/odd").is_dir()


@pytest.mark.parametrize("permalink", ["/", "/feed.xml", "/css/site.css", "/blog/tag/"])
def test_permalink_that_collides_with_a_generated_page_is_an_error(tmp_path, fresh, permalink):
    write_post(fresh, "clash.md", f'title: Clash\ndate: 2024-01-01\npermalink: "{permalink}"', "CLASH body.\n")
    proc = run_cli("build", "--source", str(fresh))
    assert_one_line_error(proc, r"^error: content/posts/clash\.md")


def test_changing_the_permalink_setting_moves_unchanged_posts(site):
    (site / "site.yml").write_text(
        "title: Test Site\nurl: https://example.org\npermalink: /posts/:slug/\n", encoding="utf-8"
    )
    build(site)
    out = site / "output"
    assert (out / "posts/beta/index.html").exists()
    assert not (out / "blog/2024/beta").exists()


def test_changing_url_and_language_reaches_unchanged_posts(site):
    (site / "site.yml").write_text("title: Test Site\nurl: https://moved.example\nlanguage: de\n", encoding="utf-8")
    build(site)
    feed = (site / "output/feed.xml").read_text(encoding="utf-8")
    assert "https://example.org/" not in feed
    assert 'lang="de"' in (site / "output/blog/2024/beta/index.html").read_text(encoding="utf-8")
