"""`check` and `build` with executable posts, through the real CLI: summary line, exit codes, the output left
as it was by a failing build, and `--keep-going` pages that show the error."""

from __future__ import annotations

import html
import re

from helpers import make_site, run_cli
from test_execute import check, exec_post, line_of, out, page, post_line, summary

GOOD = """
    ```python
    print("good output")
    ```

    ```python {skip}
    not run
    ```
"""

BAD = """
    Intro.

    ```python
    value = 1
    ```

    ```python
    assert value == 2, "value is <not> two"
    ```
"""


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_check_summary_and_exit_code(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(site, "good.md", GOOD)
    exec_post(
        site,
        "other.md",
        """
        ```python
        x = 1
        ```

        ```pycon
        >>> x + 1
        2
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "3 passed, 0 failed"
    assert post_line(proc, "content/posts/good.md").startswith(
        "content/posts/good.md: ran (new): 1 passed, 0 failed, 1 skipped in "
    ), out(proc)

    bad = exec_post(site, "bad.md", BAD)
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert summary(proc) == "4 passed, 1 failed"
    assert f"content/posts/bad.md:{line_of(bad, 'assert value')}: AssertionError: value is <not> two" in proc.stdout
    # the other posts came from the cache
    assert post_line(proc, "content/posts/good.md").startswith("content/posts/good.md: cached: 1 passed")

    bad.write_text(bad.read_text().replace("value == 2", "value == 1"), encoding="utf-8")
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "5 passed, 0 failed"


def test_check_with_nothing_to_run(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(site, "plain.md", "```python\nraise SystemExit(1)\n```\n", execute=False)
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "0 passed, 0 failed"
    note = "note: no post has `execute: true` in its front matter, so no code ran"
    assert f"{note}; with it, the python blocks of 1 post would run\n" in proc.stderr, out(proc)
    exec_post(site, "repl.md", "```python\n>>> 1 + 1\n2\n```\n", execute=False)  # an imported REPL session
    proc = check(site)
    assert "the python blocks of 2 posts would run, and the doctest sessions (>>>) in content/posts/repl.md would" in (
        proc.stderr
    ), out(proc)
    exec_post(site, "good.md", GOOD)  # once a post runs, nothing to say
    proc = check(site)
    assert summary(proc) == "1 passed, 0 failed" and "note:" not in proc.stderr, out(proc)


def test_check_rejects_bad_exec_settings(tmp_path):
    site = make_site(tmp_path / "site")
    for setting, words in (
        ("exec: {timeout: soon}", "timeout"),
        ("exec: {memory: lots}", "memory"),
        ("exec: {colour: red}", "colour"),
    ):
        exec_post(site, "x.md", "```python\nprint(1)\n```\n", extra=setting)
        proc = check(site)
        assert proc.returncode == 1, out(proc)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert re.search(rf"^error: content/posts/x\.md: .*{words}", proc.stderr, re.M), proc.stderr


def test_check_missing_source(tmp_path):
    proc = run_cli("check", "--source", str(tmp_path / "nope"))
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr


def test_build_fails_on_failing_code_and_keeps_the_output(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(site, "good.md", GOOD)
    bad = exec_post(site, "bad.md", BAD.replace("value == 2", "value == 1"))
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    assert "exec-error" not in page(site, "bad")
    before = snapshot(site / "output")

    bad.write_text(bad.read_text().replace("value == 1", "value == 2"), encoding="utf-8")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 1, out(proc)
    assert f"content/posts/bad.md:{line_of(bad, 'assert value')}: AssertionError: value is <not> two" in proc.stderr
    assert "--keep-going" in proc.stderr
    assert snapshot(site / "output") == before, "a failed build changed the output"

    proc = run_cli("build", "--source", str(site), "--keep-going")
    assert proc.returncode == 1, out(proc)  # the site is written, but a failed post is not a success
    assert "1 failed" in proc.stdout
    body = page(site, "bad")
    m = re.search(r'<div class="exec-error"[^>]*>(.*?)</div>', body, re.S)
    assert m, body
    assert "AssertionError" in m.group(1) and "value is &lt;not&gt; two" in m.group(1)
    assert f"line {line_of(bad, 'assert value')}" in m.group(1)
    # the error sits under the failing block, the good block's output is still shown
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    assert text.index("assert value == 2") < text.index("AssertionError at line")
    assert "exec-error" not in page(site, "good")
    assert "good output" in page(site, "good")

    # fixed again: the error is gone from the page
    bad.write_text(bad.read_text().replace("value == 2", "value == 1"), encoding="utf-8")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    assert "exec-error" not in page(site, "bad")


def test_build_keep_going_shows_post_level_failures(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "crash.md",
        """
        ```python
        print("first")
        ```

        ```python
        import os
        os._exit(5)
        ```
    """,
    )
    proc = run_cli("build", "--source", str(site), "--keep-going")
    assert proc.returncode == 1, out(proc)
    body = page(site, "crash")
    m = re.search(r'<div class="exec-error"[^>]*>(.*?)</div>', body, re.S)
    assert m, body
    assert "Crash" in m.group(1) and "status 5" in m.group(1)
    assert f"line {line_of(post, 'import os')}" in m.group(1)
    assert re.search(r'<div class="output"><pre><code>first\s*</code>', body)


def test_an_upgraded_package_runs_the_posts_importing_it_again(tmp_path, monkeypatch):
    """The cache must not hide a post that a new version of a library breaks (the CI check's whole point)."""
    lib = tmp_path / "lib"
    (lib / "shapes").mkdir(parents=True)
    (lib / "shapes" / "__init__.py").write_text("def area(w, h):\n    return w * h\n")
    monkeypatch.setenv("PYTHONPATH", str(lib))
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "uses.md",
        """
        ```python
        from shapes import area
        print(area(2, 3))
        ```

        ```output
        6
        ```
    """,
    )
    exec_post(
        site,
        "plain.md",
        """
        ```python
        import math
        print(math.floor(2.5))
        ```
    """,
    )
    assert summary(check(site)) == "2 passed, 0 failed"
    assert post_line(check(site), "content/posts/uses.md").startswith("content/posts/uses.md: cached")

    (lib / "shapes" / "__init__.py").write_text("def area(w, h):\n    return w * h / 2  # a breaking release\n")
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert post_line(proc, "content/posts/uses.md").startswith("content/posts/uses.md: ran (packages changed (shapes))")
    assert post_line(proc, "content/posts/plain.md").startswith("content/posts/plain.md: cached"), "stdlib only: kept"
