"""A rebuild with nothing to do stops after rendering: it must still see everything that changes a page, and say
everything the last build said."""

from __future__ import annotations

import os
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
    assert "tag 'homeBrew' is listed under 'homebrew'" in again.stderr, again.stderr
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
