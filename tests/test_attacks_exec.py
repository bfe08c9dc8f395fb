"""Code in posts that attacks the machine: each attack is stopped or capped, reported at the post's file:line, and
leaves nothing behind (no process of the post running, no temporary directory).

One site holds most attacks and is checked once; the builder runs from the site's directory with tokens in its
environment, as a CI job would. Every test uses the real CLI; all network traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import make_site, processes_with_arg, run_cli
from test_execute import check, exec_post, line_of, out, summary

MARK = "302.5"  # a `sleep` duration no other test uses: what the process attacks leave behind
SECRETS = {"GITHUB_TOKEN": "ghp_attack_test_secret", "AWS_SECRET_ACCESS_KEY": "aws-attack-test-secret"}
PASSED = "SITE_BUILDER_TEST_PASSED"  # passed to posts by name through site.yml's exec: env


def marked() -> list[int]:
    """Processes whose command line holds MARK."""
    return processes_with_arg(MARK)


def reach_code(site: Path) -> str:
    """A block that writes up from its directory, then looks for the site in everything the post's process is
    told (environment, cwd, argv, __file__) and writes into it when found. It knows the site's path only to
    recognise it: it writes nowhere else."""
    return f"""
        ```python
        import os, sys
        from pathlib import Path
        for rel in ("../../content/posts", "../../../content/posts", "../../output", "../../../output"):
            try:
                open(os.path.join(rel, "pwned.md"), "x").write("pwned")  # never creates a folder
            except OSError:
                pass
        site, found = Path({str(site)!r}).resolve(), []
        told = [*os.environ.values(), os.getcwd(), *sys.argv, __file__]
        for where in {{Path(p) for value in told for p in value.split(os.pathsep) if p.startswith("/")}}:
            for d in (where, *where.parents):
                if d.resolve() == site:
                    found.append(str(d))
                    (d / "content/posts/pwned.md").write_text("pwned")
                    if (d / "output").is_dir():
                        (d / "output/pwned.html").write_text("pwned")
        print(sorted(set(found)))
        print([k for k, v in os.environ.items() if str(site) in v])
        ```

        ```output
        []
        []
        ```
    """


ENV_POST = f"""
    ```python
    import os
    print(sorted(k for k in os.environ if k in {sorted(SECRETS)!r} or k in ("PWD_OF_BUILDER", "OLDPWD")))
    print([v for v in os.environ.values() if v in {sorted(SECRETS.values())!r}])
    print(os.environ["HOME"] == os.getcwd(), os.environ.get("{PASSED}"))
    ```

    ```output
    []
    []
    True passed-by-name
    ```
"""

DOUBLE_FORK = f"""
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvpe("sleep", ["sleep", "{MARK}"], {{"PATH": "/usr/bin:/bin"}})
    os._exit(0)
