"""The build cache is written by a process forked once the posts are read (`build/cachesave.py`), beside the pages.

It must be renamed into place only when the build ends well, and must never outlive a build that failed or was
killed, nor leave its temporary file behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import REPO, make_site, processes_with_arg, run_cli, wait_for, write_post


def _site(root: Path, posts: int) -> Path:
    make_site(root, "title: Cache\nurl: https://example.org\nsearch: false\n")
    body = "Some words about arrays and $x^2$.\n\n```python\nprint(sum(range(10)))\n```\n" * 4
    for i in range(posts):
        write_post(root, f"p{i:05d}.md", f"title: Post {i}\ndate: 2024-01-{1 + i % 28:02d}\ntags: [a, b{i % 7}]", body)
    return root


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".cache").glob(".build.pickle.*.tmp"))


def test_the_cache_saved_beside_the_build_is_the_one_the_next_build_reads(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", 300)
    run_cli("build", "--source", str(site), check=True)
    assert (site / ".cache" / "build.pickle").stat().st_size > 0
    assert not _leftovers(site)
    write_post(site, "p00007.md", "title: Post 7, edited\ndate: 2024-01-08\ntags: [a]", "Edited.\n")
    again = run_cli("build", "--source", str(site), check=True)
    assert "1 rendered" in again.stdout, again.stdout  # the other 299 fragments came from the saved cache
    assert "build cache unusable" not in again.stderr, again.stderr
    assert "Post 7, edited" in (site / "output" / "blog" / "2024" / "p00007" / "index.html").read_text()


def test_a_failed_build_keeps_the_previous_cache_and_leaves_no_file_nor_process(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", 300)
    run_cli("build", "--source", str(site), check=True)
    before = (site / ".cache" / "build.pickle").read_bytes()
    write_post(site, "p00003.md", "title: Post 3\ndate: 2024-01-04\ntagz: [a]", "Changed.\n")  # a warning
    failed = run_cli("build", "--source", str(site), "--strict")
    assert failed.returncode == 1 and "tagz" in failed.stderr, failed.stderr
    assert (site / ".cache" / "build.pickle").read_bytes() == before  # the saving process renamed nothing
    assert not _leftovers(site)
    assert not processes_with_arg(str(site))


def test_a_build_killed_alone_while_its_cache_is_saved_leaves_no_saving_process_nor_file(tmp_path: Path) -> None:
    """kill -9 of the build's process only: its saving process finds the pipe closed, removes its file, goes."""
    site = _site(tmp_path / "site", 1500)
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder", "build", "--source", str(site)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    tmp = site / ".cache" / f".build.pickle.{proc.pid}.tmp"
    while not tmp.exists() and proc.poll() is None:
        time.sleep(0.0005)
    assert proc.poll() is None, "the build ended before its cache was being written"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    wait_for(lambda: not processes_with_arg(str(site)) and not tmp.exists(), timeout=20)
    assert not (site / ".cache" / "build.pickle").exists()  # the killed build's cache was never put in place
    again = run_cli("build", "--source", str(site), check=True)
    assert "1500 rendered" in again.stdout, again.stdout
    assert (site / ".cache" / "build.pickle").exists() and not _leftovers(site)
