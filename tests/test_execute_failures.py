"""Executable posts that fail: the report names the post's file and line, and a bad post cannot harm the run.

One site holds a post per way to fail next to good posts; `check` runs once for the module and each test
reads what it says about one post. Every test writes its posts into tmp_path and runs the real CLI.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import make_site, processes_with_arg
from test_execute import check, exec_post, line_of, out, post_line, summary

SLEEP = "301.25"  # a duration no other process uses: what the background-process posts leave behind


def sleepers() -> list[int]:
    """Processes running `sleep SLEEP`."""
    return processes_with_arg(SLEEP, first=True)


BAD_POSTS = {
    "segfault.md": (
        "",
        """
        ```python
        print("before")
        ```

        ```python
        import ctypes
        ctypes.string_at(0)
        ```
    """,
    ),
    "exit.md": (
        "",
        """
        ```python
        import sys
        sys.exit(3)
        ```
    """,
    ),
    "quit.md": (
        "",
        """
        ```python
        import os
        os._exit(0)
        ```

        ```python
        assert False, "never checked"
        ```
    """,
    ),
    "loop.md": (
        "exec: {timeout: 2}",
        """
        ```python
        x = 1
        ```

        ```python
        while True:
            x += 1
        ```
    """,
    ),
    "memory.md": (
        "exec: {memory: 512MiB}",
        """
        ```python
        x = bytearray(2 * 1024**3)
        ```
    """,
    ),
    "stdin.md": (
        "",
        """
        ```python
        name = input("your name? ")
        ```
    """,
    ),
    "background.md": (
        "",
        f"""
        ```python
        import subprocess
        subprocess.Popen(["sleep", "{SLEEP}"])
        ```
    """,
    ),
    "daemon.md": (
        "",
        f"""
        ```python
        import subprocess
        subprocess.Popen(["sleep", "{SLEEP}"], start_new_session=True)
        ```
    """,
    ),
    "loud.md": (
        "",
        """
        ```python
        print("x" * (2 * 1024 * 1024))
        ```
    """,
    ),
    "requires.md": (
        "exec: {requires: [json, nonexistent_mod]}",
        """
        ```python
        print("never")
        ```
    """,
    ),
    "nofile.md": (
        "exec: {files: [missing.csv]}",
        """
        ```python
        print("never")
        ```
    """,
    ),
}

GOOD = """
    ```python
    import json, os, time
    time.sleep(0.2)
    open("mine.txt", "w").write("{name}")
    json.dump([os.getcwd(), sorted(f for f in os.listdir(".") if not f.startswith("."))], open(r"{seen}", "w"))
    ```
"""


@pytest.fixture(scope="module")
def bad_site(tmp_path_factory):
    """A site with every bad post and two good ones, checked once: (site, completed process, seconds, report)."""
    site = make_site(tmp_path_factory.mktemp("bad") / "site")
    for name, (extra, body) in BAD_POSTS.items():
        exec_post(site, name, body, extra=extra)
    for name in ("good1.md", "good2.md"):
        exec_post(site, name, GOOD.format(name=name, seen=site.parent / f"{name}.json"))
    before = set(sleepers())
    start = time.perf_counter()
    proc = check(site, "--json", str(site / "report.json"))
    took = time.perf_counter() - start
    report = {e["path"].removeprefix("content/posts/"): e for e in json.loads((site / "report.json").read_text())}
    yield site, proc, took, report, before
    for pid in set(sleepers()) - before:  # only if the engine failed to stop them
        os.kill(pid, 9)


def failure(bad_site, name: str) -> str:
    """The report line of the post's (single) failure."""
    _site, proc, _, report, _ = bad_site
    entry = report[name]
    assert entry["status"] == "failed", entry
    assert len(entry["failures"]) == 1, entry
    f = entry["failures"][0]
    line = f"content/posts/{name}:{f['line']}: {f['type']}: {f['message']}"
    assert line in proc.stdout, out(proc)
    return line


def test_the_run_as_a_whole(bad_site):
    _site, proc, took, report, _ = bad_site
    assert proc.returncode == 1, out(proc)
    assert took < 20, took
    assert summary(proc).endswith(f"{len(BAD_POSTS)} failed"), out(proc)
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    for name in ("good1.md", "good2.md"):
        assert post_line(proc, f"content/posts/{name}").startswith(
            f"content/posts/{name}: ran (new): 1 passed, 0 failed"
        )
        assert report[name]["status"] == "passed"


