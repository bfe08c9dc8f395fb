"""`check --executor ray --ray-address ADDR`: posts run as Ray tasks on an existing cluster, and a Ray that never
hangs the build: an address that is no Ray head, a token asked for, a post too big for every node, a worker killed,
a cluster lost mid-run.

The tests start their own single-node Ray heads (own ports, own temp dir, own auth token, in their own process
group) and stop exactly those groups afterwards; they never touch another Ray cluster on the machine. One head is
shared by the tests that leave it running; the test that kills its head has its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import shared_lock
from helpers import assert_one_line_error, make_site, wait_for
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


def procs_in(path) -> list[int]:
    """The processes working in `path` (their current directory is in it): posts' processes on a test cluster."""
    pids = []
    for name in os.listdir("/proc"):
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue
        if cwd == str(path) or cwd.startswith(f"{path}/"):
            pids.append(int(name))
    return pids


@dataclass
class Head:
    address: str
    env: dict[str, str]
    worker_tmp: Path
    pgid: int


@contextlib.contextmanager
def start_head(work: Path, cpus: int = 1):
    """A local Ray head on free ports, with token authentication: (address, environment to talk to it, the
    workers' temporary folder, where posts' run directories go). Stopped (its process group) on exit."""
    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="sbray", dir="/tmp")  # short: Ray's socket paths live under it
    worker_tmp = work / "worker-tmp"
    worker_tmp.mkdir(parents=True)
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32), RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    log_path = work / "ray-head.log"
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block", "--node-ip-address", "127.0.0.1"]
    cmd += ["--port", str(port), "--num-cpus", str(cpus), "--include-dashboard=false", "--disable-usage-stats"]
    cmd += ["--temp-dir", temp_dir]
    for flag in (
        "--dashboard-port",
        "--ray-client-server-port",
        "--node-manager-port",
        "--object-manager-port",
        "--metrics-export-port",
        "--dashboard-agent-listen-port",
        "--dashboard-agent-grpc-port",
        "--runtime-env-agent-port",
    ):
        cmd += [flag, str(free_port())]
    with open(log_path, "wb") as log:
        head = subprocess.Popen(
            cmd,
            env=dict(env, TMPDIR=str(worker_tmp)),  # the workers' temporary folder
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 45
        while b"Ray runtime started" not in log_path.read_bytes():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Ray head did not start:\n{log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield Head(f"127.0.0.1:{port}", env, worker_tmp, head.pid)
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
        for pid in procs_in(worker_tmp):  # a post whose worker died with the head (it is in a session of its own)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def one_cluster_at_a_time(request):
    """No other worker starts a Ray cluster while this file's run (the bundled build's posts: tests/conftest.py)."""
    with shared_lock(request.config, "ray"):
        yield


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory, one_cluster_at_a_time):
    """One head for the tests that do not stop it."""
    with start_head(tmp_path_factory.mktemp("ray-head"), cpus=2) as head:
        yield head


def check_ray(site: Path, address: str, *args: str, env: dict[str, str] | None = None, popen: bool = False):
    cmd = [sys.executable, "-m", "site_builder", "check", "--source", str(site), "--executor", "ray"]
    cmd += ["--ray-address", address, *args]
    if popen:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def leftovers(head: Head) -> list[str]:
    """What posts' runs left in the workers' temporary folder."""
    return sorted(str(p.relative_to(head.worker_tmp)) for p in head.worker_tmp.rglob("*"))


def test_check_runs_posts_as_ray_tasks(tmp_path, ray_head):
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
    proc = check_ray(site, ray_head.address, env=ray_head.env)
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
    assert leftovers(ray_head) == []  # the run directories, and the build's folder on the node, are gone

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
    proc = check_ray(site, f"127.0.0.1:{free_port()}")
    assert time.perf_counter() - start < 30
    assert_one_line_error(proc, r"^error: cannot reach the Ray cluster at --ray-address 127\.0\.0\.1:\d+: ")


def test_an_address_that_is_not_a_ray_head_fails_at_once(tmp_path):
    """A server that accepts connections and says nothing: ray.init would wait for it for ever."""
    site = make_site(tmp_path / "site")
    exec_post(site, "a.md", "```python\nprint(1)\n```\n")
    server = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.extend(iter(server.accept, None)), daemon=True).start()
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        start = time.perf_counter()
        proc = check_ray(site, address)
        took = time.perf_counter() - start
    finally:
        server.close()
    line = assert_one_line_error(proc, "is not a Ray cluster")
    assert line == (
        f"error: --ray-address {address} is not a Ray cluster: it accepts connections but gave no Ray (gRPC) answer "
        "within 5 s"
    )
    assert took < 15, took