os.wait()
"""

ATTACKS = {
    "daemon.md": (
        "",
        f"""
        ```python
        import subprocess, sys
        subprocess.run([sys.executable, "-c", {DOUBLE_FORK!r}], check=True)
        ```
    """,
    ),
    "sigterm.md": (
        "exec: {timeout: 1.5}",
        f"""
        ```python
        import signal, subprocess, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen(["sh", "-c", "trap '' TERM; exec sleep {MARK}"], start_new_session=True)
        while True:
            time.sleep(0.01)
        ```
    """,
    ),
    "loud.md": (
        "",
        """
        ```python
        import sys
        for _ in range(200):
            sys.stdout.write("x" * (1 << 20))
        ```
    """,
    ),
    "files.md": (
        "",
        """
        ```python
        x = 1
        ```

        ```python
        import os
        os.mkdir("many")
        for i in range(100_000):
            open(f"many/{i}", "w").close()
        ```
    """,
    ),
    "procs.md": (
        "exec: {timeout: 20}",
        f"""
        ```python
        import subprocess
        started = [subprocess.Popen(["sleep", "{MARK}"]) for _ in range(200)]
        for p in started:
            p.wait()
        ```
    """,
    ),
    "env.md": ("", ENV_POST),
}


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """The attack site, checked once from its own directory: (site, process, report, the builder's TMPDIR)."""
    base = tmp_path_factory.mktemp("attacks")
    site = make_site(base / "site", f"title: Attacks\nurl: https://example.org\nexec:\n  env: [{PASSED}]\n")
    (site / "output").mkdir()
    for name, (extra, body) in ATTACKS.items():
        exec_post(site, name, body, extra=extra)
    exec_post(site, "reach.md", reach_code(site))
    tmp = base / "tmp"
    tmp.mkdir()
    before = set(marked())
    with pytest.MonkeyPatch.context() as mp:
        for name, value in {**SECRETS, PASSED: "passed-by-name", "PWD": str(site), "TMPDIR": str(tmp)}.items():
            mp.setenv(name, value)
        mp.setenv("PWD_OF_BUILDER", str(site))
        mp.setenv("PATH", f"{site / 'bin'}{os.pathsep}{os.environ['PATH']}")
        mp.setenv("PYTHONPATH", str(site))
        start = time.perf_counter()
        proc = run_cli("check", "--source", str(site), "--json", str(base / "report.json"), cwd=site)
        took = time.perf_counter() - start
    report = {e["path"].removeprefix("content/posts/"): e for e in json.loads((base / "report.json").read_text())}
    yield site, proc, report, tmp, before, took
    for pid in set(marked()) - before:  # only if the engine failed to stop them
        os.kill(pid, 9)


def failure(attacked, name: str, kind: str, needle: str) -> str:
    """The post's one failure, at the line of `needle`, of type `kind`, as the CLI prints it."""
    site, proc, report, *_ = attacked
    entry = report[name]
    assert entry["status"] == "failed" and len(entry["failures"]) == 1, entry
    f = entry["failures"][0]
    line = f"content/posts/{name}:{f['line']}: {f['type']}: {f['message']}"
    assert line in proc.stdout, out(proc)
    assert f["line"] == line_of(site / "content/posts" / name, needle), line
    assert f["type"] == kind, line
    return line


def test_the_attacks_fail_cleanly(attacked):
    _site, proc, _report, tmp, before, took = attacked
    assert proc.returncode == 1, out(proc)
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    assert set(marked()) - before == set(), "a process started by a post is still running"
    assert os.listdir(tmp) == [], "a run directory was left behind"
    assert took < 40, took


def test_posts_cannot_find_or_write_the_site(attacked):
    site, proc, report, *_ = attacked
    assert report["reach.md"]["status"] == "passed", out(proc)
    assert not list(site.rglob("pwned*")), "a post wrote into the site"


def test_tokens_stay_out_of_posts(attacked):
    _site, proc, report, *_ = attacked
    assert report["env.md"]["status"] == "passed", out(proc)


def test_double_forked_daemon_without_environment(attacked):
    line = failure(attacked, "daemon.md", "BackgroundProcess", "import subprocess")
    assert "background process" in line


def test_sigterm_ignored(attacked):
    line = failure(attacked, "sigterm.md", "Timeout", "import signal")
    assert "1.5 s" in line
    assert attacked[2]["sigterm.md"]["seconds"] < 8


def test_200_mb_printed(attacked):
    line = failure(attacked, "loud.md", "OutputTooLarge", "import sys")
    assert "1024 KiB" in line


def test_100_000_files(attacked):
    line = failure(attacked, "files.md", "FileLimit", "import os")
    assert "more than 10000 files" in line
    assert attacked[2]["files.md"]["passed"] == 1


def test_200_processes(attacked):
    line = failure(attacked, "procs.md", "ProcessLimit", "import subprocess")
    assert "more than 100 processes" in line
    assert attacked[2]["procs.md"]["seconds"] < 10


def test_build_keeps_relative_and_told_paths_out_of_the_site(tmp_path, monkeypatch):
    """`build` from the site's directory: a post that writes ../../content and ../../output, or into any site
    its environment names, reaches neither the sources nor the output."""
    site = make_site(tmp_path / "site")
    exec_post(site, "plain.md", "```python\nprint(1)\n```\n")
    assert run_cli("build", "--source", ".", cwd=site).returncode == 0
    exec_post(site, "reach.md", reach_code(site))
    monkeypatch.setenv("PWD", str(site))
    monkeypatch.setenv("SITE_ROOT", str(site))
    proc = run_cli("build", "--source", ".", cwd=site)
    assert proc.returncode == 0, out(proc)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not list(site.rglob("pwned*")), "a post wrote into the site"


def connect_post(port: int) -> str:
    return textwrap.dedent(f"""
        ```python
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
            print("connected")
        except OSError:
            print("blocked")
        ```

        ```output
        connected
        ```
    """)


def test_network_false_blocks_connections(tmp_path, listener):
    site = make_site(tmp_path / "site")
    exec_post(site, "online.md", connect_post(listener))
    offline = exec_post(site, "offline.md", connect_post(listener), extra="exec: {network: false}")
    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert "content/posts/online.md: ran (new): 1 passed, 0 failed" in proc.stdout, out(proc)
    line = line_of(offline, "connected", 2)
    assert f"content/posts/offline.md:{line}: OutputMismatch: " in proc.stdout, out(proc)
    assert "    +blocked" in proc.stdout.split(f"content/posts/offline.md:{line}:")[1], out(proc)
    assert "Traceback" not in proc.stderr, proc.stderr

    # site.yml's exec: {network: false} blocks every post
    (site / "site.yml").write_text("title: T\nurl: https://example.org\nexec:\n  network: false\n")
    proc = check(site)
    online = line_of(site / "content/posts/online.md", "connected", 2)
    assert "    +blocked" in proc.stdout.split(f"content/posts/online.md:{online}:")[1], out(proc)
    assert summary(proc) == "0 passed, 2 failed", out(proc)


def test_interrupted_run_leaves_no_run_directory(tmp_path, monkeypatch):
    """Ctrl-C while posts run: their processes are stopped and their run directories removed."""
    site = make_site(tmp_path / "site")
    started = tmp_path / "started"
    for i in range(2):
        exec_post(
            site, f"slow{i}.md", f"```python\nimport time\nopen({str(started)!r} + '{i}', 'w')\ntime.sleep(60)\n```\n"
        )
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    for command in ("check", "build"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "site_builder", command, "--source", str(site)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("started*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "Traceback" not in err, err
        assert os.listdir(tmp) == [], f"{command}: a run directory was left behind"
        for f in tmp_path.glob("started*"):
            f.unlink()


def test_bad_exec_settings_name_their_line(tmp_path):
    site = make_site(tmp_path / "site", "title: T\nexec:\n  env: [GOOD, not a name]\n")
    exec_post(site, "x.md", "```python\nprint(1)\n```\n")
    proc = check(site)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, out(proc)
    assert "error: site.yml:3: exec: env must be a list of environment variable names" in proc.stderr, out(proc)
    site = make_site(tmp_path / "site2")
    exec_post(site, "x.md", "```python\nprint(1)\n```\n", extra="exec:\n  network: maybe")
    proc = check(site)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, out(proc)
    assert "error: content/posts/x.md:6: exec: network must be true or false, got 'maybe'" in proc.stderr, out(proc)


def test_a_post_dies_with_the_build_that_runs_it(tmp_path):
    """kill -9 of the build (or of a Ray worker) cannot stop a post through its process group: the post must die
    with its parent (PR_SET_PDEATHSIG), not run on with no timeout."""
    site = make_site(tmp_path / "site")
    exec_post(
        site,
        "orphan.md",
        f"""
        ```python
        import os
        open(os.path.join({str(tmp_path)!r}, "started"), "w").close()
        os.execvp("sleep", ["sleep", "{MARK}"])
        ```
        """,
        "exec:\n  timeout: 100",
    )
    before = set(marked())
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder", "check", "--source", str(site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=False,
    )
    deadline = time.monotonic() + 30
    while not (set(marked()) - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = set(marked()) - before
    assert started, "the post never started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 5
    while set(marked()) & started and time.monotonic() < deadline:
        time.sleep(0.05)
    left = set(marked()) & started
    for pid in left:  # only if the engine failed
        os.kill(pid, signal.SIGKILL)
    assert not left, "the post outlived the build that ran it"
