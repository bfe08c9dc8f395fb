"""Ctrl-C while posts run stops them at once: no wait for their timeout, no process left behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import make_site
from test_execute import exec_post


@pytest.mark.parametrize("command", ["check", "build"])
def test_ctrl_c_stops_running_posts_at_once(tmp_path, command):
    root = make_site(tmp_path / "site")
    marker, writing = tmp_path / "started", tmp_path / "writing"
    for i in range(2):
        exec_post(  # the marker appears whole (written, then renamed): a post stopped mid-write leaves none
            root,
            f"slow{i}.md",
            f"""
            ```python
            import os, pathlib, time
            pathlib.Path({str(writing)!r} + "{i}").write_text(str(os.getpid()))
            os.replace({str(writing)!r} + "{i}", {str(marker)!r} + "{i}")
            time.sleep(60)
            ```
            """,
            "exec:\n  timeout: 100",
        )
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder", command, "--source", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not any(tmp_path.glob("started*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(tmp_path.glob("started*")), "the posts never started"
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 5, "waited for the posts to finish"
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in err and "Traceback" not in err
    for started in tmp_path.glob("started*"):
        pid = int(started.read_text())
        for _ in range(50):
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                break
            if state in ("Z", "X"):  # dead, waiting for init to reap it
                break
            time.sleep(0.02)
        else:
            pytest.fail(f"the post's process {pid} outlived the command")