def test_a_token_asked_for_and_not_given_says_how_to_give_it(tmp_path, ray_head):
    site = make_site(tmp_path / "site")
    exec_post(site, "a.md", "```python\nprint(1)\n```\n")
    (tmp_path / "home").mkdir()  # no ~/.ray/auth_token there
    env = {k: v for k, v in ray_head.env.items() if not k.startswith("RAY_AUTH_")}
    env["HOME"] = str(tmp_path / "home")
    start = time.perf_counter()
    proc = check_ray(site, ray_head.address, env=env)
    assert_one_line_error(
        proc,
        rf"^error: the Ray cluster at {ray_head.address} asks for a token: set RAY_AUTH_TOKEN to the cluster's token "
        r"\(or RAY_AUTH_TOKEN_PATH to a file holding it; see https://docs\.ray\.io/\S+token-auth\.html\)$",
    )
    assert time.perf_counter() - start < 30

    # a wrong one (RAY_AUTH_TOKEN alone is enough to use token authentication)
    proc = check_ray(site, ray_head.address, env=dict(env, RAY_AUTH_TOKEN=secrets.token_hex(32)))
    assert_one_line_error(proc, rf"^error: the Ray cluster at {ray_head.address} refused the token it was given ")

    # the right one, without RAY_AUTH_MODE
    proc = check_ray(site, ray_head.address, env=dict(env, RAY_AUTH_TOKEN=ray_head.env["RAY_AUTH_TOKEN"]))
    assert summary(proc) == "1 passed, 0 failed", out(proc)


def test_a_post_needing_more_memory_than_any_node_fails_at_once(tmp_path, ray_head):
    site = make_site(tmp_path / "site")
    big = exec_post(site, "x.md", "```python\nprint(1)\n```\n", extra="exec:\n  memory: 64GiB")
    exec_post(site, "y.md", "```python\nprint(2)\n```\n")
    start = time.perf_counter()
    proc = check_ray(site, ray_head.address, env=ray_head.env)
    assert time.perf_counter() - start < 30
    assert proc.returncode == 1, out(proc)
    pattern = (
        rf"^content/posts/x\.md:{line_of(big, 'memory: 64GiB')}: MemoryLimit: needs 64\.0 GiB of memory; the largest "
        rf"node of the Ray cluster at {ray_head.address} has \d+\.\d GiB$"
    )
    assert any(re.match(pattern, line) for line in proc.stdout.splitlines()), out(proc)
    assert post_line(proc, "content/posts/x.md").startswith("content/posts/x.md: ran (new): 0 passed, 1 failed")
    assert summary(proc) == "1 passed, 1 failed"


def test_a_post_whose_worker_is_killed_runs_again_and_leaves_nothing(tmp_path, ray_head):
    site = make_site(tmp_path / "site")
    post = exec_post(
        site,
        "a.md",
        """
        ```python
        import time
        time.sleep(4)
        print("slept")
        ```

        ```output
        slept
        ```
    """,
    )
    proc = check_ray(site, ray_head.address, env=ray_head.env, popen=True)
    try:
        runner = wait_for(lambda: procs_in(ray_head.worker_tmp), timeout=60)[0]
        with open(f"/proc/{runner}/stat") as fh:
            worker = int(fh.read().rsplit(")", 1)[1].split()[1])  # the runner's parent: the Ray worker
        os.kill(worker, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert summary(done) == "1 passed, 0 failed, 1 warning", out(done)  # counted with the others: one list
    line = line_of(post, "import time")
    assert f"warning: content/posts/a.md:{line}: the Ray worker running the post died, and Ray ran the post again" in (
        stderr
    ), out(done)
    assert leftovers(ray_head) == []  # the killed attempt's run directory went with the retry
    assert procs_in(ray_head.worker_tmp) == []  # and the post it had started


def test_a_cluster_lost_mid_run_fails_the_posts_not_finished(tmp_path):
    site = make_site(tmp_path / "site")
    for name in ("a.md", "b.md"):  # one CPU: one runs, one waits
        post = exec_post(site, name, "```python\nimport time\ntime.sleep(20)\n```\n")
    report = tmp_path / "report.json"
    with start_head(tmp_path / "head") as head:
        proc = check_ray(site, head.address, "--json", str(report), env=head.env, popen=True)
        try:
            wait_for(lambda: procs_in(head.worker_tmp), timeout=60)
            os.killpg(head.pgid, signal.SIGKILL)
            killed = time.perf_counter()
            stdout, stderr = proc.communicate(timeout=60)
            took = time.perf_counter() - killed
        finally:
            proc.kill()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert proc.returncode == 1, out(done)
    assert took < 30, took
    for name in ("a.md", "b.md"):
        assert (
            f"content/posts/{name}:{line_of(post, 'import time')}: RayClusterLost: the Ray cluster at {head.address} lost ("
            in stdout
        ), out(done)
    assert summary(done) == "0 passed, 2 failed"
    assert [(r["path"], r["status"]) for r in json.loads(report.read_text())] == [
        ("content/posts/a.md", "failed"),
        ("content/posts/b.md", "failed"),
    ]