def test_segfault(bad_site):
    site = bad_site[0]
    post = site / "content/posts/segfault.md"
    line = failure(bad_site, "segfault.md")
    assert (
        line == f"content/posts/segfault.md:{line_of(post, 'import ctypes')}: Crash: "
        "the Python process running the post crashed (segmentation fault)"
    )
    assert bad_site[3]["segfault.md"]["passed"] == 1  # the block before it


def test_sys_exit(bad_site):
    post = bad_site[0] / "content/posts/exit.md"
    line = failure(bad_site, "exit.md")
    assert line.startswith(f"content/posts/exit.md:{line_of(post, 'sys.exit(3)')}: SystemExit: ")
    assert "sys.exit(3)" in line


def test_early_exit_with_status_0(bad_site):
    """os._exit(0) (or a C library's exit(0)) ends the post before its last block: a failure, not a pass."""
    post = bad_site[0] / "content/posts/quit.md"
    line = failure(bad_site, "quit.md")
    assert line.startswith(f"content/posts/quit.md:{line_of(post, 'import os')}: Crash: ")
    assert "before its last block" in line
    assert bad_site[3]["quit.md"]["not_run"] == 2


def test_timeout_stops_the_post(bad_site):
    site, _proc, _, report, _ = bad_site
    post = site / "content/posts/loop.md"
    line = failure(bad_site, "loop.md")
    assert line.startswith(f"content/posts/loop.md:{line_of(post, 'while True')}: Timeout: ")
    assert "2 s" in line and "timeout" in line
    assert report["loop.md"]["passed"] == 1
    assert 1.5 < report["loop.md"]["seconds"] < 6, report["loop.md"]


def test_memory_cap(bad_site):
    post = bad_site[0] / "content/posts/memory.md"
    line = failure(bad_site, "memory.md")
    assert line.startswith(f"content/posts/memory.md:{line_of(post, 'bytearray')}: MemoryError: ")
    assert "memory" in line.split("MemoryError:", 1)[1] and "512MiB" in line


def test_stdin_is_closed(bad_site):
    post = bad_site[0] / "content/posts/stdin.md"
    line = failure(bad_site, "stdin.md")
    assert line.startswith(f"content/posts/stdin.md:{line_of(post, 'input(')}: EOFError: ")
    assert "standard input" in line


@pytest.mark.parametrize("name", ["background.md", "daemon.md"])
def test_background_process_is_stopped(bad_site, name):
    before = bad_site[4]
    post = bad_site[0] / "content/posts" / name
    line = failure(bad_site, name)
    assert line.startswith(f"content/posts/{name}:{line_of(post, 'import subprocess')}: BackgroundProcess: ")
    assert "background process" in line
    assert set(sleepers()) - before == set(), "a `sleep` started by a post is still running"


def test_output_cap(bad_site):
    post = bad_site[0] / "content/posts/loud.md"
    line = failure(bad_site, "loud.md")
    assert line.startswith(f"content/posts/loud.md:{line_of(post, 'print(')}: OutputTooLarge: ")
    assert "1024 KiB" in line


def test_requires_names_the_missing_module(bad_site):
    line = failure(bad_site, "requires.md")
    assert line.startswith("content/posts/requires.md:5: ModuleNotFoundError:"), "the line of the exec: setting"
    assert "nonexistent_mod" in line
    assert "json" not in line.split(":", 3)[3]
    assert bad_site[3]["requires.md"]["passed"] == 0


def test_missing_data_file(bad_site):
    line = failure(bad_site, "nofile.md")
    assert "FileNotFoundError" in line and "missing.csv" in line


def test_each_run_has_its_own_fresh_directory(bad_site):
    """The good posts ran at the same time, each in its own new directory: neither saw the other's file."""
    site = bad_site[0]
    seen = {name: json.loads((site.parent / f"{name}.json").read_text()) for name in ("good1.md", "good2.md")}
    for cwd, listing in seen.values():
        assert listing == ["mine.txt"], listing
        assert not Path(cwd).exists(), "the run directory was not removed"
        assert not Path(cwd).is_relative_to(site)
    assert seen["good1.md"][0] != seen["good2.md"][0]
    assert not list(site.rglob("mine.txt"))


