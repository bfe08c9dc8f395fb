"""The pytest plugin: `pytest content/` collects each executing post, one test per code block."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from helpers import make_site
from test_execute import exec_post, line_of


def run_pytest(site, *args: str) -> subprocess.CompletedProcess:
    """pytest on the site's content/, from the site root (test ids are relative to it)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(site / "content"),
            "-v",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(site),
            *args,
        ],
        cwd=site,
        capture_output=True,
        text=True,
        timeout=300,
    )


def outcome(proc, test_id: str) -> str:
    m = re.search(rf"^{re.escape(test_id)} (PASSED|FAILED|SKIPPED|ERROR)\b(.*)$", proc.stdout, re.M)
    assert m, f"{test_id!r} not in\n{proc.stdout}\n{proc.stderr}"
    return m.group(1) + m.group(2)


def test_one_test_per_block(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "x.md",
        """
        Prose.

        ```python
        x = 1
        ```

        ```python {skip}
        this would not even compile
        ```

        ```python
        assert x == 2, "x is not two"
        ```

        ```python
        print("after the failure")
        ```
    """,
    )
    other = exec_post(
        site,
        "y.md",
        """
        ```pycon
        >>> 2 + 2
        4
        ```

        ```python
        print("hi")
        ```

        ```output
        hi
        ```
    """,
    )
    exec_post(site, "plain.md", "```python\nraise SystemExit(1)\n```\n", execute=False)
    proc = run_pytest(site)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first, skipped, failing, after = (line_of(post, s) for s in ("x = 1", "this would not", "assert x == 2", "print("))
    assert outcome(proc, f"content/posts/x.md::line {first}").startswith("PASSED")
    assert outcome(proc, f"content/posts/x.md::line {skipped}").startswith("SKIPPED")
    assert outcome(proc, f"content/posts/x.md::line {failing}").startswith("FAILED")
    assert outcome(proc, f"content/posts/x.md::line {after}").startswith("SKIPPED")
    assert "earlier block failed" in outcome(proc, f"content/posts/x.md::line {after}")
    assert outcome(proc, f"content/posts/y.md::line {line_of(other, '>>> 2 + 2')}").startswith("PASSED")
    assert outcome(proc, f"content/posts/y.md::line {line_of(other, 'print(')}").startswith("PASSED")
    assert "plain.md" not in proc.stdout
    # the failure is the `file:line:` report, with the post's line of code
    assert f"content/posts/x.md:{failing}: AssertionError: x is not two" in proc.stdout, proc.stdout
    assert f'File "content/posts/x.md", line {failing}' in proc.stdout
    assert re.search(r"1 failed, 3 passed, 2 skipped", proc.stdout), proc.stdout


