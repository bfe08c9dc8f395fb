"""Every problem at once: errors and warnings sorted by file and line, one summary line, the right exit code;
tags written in several ways merged into one page; drafts and future posts left out unless asked for."""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post


def build(root: Path, *extra: str):
    return run_cli("build", "--source", str(root), *extra)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_every_error_and_warning_is_printed_at_once_sorted_with_one_summary_line(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "b.md", "title: B\ndate: someday")
    write_post(root, "a.md", "title: A\ndate: [2024")
    write_post(root, "c.md", "title: C\ndate: 2024-01-01\nexecte: true", "Text $\\frac{$ here.\n")
    write_post(root, "d.md", "title: D\ndate: 2024-01-02\npermalink: /same/")
    write_post(root, "e.md", "title: E\ndate: 2024-01-03\npermalink: /same/")
    proc = build(root)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    got = lines(proc.stderr)
    assert [re.sub(r": .*", "", line, count=1) for line in got[:-1]] == [
        "error",  # a.md:3
        "error",  # b.md:3
        "warning",  # c.md:4 execte
        "warning",  # c.md:7 math
        "error",  # e.md: permalink clash
    ], got
    assert re.match(r"error: content/posts/a\.md:3: invalid YAML", got[0])
    assert re.match(r"error: content/posts/b\.md:3: 'date' is not a date", got[1])
    assert re.match(r"warning: content/posts/c\.md:4: unknown key 'execte'.*did you mean 'execute'", got[2])
    assert re.match(r"warning: content/posts/c\.md:7: cannot render math", got[3])
    assert re.match(r"error: content/posts/e\.md:4: permalink /same/ is also used by content/posts/d\.md", got[4])
    assert got[-1] == "error: stopped with 3 errors, 2 warnings"
    assert not (root / "output").exists()


def test_a_site_with_warnings_builds_and_says_how_many(tmp_path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\ntitel: oops\n")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01", "Bad $\\frac{$ and good $x^2$.\n")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stderr) == [
        "warning: content/posts/a.md:6: cannot render math $\\frac{$: "
        'Expected closing token "}", but reached end of input.',
        "warning: site.yml:3: unknown key 'titel', ignored (did you mean 'title'?)",
    ]
    assert proc.stdout.rstrip().endswith(", 2 warnings"), proc.stdout
    strict = build(root, "--strict")
    assert strict.returncode == 1
    assert lines(strict.stderr)[-1] == "error: 2 warnings are errors under --strict"


def test_keep_going_counts_failed_code_as_errors_and_exits_1(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "x.md", "title: X\ndate: 2024-01-01\nexecute: true", "```python\nraise ValueError('no')\n```\n")
    proc = build(root, "--keep-going")
    assert proc.returncode == 1
    assert (root / "output/blog/2024/x/index.html").exists()
    assert proc.stdout.rstrip().endswith(", 1 error"), proc.stdout


def test_check_strict_fails_on_a_misspelled_execute_key(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "x.md", "title: X\ndate: 2024-01-01\nexecte: true", "```python\nprint(1)\n```\n")
    plain = run_cli("check", "--source", str(root))
    assert plain.returncode == 0
    assert "warning: content/posts/x.md:4: unknown key 'execte'" in plain.stderr
    assert plain.stdout.rstrip().endswith("0 passed, 0 failed, 1 warning")
    strict = run_cli("check", "--source", str(root), "--strict")
    assert strict.returncode == 1
    assert "error: content/posts/x.md:4: unknown key 'execte'" in strict.stderr


# --- tags ------------------------------------------------------------------------------------------------


