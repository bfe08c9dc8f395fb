"""A rebuild with nothing to do stops after rendering: it must still see everything that changes a page, and say
everything the last build said."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from helpers import make_site, run_cli, write_post


def build(root: Path, *extra: str):
    return run_cli("build", "-v", "--source", str(root), *extra)


def summary(proc) -> str:
    return next(line for line in proc.stdout.splitlines() if line.startswith("built "))


def test_a_second_build_does_nothing_and_repeats_the_warnings(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01\ntags: [homeBrew]")
    write_post(root, "b.md", "title: B\ndate: 2024-01-02\ntags: [homebrew]")
    write_post(root, "c.md", "title: C\ndate: 2024-01-03\ntags: [homebrew]")
    first = build(root)
    assert first.returncode == 0, first.stderr
    stamps = {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()}
    again = build(root)
    assert again.returncode == 0, again.stderr
    assert "0 pages rendered, 0 files written" in summary(again), again.stdout
    assert "unchanged" in again.stdout  # the stage timings name the shortcut
    assert {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()} == stamps
    # the tag spelling warning comes from assembling the site: the shortcut still prints it, and --strict fails
    assert "tag 'homeBrew' is written 'homebrew' in" in again.stderr, again.stderr
    strict = build(root, "--strict")
    assert strict.returncode == 1 and "tag 'homeBrew'" in strict.stderr, strict.stderr


def test_a_template_edit_in_the_site_theme_rewrites_the_pages(tmp_path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\ntheme: mine\n")
    templates = root / "themes" / "mine" / "templates"
    templates.mkdir(parents=True)
    (templates / "post.html").write_text('{% extends "base.html" %}{% block main %}ONE {{ post.title }}{% endblock %}')
    write_post(root, "a.md", "title: A\ndate: 2024-01-01")
    assert build(root).returncode == 0
    page = root / "output" / "blog" / "2024" / "a" / "index.html"
    assert "ONE A" in page.read_text()
    assert "0 files written" in summary(build(root))
    (templates / "post.html").write_text('{% extends "base.html" %}{% block main %}TWO {{ post.title }}{% endblock %}')
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert "TWO A" in page.read_text(), summary(proc)


def test_a_file_removed_from_the_output_by_hand_is_written_again(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01")
    assert build(root).returncode == 0
    (root / "output" / "feed.xml").unlink()
    proc = build(root)
    assert proc.returncode == 0 and (root / "output" / "feed.xml").exists(), summary(proc)


def test_a_post_that_comes_due_is_published_by_the_next_build(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01")
    soon = datetime.now(timezone.utc) + timedelta(seconds=4)
    write_post(root, "later.md", f"title: Later\ndate: {soon.isoformat()}")
    assert build(root).returncode == 0
    page = root / "output" / "blog" / str(soon.year) / "later" / "index.html"
    assert not page.exists()
    assert "0 files written" in summary(build(root))  # still in the future: nothing to do
    time.sleep(max(0.0, (soon - datetime.now(timezone.utc)).total_seconds()) + 0.5)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert page.exists(), summary(proc)
    assert "Later" in (root / "output" / "index.html").read_text()


def test_the_same_posts_built_into_another_folder_are_written_there(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01")
    assert build(root).returncode == 0
    other = tmp_path / "elsewhere"
    proc = run_cli("build", "--source", str(root), "--output", str(other))
    assert proc.returncode == 0, proc.stderr
    assert (other / "blog" / "2024" / "a" / "index.html").exists()
    assert sorted(os.listdir(other)) == sorted(os.listdir(root / "output"))


SKIPPED_STAGES = (
    "jinja2",
    "markdown_it",
    "pygments",
    "PIL",
    "math_core",
    "site_builder.render",
    "site_builder.assemble",
)


def test_a_build_with_nothing_to_do_loads_none_of_the_stages_it_skips(tmp_path):
    """A rebuild with nothing to do must stay a matter of stats: it imports no parser, renderer, template engine or
    image library (each costs tens of milliseconds before any work), as `-X importtime` lists every import."""
    from PIL import Image

    root = make_site(tmp_path / "site")
    Image.new("RGB", (40, 30), (200, 30, 30)).save(root / "content" / "posts" / "red.png")
    body = "## One\n\n```python\nprint(1)\n```\n\n$x^2$ and ![red](red.png)\n"
    write_post(root, "a.md", "title: A\ndate: 2024-01-01\ntags: [x]", body)
    assert build(root).returncode == 0
    for _ in range(2):  # the second from the summary the first one left, if it did not
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "site_builder", "build", "-v", "--source", str(root)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "0 files written" in summary(proc) and "unchanged" in proc.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    loaded = sorted(name for name in imported if any(name == s or name.startswith(s + ".") for s in SKIPPED_STAGES))
    assert not loaded, loaded


def test_what_a_rebuild_with_nothing_to_do_must_still_notice(tmp_path):
    """The summary a build leaves (read instead of the build cache) must not hide an edited image, a draft asked
    for, or a post file added, removed or edited."""
    from PIL import Image

    root = make_site(tmp_path / "site")
    image = root / "content" / "posts" / "red.png"
    Image.new("RGB", (40, 30), (200, 30, 30)).save(image)
    write_post(root, "a.md", "title: A\ndate: 2024-01-01", "![red](red.png)\n")
    write_post(root, "d.md", "title: D\ndate: 2024-01-02\ndraft: true")
    assert build(root).returncode == 0
    assert "0 files written" in summary(build(root))
    Image.new("RGB", (80, 60), (30, 30, 200)).save(image)
    assert "0 files written" not in summary(build(root)), "an image edited"
    assert 'width="80"' in (root / "output" / "blog" / "2024" / "a" / "index.html").read_text()
    assert "0 files written" in summary(build(root))
    draft = root / "output" / "blog" / "2024" / "d" / "index.html"
    assert build(root, "--drafts").returncode == 0 and draft.exists(), "--drafts after a build without"
    assert build(root).returncode == 0 and not draft.exists()
    write_post(root, "b.md", "title: B\ndate: 2024-01-03")
    assert "1 rendered" in summary(build(root)), "a post added"
    (root / "content" / "posts" / "b.md").unlink()
    proc = build(root)
    assert "1 removed" in summary(proc) and not (root / "output" / "blog" / "2024" / "b").exists(), "a post removed"
