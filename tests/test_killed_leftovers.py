"""What a `serve` killed with SIGKILL leaves in memory: its whole built site, in /dev/shm (RAM until the machine
restarts). The next `serve` removes it (util/scratch.py), and never the folder of a serve that still runs."""

from __future__ import annotations

from helpers import Served, make_site, wait_for, write_post


def test_a_killed_serves_site_in_memory_is_removed_by_the_next_serve(tmp_path):
    site = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nsearch: false\n")
    write_post(site, "a.md", "title: A\ndate: 2024-01-01")
    killed = Served(site)
    left = killed.output.parent  # serve's folder: the site it serves is in it
    killed.proc.kill()
    killed.proc.wait()
    assert (left / "site" / "index.html").is_file(), "a SIGKILL leaves serve's folder, as nothing can clean it then"
    with Served(site) as running:
        assert wait_for(lambda: not left.exists(), timeout=10), f"{left} is still there"
        with Served(site) as another:  # a serve that runs keeps its folder when another one starts
            assert running.output.is_dir() and another.output.is_dir()