def test_tags_differing_in_case_or_spacing_are_one_tag_under_the_most_common_spelling(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01\ntags: [homeBrew, Atmospheric science]")
    write_post(root, "b.md", "title: B\ndate: 2024-01-02\ntags: [homebrew]")
    write_post(root, "c.md", "title: C\ndate: 2024-01-03\ntags: [homebrew, atmospheric  science]")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stderr) == [
        "warning: content/posts/a.md:4: tag 'homeBrew' is written 'homebrew' in content/posts/b.md and "
        "content/posts/c.md, listed as 'homebrew'",
        "warning: content/posts/c.md:4: tag 'atmospheric  science' is written 'Atmospheric science' in "
        "content/posts/a.md, listed as 'Atmospheric science'",
    ]
    tags = sorted(p.name for p in (root / "output/blog/tag").iterdir() if p.is_dir())
    assert tags == ["atmospheric-science", "homebrew"]
    page = BeautifulSoup((root / "output/blog/tag/homebrew/index.html").read_text(), "html.parser")
    assert "#homebrew" in page.h1.get_text()
    assert len(page.select("article, li.post, .post-list li")) >= 3 or page.get_text().count("2024") >= 3
    for title in ("A", "B", "C"):
        assert page.find("a", string=title) is not None, title


# --- drafts and future posts -----------------------------------------------------------------------------


def test_future_posts_and_drafts_are_left_out_unless_asked_for(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "now.md", "title: Now\ndate: 2024-01-01")
    write_post(root, "later.md", "title: Later\ndate: 2999-01-01")
    write_post(root, "wip.md", "title: Wip\ndate: 2024-02-01\ndraft: true")
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert "left out: 1 draft (--drafts), 1 post dated in the future (--future)" in proc.stdout
    out = root / "output"
    assert (out / "blog/2024/now/index.html").exists()
    assert not (out / "blog/2999").exists() and not (out / "blog/2024/wip").exists()
    assert "Later" not in (out / "feed.xml").read_text() and "Later" not in (out / "index.html").read_text()
    proc = build(root, "--future", "--drafts")
    assert proc.returncode == 0 and "left out" not in proc.stdout
    assert (out / "blog/2999/later/index.html").exists() and (out / "blog/2024/wip/index.html").exists()
    assert "Later" in (out / "index.html").read_text()
    build(root)  # and back: the next plain build removes them again
    assert not (out / "blog/2999").exists()


def test_site_yml_future_publishes_posts_dated_later_as_the_flag_does(tmp_path):
    """`future: true` in site.yml (what the import writes for Hugo's buildFuture, Jekyll's `future: true`, Pelican's
    default) publishes a post dated later on every build, as `--future` does once."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nfuture: true\n")
    write_post(root, "later.md", "title: Later\ndate: 2999-01-01")
    proc = build(root)
    assert proc.returncode == 0 and proc.stderr == "" and "left out" not in proc.stdout, proc.stdout + proc.stderr
    assert (root / "output/blog/2999/later/index.html").exists() and "Later" in (root / "output/feed.xml").read_text()
    write_post(root, "code.md", "title: Code\ndate: 2999-02-01\nexecute: true", "```python\nassert 1 == 2\n```\n")
    proc = run_cli("check", "--source", str(root))  # a published post's code is checked, dated later or not
    assert proc.returncode == 1 and "content/posts/code.md" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_warnings_are_shown_with_an_error_found_after_loading(tmp_path):
    """A clash found late, or failing code, still shows every warning the build had found (site.yml's too)."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\ntitel: oops\n")
    write_post(root, "c.md", "title: C\ndate: 2024-01-01", "Bad $\\frac{$ here.\n")
    write_post(root, "x.md", "title: X\ndate: 2024-01-02\nexecute: true", "```python\nraise ValueError('no')\n```\n")
    proc = build(root)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    got = lines(proc.stderr)
    assert "warning: site.yml:3: unknown key 'titel', ignored (did you mean 'title'?)" in got
    assert any(line.startswith("warning: content/posts/c.md:6: cannot render math") for line in got), got
    assert got[-1].startswith("error: code in posts failed, 1 error, 2 warnings"), got
    (root / "content/posts/x.md").unlink()
    write_post(root, "d.md", "title: D\ndate: 2024-01-05\npermalink: /blog/2024/c/")
    proc = build(root)
    assert lines(proc.stderr) == [
        "warning: content/posts/c.md:6: cannot render math $\\frac{$: "
        'Expected closing token "}", but reached end of input.',
        "error: content/posts/d.md:4: permalink /blog/2024/c/ is also used by content/posts/c.md",
        "warning: site.yml:3: unknown key 'titel', ignored (did you mean 'title'?)",
        "error: stopped with 1 error, 2 warnings",
    ]
