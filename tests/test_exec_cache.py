"""The run cache keeps passing runs only (issue 15 item 7): a flaky failure runs again next time, and the report
says which posts came from the cache.

The posts' code keeps a marker file under tmp_path (written into the post text) to fail or pass on a given run.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from helpers import make_site, run_cli, write_post

from site_builder.execute.report import cached_count, cached_line
from site_builder.execute.results import BlockResult, PostRun

REL = "content/posts/x.md"


def post(root: Path, body: str) -> Path:
    return write_post(root, "x.md", "title: x\ndate: 2024-01-01\nexecute: true", textwrap.dedent(body).lstrip("\n"))


def check(root: Path, *args: str):
    return run_cli("check", "--source", str(root), *args)


def post_line(proc) -> str:
    lines = [line for line in proc.stdout.splitlines() if line.startswith(REL + ": ")]
    assert len(lines) == 1, proc.stdout + proc.stderr
    return lines[0]


def out(proc) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def test_a_flaky_failure_is_not_cached(tmp_path):
    site = make_site(tmp_path / "site")
    marker = tmp_path / "ran-once"
    post(
        site,
        f"""
        ```python
        import os
        marker = {str(marker)!r}
        if not os.path.exists(marker):
            open(marker, "w").close()
            raise ConnectionError("the service was down")
        print("up")
        ```

        ```output
        up
        ```
        """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert post_line(proc).startswith(f"{REL}: ran (new): 0 passed, 1 failed"), out(proc)
    assert "ConnectionError: the service was down" in proc.stdout

    proc = check(site)  # runs again, not the cached failure
    assert proc.returncode == 0, out(proc)
    assert post_line(proc).startswith(f"{REL}: ran (failed last time): 1 passed, 0 failed"), out(proc)

    proc = check(site)  # a pass is kept
    assert proc.returncode == 0, out(proc)
    assert post_line(proc) == f"{REL}: cached: 1 passed, 0 failed, 0 skipped", out(proc)


def test_a_failing_rerun_drops_the_cached_pass(tmp_path):
    """`--rerun` of a post that passed and now fails: the pass kept under the same key must not come back."""
    site = make_site(tmp_path / "site")
    marker = tmp_path / "ran-once"
    post(
        site,
        f"""
        ```python
        import os
        marker = {str(marker)!r}
        assert not os.path.exists(marker), "ran before"
        open(marker, "w").close()
        ```
        """,
    )
    assert check(site).returncode == 0
    proc = check(site, "--rerun")
    assert proc.returncode == 1, out(proc)
    assert "AssertionError: ran before" in proc.stdout, out(proc)
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert post_line(proc).startswith(f"{REL}: ran (failed last time): 0 passed, 1 failed"), out(proc)
    # and an edit is named as such, failed before or not
    path = site / "content" / "posts" / "x.md"
    path.write_text(path.read_text().replace('"ran before"', '"ran before!"'), encoding="utf-8")
    assert post_line(check(site)).startswith(f"{REL}: ran (code changed): 0 passed, 1 failed")


def run(rel: str, cached: bool) -> PostRun:
    return PostRun(rel, "key", [BlockResult(0, 1, "passed")], cached=cached, reason="cached" if cached else "new")


def test_the_line_naming_the_posts_from_the_cache():
    runs = [run("content/posts/b.md", True), run("content/posts/a.md", True), run("content/posts/c.md", False)]
    assert cached_line(runs) == "2 posts from the cache: content/posts/a.md, content/posts/b.md"
    assert cached_line(runs[:1]) == "1 post from the cache: content/posts/b.md"
    assert cached_line(runs[2:]) is None
    many = [run(f"p{i:02d}.md", True) for i in range(12)]
    assert cached_line(many, limit=3) == "12 posts from the cache: p00.md, p01.md, p02.md and 9 more"
    assert cached_count(runs) == " (2 from the cache)" and cached_count(runs[2:]) == ""


def test_options_that_only_change_how_code_looks_run_nothing_again(tmp_path):
    site = make_site(tmp_path / "site")
    body = """
        ```python {opts}
        print(sum(range(10)))
        ```

        ```output
        45
        ```
        """
    post(site, body.replace("{opts}", ""))
    assert post_line(check(site)).startswith(f"{REL}: ran (new): 1 passed"), "first run"
    post(site, body.replace("{opts}", '{title="sum.py" linenos hl_lines="1"}'))
    proc = check(site)
    assert post_line(proc) == f"{REL}: cached: 1 passed, 0 failed, 0 skipped", out(proc)
    post(site, body.replace("{opts}", '{title="sum.py" raises=ValueError}'))  # what the run must do: it runs again
    proc = check(site)
    assert proc.returncode == 1 and "ran (" in post_line(proc), out(proc)