def test_passing_posts_pass_and_share_the_cache_with_check(tmp_path):
    from helpers import run_cli

    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        ```python
        print("ok")
        ```
    """,
    )
    proc = run_pytest(site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    proc = run_cli("check", "--source", str(site))
    assert "content/posts/x.md: cached:" in proc.stdout, proc.stdout


def test_post_level_failures_fail_a_block(tmp_path):
    """A timeout fails the block that was running; a missing `requires` module fails the post (not skipped)."""
    site = make_site(tmp_path / "site")
    slow = exec_post(
        site,
        "slow.md",
        """
        ```python
        import time
        ```

        ```python
        time.sleep(30)
        ```

        ```python
        print("never")
        ```
    """,
        extra="exec: {timeout: 1}",
    )
    needs = exec_post(
        site,
        "needs.md",
        """
        ```python
        import nonexistent_mod
        ```
    """,
        extra="exec: {requires: [nonexistent_mod]}",
    )
    proc = run_pytest(site)
    assert proc.returncode == 1, proc.stdout
    assert outcome(proc, f"content/posts/slow.md::line {line_of(slow, 'import time')}").startswith("PASSED")
    assert outcome(proc, f"content/posts/slow.md::line {line_of(slow, 'time.sleep')}").startswith("FAILED")
    assert outcome(proc, f"content/posts/slow.md::line {line_of(slow, 'never')}").startswith("SKIPPED")
    assert f"content/posts/slow.md:{line_of(slow, 'time.sleep')}: Timeout:" in proc.stdout
    assert outcome(proc, f"content/posts/needs.md::line {line_of(needs, 'import nonexistent_mod')}").startswith(
        "FAILED"
    )
    assert "ModuleNotFoundError: the post requires nonexistent_mod" in proc.stdout


def test_collection(tmp_path):
    """`execute: True`/`yes` posts are collected as `check` runs them; bad `exec:` settings are one clean error."""
    site = make_site(tmp_path / "site")
    yes = exec_post(site, "yes.md", "```python\nprint(1)\n```\n", extra="execute: yes", execute=False)
    proc = run_pytest(site)
    assert proc.returncode == 0, proc.stdout
    assert outcome(proc, f"content/posts/yes.md::line {line_of(yes, 'print(1)')}").startswith("PASSED")

    exec_post(site, "bad.md", "```python\nprint(1)\n```\n", extra="exec: {timeout: soon}")
    proc = run_pytest(site)
    assert proc.returncode != 0
    assert "ERROR collecting content/posts/bad.md" in proc.stdout, proc.stdout
    assert "content/posts/bad.md: exec: timeout must be a number of seconds, got 'soon'" in proc.stdout
    assert "Traceback" not in proc.stdout and "site_builder/execute/" not in proc.stdout, proc.stdout


def test_with_xdist_each_post_runs_once_and_its_failure_is_reported(tmp_path):
    """`pytest -n 3 content/`: each post ran in the controller and in every worker, four times at once (Ray's posts
    then started four clusters on two cores, and one missed its startup in CI); now in the worker that runs it."""
    site = make_site(tmp_path / "site")
    log = tmp_path / "runs.log"
    for name in ("a", "b", "c"):
        exec_post(
            site,
            f"{name}.md",
            f"""
            ```python
            import time
            with open({str(log)!r}, "a") as f:
                f.write("{name}\\n")
            time.sleep(1)
            assert "{name}" != "c", "c fails"
            ```
        """,
        )
    proc = run_pytest(site, "-n", "3")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sorted(log.read_text().split()) == ["a", "b", "c"], log.read_text()
    assert re.search(r"content/posts/c.md:\d+: AssertionError: c fails", proc.stdout), proc.stdout
    assert "2 passed" in proc.stdout and "1 failed" in proc.stdout, proc.stdout


CONFTEST = """
import os, sys, time

def pytest_configure(config):  # waits (up to 20 s) for the post to have run: it must not wait for pytest
    for _ in range(400):
        if os.path.exists(STARTED):
            break
        time.sleep(0.05)
    open(CONFIGURED, "w").write(repr(os.path.exists(STARTED)))

def pytest_sessionfinish(session):
    open(MODULES, "w").write(" ".join(m for m in ("markdown_it", "yaml", "site_builder.parse") if m in sys.modules))