def test_failure_report_shows_the_posts_lines(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "x.md",
        """
        Some text.

        ```python
        import json

        def parse(text):
            return json.loads(text)
        ```

        More text.

        ```python
        data = parse('{"a": 1}')
        total = data["a"]
        result = parse("{broken")
        ```

        ```python
        print("not run: an earlier block failed")
        ```
    """,
    )
    proc = check(site, "--json", str(tmp_path / "r.json"))
    assert proc.returncode == 1, out(proc)
    rel = "content/posts/x.md"
    inner, call = line_of(post, "return json.loads"), line_of(post, 'parse("{broken")')
    assert f"{rel}:{inner}: JSONDecodeError: Expecting property name enclosed in double quotes" in proc.stdout, out(
        proc
    )
    detail = proc.stdout.split(f"{rel}:{inner}: JSONDecodeError", 1)[1]
    assert f'File "{rel}", line {call}, in <module>' in detail
    assert 'result = parse("{broken")' in detail
    assert f'File "{rel}", line {inner}, in parse' in detail
    assert "return json.loads(text)" in detail
    assert "json/decoder.py" not in detail  # only the post's own frames
    entry = json.loads((tmp_path / "r.json").read_text())[0]
    assert (entry["passed"], entry["failed"], entry["not_run"]) == (1, 1, 1)
    assert summary(proc) == "1 passed, 1 failed"


def test_later_block_timeout_names_that_block(tmp_path):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "slow.md",
        """
        ```python
        import time
        ```

        ```python
        time.sleep(60)
        ```
    """,
        extra="exec: {timeout: 1.5}",
    )
    start = time.perf_counter()
    proc = check(site)
    took = time.perf_counter() - start
    assert proc.returncode == 1, out(proc)
    assert took < 8, took
    assert f"content/posts/slow.md:{line_of(post, 'time.sleep(60)')}: Timeout: " in proc.stdout, out(proc)
    assert summary(proc) == "1 passed, 1 failed"


def test_data_files_are_copied_into_the_run_directory(tmp_path):
    site = make_site(tmp_path / "site")
    posts = site / "content" / "posts"
    (posts / "data.csv").write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    (posts / "sub").mkdir()
    (posts / "sub" / "more.txt").write_text("more\n", encoding="utf-8")
    exec_post(
        site,
        "with.md",
        """
        ```python
        import csv
        rows = list(csv.DictReader(open("data.csv")))
        print(sum(int(r["y"]) for r in rows), open("sub/more.txt").read().strip())
        ```

        ```output
        6 more
        ```
    """,
        extra="exec: {files: [data.csv, sub/more.txt]}",
    )
    without = exec_post(
        site,
        "without.md",
        """
        ```python
        open("data.csv")
        ```
    """,
    )
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert "content/posts/with.md: ran (new): 1 passed, 0 failed" in proc.stdout, out(proc)
    assert f"content/posts/without.md:{line_of(without, 'open(')}: FileNotFoundError: " in proc.stdout, out(proc)


def test_no_process_survives_a_timeout(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "x.md",
        f"""
        ```python
        import subprocess, time
        subprocess.Popen(["sleep", "{SLEEP}"], start_new_session=True)
        subprocess.Popen(["sleep", "{SLEEP}"])
        time.sleep(60)
        ```
    """,
        extra="exec: {timeout: 1}",
    )
    before = set(sleepers())
    try:
        proc = check(site)
        assert proc.returncode == 1, out(proc)
        assert "Timeout:" in proc.stdout, out(proc)
        assert set(sleepers()) - before == set(), "a `sleep` started by a post outlived its timeout"
    finally:
        for pid in set(sleepers()) - before:
            os.kill(pid, 9)


def test_data_files_outside_the_post_directory_are_refused(tmp_path):
    """`files: [../x]` would be copied outside the run directory (and left there): a failure of that post."""
    site = make_site(tmp_path / "site")
    (site / "shared").mkdir()
    (site / "shared" / "d.csv").write_text("1,2\n", encoding="utf-8")
    exec_post(
        site,
        "up.md",
        """
        ```python
        print(open("../../shared/d.csv").read())
        ```
    """,
        extra="exec: {files: [../../shared/d.csv]}",
    )
    exec_post(site, "ok.md", "```python\nprint(1)\n```\n")
    run_dir_parent = Path(os.environ.get("TMPDIR", "/tmp"))
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert (
        "content/posts/up.md:5: FileNotFoundError: exec: files lists ../../shared/d.csv, which is not next to the post"
        in proc.stdout
    ), out(proc)
    assert "content/posts/ok.md: ran (new): 1 passed" in proc.stdout
    assert not (run_dir_parent.parent / "shared" / "d.csv").exists()
