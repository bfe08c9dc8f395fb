"""Executable posts: the block syntax, what the built page shows, the result cache and parallel runs.

Every test writes a tiny site into tmp_path and runs the real CLI in a subprocess.
"""

from __future__ import annotations

import html
import re
import textwrap
import time
from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post


def exec_post(root: Path, name: str, body: str, extra: str = "", execute: bool = True) -> Path:
    """Write content/posts/NAME with `execute: true` (and `extra` front matter lines); body is dedented."""
    front = f"title: {name}\ndate: 2024-01-01"
    if execute:
        front += "\nexecute: true"
    if extra:
        front += "\n" + extra.strip()
    return write_post(root, name, front, textwrap.dedent(body).lstrip("\n"))


def line_of(path: Path, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line of the post file containing `needle`."""
    hits = [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert len(hits) >= nth, f"{needle!r} occurs {len(hits)} times in {path}"
    return hits[nth - 1]


def check(root: Path, *args: str):
    return run_cli("check", "--source", str(root), *args)


def summary(proc) -> str:
    """The last line of stdout: `N passed, M failed`."""
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no output\nstderr: {proc.stderr}"
    return lines[-1]


def post_line(proc, rel: str) -> str:
    """The `content/posts/x.md: ran (...): ...` line of one post."""
    for line in proc.stdout.splitlines():
        if line.startswith(rel + ": "):
            return line
    raise AssertionError(f"no line for {rel} in\n{proc.stdout}")


def out(proc) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def page(root: Path, slug: str) -> str:
    return (root / "output" / "blog" / "2024" / slug / "index.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------- syntax


def test_blocks_share_one_session_in_order(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        Prose.

        ```python
        x = 41
        ```

        More prose.

        ```python
        x += 1
        assert x == 42, x
        ```

        ```py
        def f():
            return x * 2
        ```

        ```python3
        assert f() == 84
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert "content/posts/x.md: ran (new): 4 passed, 0 failed, 0 skipped" in proc.stdout, out(proc)
    assert summary(proc) == "4 passed, 0 failed"


def test_skip_is_not_run(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        ```python {skip}
        raise RuntimeError("must not run")
        ```

        ```python
        print("after")
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert "1 passed, 0 failed, 1 skipped" in post_line(proc, "content/posts/x.md")
    assert "must not run" not in proc.stdout + proc.stderr


def test_hide_runs_but_is_not_in_the_page(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "good.md",
        """
        ```python {hide}
        hidden_setup_value = 7
        def answer():
            return hidden_setup_value * 6
        ```

        ```python
        print(answer())
        ```
    """,
    )
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    body = page(site, "good")
    assert "hidden_setup_value" not in body, "the hidden block's code is in the page"
    assert "answer" in body
    assert re.search(r'<div class="output"><pre><code>42\s*</code>', body), body

    # a hidden block still runs: its failing assert fails the post
    bad = exec_post(
        site,
        "bad.md",
        """
        Text.

        ```python {hide}
        assert 1 + 1 == 3, "hidden check"
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    line = line_of(bad, "assert 1 + 1 == 3")
    assert f"content/posts/bad.md:{line}: AssertionError: hidden check" in proc.stdout, out(proc)


def test_raises(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "ok.md",
        """
        ```python {raises=IndexError}
        [][1]
        ```
    """,
    )
    norais = exec_post(
        site,
        "noraise.md",
        """
        ```python {raises=IndexError}
        y = [1][0]
        ```
    """,
    )
    other = exec_post(
        site,
        "other.md",
        """
        ```python {raises=IndexError}
        {}["key"]
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert "1 passed, 0 failed" in post_line(proc, "content/posts/ok.md")
    assert (
        f"content/posts/noraise.md:{line_of(norais, 'y = [1][0]')}: DidNotRaise: expected IndexError" in proc.stdout
    ), out(proc)
    assert f"content/posts/other.md:{line_of(other, 'key')}: KeyError: 'key'" in proc.stdout, out(proc)
    assert summary(proc) == "1 passed, 2 failed"


def test_raises_is_shown_in_the_page(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        ```python {raises=ZeroDivisionError}
        1 / 0
        ```
    """,
    )
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    assert "ZeroDivisionError: division by zero" in page(site, "x")


def test_output_block_matches_stdout(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        ```python
        print("a   ")
        print("b")
        print()
        print()
        ```

        ```output
        a
        b
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "1 passed, 0 failed"


def test_output_mismatch_shows_a_diff_at_the_output_block(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "x.md",
        """
        Prose.

        ```python
        for i in range(3):
            print(i * 10)
        ```

        ```output
        0
        10
        25
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    line = line_of(post, "```output") + 1  # the output block's first line, as code blocks' lines are
    assert f"content/posts/x.md:{line}: OutputMismatch:" in proc.stdout, out(proc)
    assert "-25" in proc.stdout and "+20" in proc.stdout, out(proc)
    assert "@@" in proc.stdout
    assert summary(proc) == "0 passed, 1 failed"


def test_stdout_figures_and_doctests_in_the_page(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        """
        ```python
        print("printed <at> build time")
        ```

        ```python
        import matplotlib.pyplot as plt
        plt.plot([1, 2, 3], [3, 1, 2])
        ```

        ```pycon
        >>> 6 * 7
        42
        ```
    """,
    )
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    body = page(site, "x")
    m = re.search(r'<div class="output"><pre><code>(.*?)</code>', body, re.S)
    assert m and html.unescape(m.group(1)).strip() == "printed <at> build time", body
    # the output comes right after the block's code
    assert body.index("build time") > body.index("print")
    # the figure the block left open: an image of its SVG, never SVG inlined in the page (issue 29)
    assert "<svg" not in body
    assert re.search(r'<figure class="exec-figure"><img src="data:image/svg\+xml;base64,', body)
    assert "6</span>" in body or "6 *" in html.unescape(re.sub(r"<[^>]+>", "", body))


# ---------------------------------------------------------------- doctests


def test_doctests(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "good.md",
        """
        ```pycon
        >>> 1 + 1
        2
        >>> list(range(20))
        [0, 1, 2, ..., 19]
        >>> 1 / 0
        Traceback (most recent call last):
          ...
        ZeroDivisionError: division by zero
        ```

        ```python
        >>> x = "shared"
        >>> x.upper()
        'SHARED'
        ```
    """,
    )
    bad = exec_post(
        site,
        "bad.md",
        """
        Text.

        ```pycon
        >>> a = 3
        >>> a * 2
        6
        >>> a * 3
        10
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert "2 passed, 0 failed" in post_line(proc, "content/posts/good.md"), out(proc)
    line = line_of(bad, ">>> a * 3")
    assert f"content/posts/bad.md:{line}: OutputMismatch:" in proc.stdout, out(proc)
    assert "10" in proc.stdout and "9" in proc.stdout


def test_post_without_execute_runs_nothing(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "plain.md",
        """
        ```python
        raise SystemExit("this must never run")
        ```

        ```output
        nothing
        ```
    """,
        execute=False,
    )
    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "0 passed, 0 failed"
    assert "plain.md" not in proc.stdout
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    body = page(site, "plain")
    assert "exec-error" not in body and "exec-figure" not in body
    assert "this must never run" in body  # shown as code, not run


# ---------------------------------------------------------------- cache


def test_cache_reasons(tmp_path):
    site = make_site(tmp_path / "site")
    (site / "content" / "posts" / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    body = """
        Some prose here.

        ```python
        import time
        time.sleep(0.5)
        print(open("data.csv").read().splitlines()[1])
        ```
    """
    post = exec_post(site, "x.md", body, extra="exec: {files: [data.csv]}")
    rel = "content/posts/x.md"

    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert post_line(proc, rel).startswith(f"{rel}: ran (new): 1 passed"), out(proc)

    start = time.perf_counter()
    proc = check(site)
    took = time.perf_counter() - start
    assert proc.returncode == 0, out(proc)
    assert post_line(proc, rel) == f"{rel}: cached: 1 passed, 0 failed, 0 skipped", out(proc)
    assert took < 5, took  # no 0.5 s sleep again (the CLI's own start-up dominates)

    # prose only (same lines): still cached
    post.write_text(post.read_text().replace("Some prose here.", "Other words, same line."), encoding="utf-8")
    proc = check(site)
    assert post_line(proc, rel).startswith(f"{rel}: cached:"), out(proc)

    # the code: re-run
    post.write_text(post.read_text().replace("time.sleep(0.5)", "time.sleep(0.1)"), encoding="utf-8")
    proc = check(site)
    assert post_line(proc, rel).startswith(f"{rel}: ran (code changed): 1 passed"), out(proc)
    proc = check(site)
    assert post_line(proc, rel).startswith(f"{rel}: cached:"), out(proc)

    # the declared data file: re-run
    (site / "content" / "posts" / "data.csv").write_text("a,b\n3,4\n", encoding="utf-8")
    proc = check(site)
    assert post_line(proc, rel).startswith(f"{rel}: ran (file changed): 1 passed"), out(proc)

    # --rerun forces
    proc = check(site, "--rerun")
    assert post_line(proc, rel).startswith(f"{rel}: ran (forced"), out(proc)

    # a new post is "new", the old one stays cached
    exec_post(
        site,
        "y.md",
        """
        ```python
        print("y")
        ```
    """,
    )
    proc = check(site)
    assert post_line(proc, "content/posts/y.md").startswith("content/posts/y.md: ran (new): 1 passed"), out(proc)
    assert post_line(proc, rel).startswith(f"{rel}: cached:"), out(proc)
    assert (site / ".cache" / "exec").is_dir()


def test_prose_that_moves_blocks_does_not_rerun(tmp_path):
    """A new paragraph above the code only moves it: cached, and failures name the new lines."""
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "x.md",
        """
        Intro.

        ```python
        def helper():
            raise ValueError("from helper")
        print("ok")
        ```

        ```output
        ok
        ```

        ```python
        helper()
        ```
    """,
    )
    rel = "content/posts/x.md"
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    post.write_text(post.read_text().replace("Intro.", "Intro.\n\nA new paragraph,\nover two lines."), encoding="utf-8")
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert post_line(proc, rel).startswith(f"{rel}: ran (failed last time):"), out(proc)  # failures are not cached
    call, raise_ = line_of(post, "helper()", 2), line_of(post, "raise ValueError")
    assert f"{rel}:{raise_}: ValueError: from helper" in proc.stdout, out(proc)  # where it was raised
    assert f'File "{rel}", line {raise_}, in helper' in proc.stdout, out(proc)
    assert f'File "{rel}", line {call}, in <module>' in proc.stdout, out(proc)
    # and the page shows the outputs under the blocks they belong to
    post.write_text(post.read_text().replace("helper()\n```", "print('second')\n```"), encoding="utf-8")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    post.write_text(post.read_text().replace("over two lines.", "over two lines.\n\nAnd one more."), encoding="utf-8")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    assert re.search(r'<div class="output"><pre><code>second\s*</code>', page(site, "x")), page(site, "x")
    proc = check(site)
    assert post_line(proc, rel).startswith(f"{rel}: cached:"), out(proc)


def test_posts_with_the_same_code_are_reported_under_their_own_paths(tmp_path):
    site = make_site(tmp_path / "site")
    for name in ("a.md", "b.md"):
        post = exec_post(
            site,
            name,
            """
            ```python
            assert False, "same"
            ```
        """,
        )
    line = line_of(post, "assert False")
    for _attempt in range(2):
        proc = check(site)
        assert proc.returncode == 1, out(proc)
        for rel in ("content/posts/a.md", "content/posts/b.md"):
            post_line(proc, rel)
            assert f"{rel}:{line}: AssertionError: same" in proc.stdout, out(proc)
            assert f'File "{rel}", line {line}' in proc.stdout, out(proc)
        assert summary(proc) == "0 passed, 2 failed"


def test_a_failure_is_reported_again_not_cached(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "x.md",
        """
        ```python
        assert False, "boom"
        ```
    """,
    )
    line = line_of(post, "assert False")
    for _attempt in range(2):
        proc = check(site)
        assert proc.returncode == 1, out(proc)
        assert f"content/posts/x.md:{line}: AssertionError: boom" in proc.stdout, out(proc)
        assert summary(proc) == "0 passed, 1 failed"
    assert post_line(proc, "content/posts/x.md").startswith("content/posts/x.md: ran (failed last time):")


def test_json_report(tmp_path):
    import json

    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "a.md",
        """
        ```python
        print(1)
        ```

        ```python {skip}
        boom()
        ```

        ```python
        x = 2
        ```
    """,
    )
    bad = exec_post(
        site,
        "b.md",
        """
        ```python
        x = 1
        ```

        ```python
        raise ValueError("bad value")
        ```

        ```python
        print("never")
        ```
    """,
    )
    report_path = tmp_path / "report.json"
    proc = check(site, "--json", str(report_path))
    assert proc.returncode == 1, out(proc)
    report = {entry["path"]: entry for entry in json.loads(report_path.read_text())}
    assert set(report) == {"content/posts/a.md", "content/posts/b.md"}
    a, b = report["content/posts/a.md"], report["content/posts/b.md"]
    assert (a["status"], a["blocks"], a["passed"], a["failed"], a["skipped"], a["cached"]) == (
        "passed",
        3,
        2,
        0,
        1,
        False,
    )
    assert a["failures"] == []
    assert (b["status"], b["blocks"], b["passed"], b["failed"], b["skipped"], b["cached"]) == (
        "failed",
        3,
        1,
        1,
        0,
        False,
    )
    assert len(b["failures"]) == 1
    failure = b["failures"][0]
    assert failure["line"] == line_of(bad, "raise ValueError")
    assert failure["type"] == "ValueError"
    assert failure["message"] == "bad value"
    assert summary(proc) == "3 passed, 1 failed"

    proc = check(site, "--json", str(report_path))
    report = {entry["path"]: entry for entry in json.loads(report_path.read_text())}
    assert report["content/posts/a.md"]["cached"] is True
    assert report["content/posts/b.md"]["cached"] is False  # a failing run is not cached: it ran again
    assert report["content/posts/b.md"]["reason"] == "failed last time"
    assert report["content/posts/b.md"]["failures"][0]["line"] == line_of(bad, "raise ValueError")


# ---------------------------------------------------------------- parallel


@pytest.mark.serial  # needs both cores to itself
def test_posts_run_in_parallel(tmp_path):
    site = make_site(tmp_path / "site")
    for name in ("a.md", "b.md"):
        exec_post(
            site,
            name,
            """
            ```python
            import time
            time.sleep(1.5)
            ```
        """,
        )
    start = time.perf_counter()
    proc = check(site)
    took = time.perf_counter() - start
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "2 passed, 0 failed"
    assert took < 2.8, f"two 1.5 s posts took {took:.2f} s: not run in parallel"