"""


def test_posts_run_while_pytest_starts_and_pytest_parses_nothing(tmp_path):
    """`pytest content/`: the engine is a process of its own, forked when the plugin loads and told its posts once
    pytest has read its arguments, so the posts run while pytest is still starting (here: before a conftest's
    pytest_configure returns); it describes the posts to pytest, whose process imports no parser and no YAML."""
    site = make_site(tmp_path / "site")
    stamps = {name: repr(str(tmp_path / name)) for name in ("STARTED", "CONFIGURED", "MODULES")}
    conftest = CONFTEST
    for name, path in stamps.items():
        conftest = conftest.replace(name, path)
    (site / "conftest.py").write_text(conftest)
    exec_post(site, "x.md", f"```python\nopen({stamps['STARTED']}, 'w').write('ran')\n```\n")
    exec_post(site, "y.md", "```python\nprint(1)\n```\n\n```output\n1\n```\n\n```python {skip}\nnot run\n```\n")
    proc = run_pytest(site, "--rerun-posts")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "CONFIGURED").read_text() == "True"  # the post ran before pytest was configured
    assert (tmp_path / "MODULES").read_text() == ""
    assert re.search(r"2 passed, 1 skipped", proc.stdout), proc.stdout


def test_stopping_early_stops_the_posts_running(tmp_path):
    """pytest -x after a failure: the engine stops the posts still running and removes their folders."""
    site = make_site(tmp_path / "site")
    where = repr(str(tmp_path / "b.where"))
    exec_post(
        site,
        "a.md",
        f"""
        ```python
        import os, time
        for _ in range(200):  # b runs beside it (two cores or more)
            if os.path.exists({where}):
                break
            time.sleep(0.05)
        assert False, "a fails"
        ```
    """,
    )
    exec_post(
        site,
        "b.md",
        f"""
        ```python
        import os, time
        open({where} + ".tmp", "w").write(f"{{os.getpid()}} {{os.getcwd()}}")
        os.rename({where} + ".tmp", {where})
        time.sleep(120)
        ```
    """,
        extra="exec: {timeout: 300}",
    )
    start = time.monotonic()
    proc = run_pytest(site, "-x")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "content/posts/a.md:" in proc.stdout and "AssertionError: a fails" in proc.stdout
    assert time.monotonic() - start < 60
    if (tmp_path / "b.where").exists():  # on one core b never started
        pid, cwd = (tmp_path / "b.where").read_text().split(" ", 1)
        assert not os.path.exists(cwd)  # stopped, and its folder removed
        for _ in range(100):
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"post b (pid {pid}) still runs")


def test_a_posts_warnings_are_in_pytests_summary_and_fail_it_with_strict_posts(tmp_path):
    """What a build warns about a post is in pytest's warnings summary, at its line, in the build's words; a post that
    never runs (`execte: true`) too. --strict-posts makes them a failed test of the post, in the words of errors."""
    site = make_site(tmp_path / "site")
    post = exec_post(site, "x.md", "```python {skpi}\nprint(1)\n```\n", extra="tgas: [x]")
    (site / "content/posts/y.md").write_text("---\ntitle: Y\ndate: 2024-01-02\nexecte: true\n---\n\nText.\n")
    (site / "content/posts/z.md").write_text("---\ntitle: Z\ndate: 2024-01-03\n---\n\nNo warning here.\n")
    proc = run_pytest(site)
    assert proc.returncode == 0, proc.stdout
    assert outcome(proc, f"content/posts/x.md::line {line_of(post, 'print(1)')}").startswith("PASSED")
    summary = proc.stdout.split("warnings summary")[1]
    tgas, fence = line_of(post, "tgas:"), line_of(post, "{skpi}")
    assert f"content/posts/x.md:{tgas}: PostWarning: unknown key 'tgas', ignored (did you mean 'tags'?)" in summary
    assert f"x.md:{fence}: PostWarning: unknown code block option 'skpi', ignored (did you mean 'skip'?)" in summary
    assert "content/posts/y.md:4: PostWarning: unknown key 'execte', ignored (did you mean 'execute'?)" in summary
    assert "z.md" not in summary
    assert re.search(r"= 1 passed, 3 warnings in ", proc.stdout), proc.stdout

    strict = run_pytest(site, "--strict-posts")
    assert strict.returncode == 1, strict.stdout
    assert outcome(strict, "content/posts/x.md::warnings").startswith("FAILED")
    assert outcome(strict, "content/posts/y.md::warnings").startswith("FAILED")
    assert outcome(strict, f"content/posts/x.md::line {line_of(post, 'print(1)')}").startswith("PASSED")
    assert "error: content/posts/y.md:4: unknown key 'execte' (did you mean 'execute'?)\n" in strict.stdout
    assert f"error: content/posts/x.md:{tgas}: unknown key 'tgas' (did you mean 'tags'?)\n" in strict.stdout
    assert "error: 2 warnings are errors under --strict-posts" in strict.stdout
    assert "error: 1 warning is an error under --strict-posts" in strict.stdout
    assert "ignored" not in strict.stdout and "warnings summary" not in strict.stdout
    assert re.search(r"= 2 failed, 1 passed in ", strict.stdout), strict.stdout
