"""`check --executor ray --ray-address ADDR`: posts run as Ray tasks on an existing cluster.

The test starts its own single-node Ray head (own ports, own temp dir, own auth token, in its own process
group) and stops exactly that group afterwards; it never touches another Ray cluster on the machine.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from helpers import make_site
from test_execute import exec_post, line_of, out, post_line, summary

ray = pytest.importorskip("ray")  # installed by `make test` (the posts extra): the test runs there


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # zombies (dead, not yet reaped by init) count as gone
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


@pytest.fixture
def ray_head(tmp_path):
    """A local Ray head on free ports: (address, environment to talk to it)."""
    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="sbray", dir="/tmp")  # short: Ray's socket paths live under it
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32), RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    log_path = tmp_path / "ray-head.log"
    cmd = [
        sys.executable,
        "-m",
        "ray.scripts.scripts",
        "start",
        "--head",
        "--block",
        "--node-ip-address",
        "127.0.0.1",
        "--port",
        str(port),
        "--num-cpus",
        "2",
        "--include-dashboard=false",
        "--disable-usage-stats",
        "--temp-dir",
        temp_dir,
        "--dashboard-port",
        str(free_port()),
        "--ray-client-server-port",
        str(free_port()),
        "--node-manager-port",
        str(free_port()),
        "--object-manager-port",
        str(free_port()),
        "--metrics-export-port",
        str(free_port()),
        "--dashboard-agent-listen-port",
        str(free_port()),
        "--dashboard-agent-grpc-port",
        str(free_port()),
        "--runtime-env-agent-port",
        str(free_port()),
    ]
    with open(log_path, "wb") as log:
        head = subprocess.Popen(
            cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 45
        while b"Ray runtime started" not in log_path.read_bytes():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Ray head did not start:\n{log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", env
    finally:
        # what `ray stop --force` would do, but only to this head's process group, not to every Ray on the machine
        try:
            os.killpg(head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        head.wait(timeout=30)
        deadline = time.monotonic() + 10
        while group_alive(head.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        shutil.rmtree(temp_dir, ignore_errors=True)


def test_check_runs_posts_as_ray_tasks(tmp_path, ray_head):
    address, env = ray_head
    site = make_site(tmp_path / "site")
    for name in ("a.md", "b.md"):
        exec_post(
            site,
            name,
            f"""
            ```python
            import os
            total = sum(range(10))
            print(total, "{name}")
            ```

            ```output
            45 {name}
            ```
        """,
        )
    bad = exec_post(
        site,
        "c.md",
        """
        ```python
        raise ValueError("on the cluster")
        ```
    """,
    )
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "site_builder",
            "check",
            "--source",
            str(site),
            "--executor",
            "ray",
            "--ray-address",
            address,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    took = time.perf_counter() - start
    assert proc.returncode == 1, out(proc)
    for name in ("a.md", "b.md"):
        assert post_line(proc, f"content/posts/{name}").startswith(
            f"content/posts/{name}: ran (new): 1 passed, 0 failed"
        )
    assert f"content/posts/c.md:{line_of(bad, 'raise ValueError')}: ValueError: on the cluster" in proc.stdout, out(
        proc
    )
    assert summary(proc) == "2 passed, 1 failed"
    assert took < 60, took

    # the results are in the site's cache, as with local runs
    proc = subprocess.run(
        [sys.executable, "-m", "site_builder", "check", "--source", str(site)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert post_line(proc, "content/posts/a.md").startswith("content/posts/a.md: cached:"), out(proc)


def test_unreachable_ray_address_is_one_error_line(tmp_path):
    site = make_site(tmp_path / "site")
    exec_post(site, "a.md", "```python\nprint(1)\n```\n")
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "site_builder",
            "check",
            "--source",
            str(site),
            "--executor",
            "ray",
            "--ray-address",
            f"127.0.0.1:{free_port()}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, out(proc)
    assert time.perf_counter() - start < 30
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[1:] == ["error: stopped with 1 error"]
    assert lines[0].startswith("error: cannot reach the Ray cluster at --ray-address 127.0.0.1:"), out(proc)
