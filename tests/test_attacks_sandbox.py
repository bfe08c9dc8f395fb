"""Post code that goes after the build's secrets: the build's environment through /proc, the cache key through HOME,
forged compiled templates that the build would run, a way back into the host's network; and, with
`exec: {isolation: strict}`, the site, the cache key, other processes and Unix sockets outside the post's folder.

Each build runs with a token planted in its environment only (not in this test's), with HOME in a folder of the
test (where the cache key and the compiled templates are kept). Every attack is real code in a post, run by the
real CLI; the listeners are on 127.0.0.1 and in this test's folder.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import make_site
from test_execute import exec_post, out

NEWNET = 0x40000000


def run(site: Path, home: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI from the site's folder, with the token in its environment (and nowhere else) and HOME in `home`."""
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "GITHUB_TOKEN")}
    env.update(HOME=str(home), GITHUB_TOKEN=token)
    return subprocess.run(
        [sys.executable, "-m", "site_builder", *args, "--source", str(site)],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def report(proc: subprocess.CompletedProcess[str], rel: str) -> str:
    """The lines that report a failure of the post at one of its lines (none when it passed)."""
    failed = re.compile(rf"content/posts/{re.escape(rel)}:\d+: ")
    return "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if failed.search(line))


def environ_post(token: str) -> str:
    return f"""
        ```python
        import os
        found = []
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            for what in ("environ", "mem"):
                try:
                    with open(f"/proc/{{pid}}/{{what}}", "rb") as fh:
                        if {token.encode()!r} in fh.read(1 << 20):
                            found.append(pid)
                except (OSError, ValueError):
                    pass
        print(found)
        ```

        ```output
        []
        ```
    """


def key_post(key: Path) -> str:
    return f"""
        ```python
        try:
            print(len(open({str(key)!r}, "rb").read()), "bytes of the key")
        except OSError as exc:
            print("denied")
        ```

        ```output
        denied
        ```
    """


FORGE = """
    import hmac, io, marshal, os, pickle
    from jinja2.bccache import bc_magic
    try:
        key = open(KEY, "rb").read()
    except OSError:
        key = None
    forged = 0
    if key:
        for name in os.listdir(FOLDER):
            data = open(os.path.join(FOLDER, name), "rb").read()[32:]
            if name.startswith("refs-") or not data.startswith(bc_magic):
                continue
            rest = io.BytesIO(data[len(bc_magic):])
            checksum, code = pickle.load(rest), marshal.load(rest)
            evil = compile(
                f"open({MARKER!r}, 'a').write(__import__('os').environ.get('GITHUB_TOKEN', '') + chr(10))\\n"
                f"exec(__import__('marshal').loads({marshal.dumps(code)!r}), globals())",
                name,
                "exec",
            )
            body = bc_magic + pickle.dumps(checksum, 2) + marshal.dumps(evil)
            open(os.path.join(FOLDER, name), "wb").write(hmac.digest(key, body, "sha256") + body)
            forged += 1
    print("forged", forged)
"""


def forge_post(key: Path, marker: Path) -> str:
    """Sign compiled templates that write the build's token to `marker`, then run the template's own code."""
    code = f"KEY, FOLDER, MARKER = {str(key)!r}, {str(key.parent / 'templates')!r}, {str(marker)!r}\n"
    code += textwrap.dedent(FORGE)
    return f"```python\n{code}```\n\n```output\nforged 0\n```\n"


def setns_post(port: int) -> str:
    return f"""
        ```python
        import ctypes, os, socket
        libc = ctypes.CDLL(None, use_errno=True)
        for pid in [os.getppid(), 1, *sorted(int(p) for p in os.listdir("/proc") if p.isdigit())]:
            try:
                fd = os.open(f"/proc/{{pid}}/ns/net", os.O_RDONLY)
            except OSError:
                continue
            entered = libc.setns(fd, {NEWNET}) == 0
            os.close(fd)
            if entered:
                break
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
            print("connected")
        except OSError:
            print("blocked")
        ```

        ```output
        blocked
        ```
    """


def test_default_mode_keeps_the_builds_secrets(tmp_path, listener):
    """A first build compiles the theme's templates (kept signed beside the key); posts added for the second
    build go after the token in the build's environment, the key, the templates and the host's network."""
    home, token, marker = tmp_path / "home", "ghp_" + secrets.token_hex(12), tmp_path / "ran-in-the-build"
    home.mkdir()
    site = make_site(tmp_path / "site")
    exec_post(site, "plain.md", "```python\nprint(1)\n```\n")
    first = run(site, home, token, "build")
    assert first.returncode == 0, out(first)
    key = home / ".cache" / "site-builder" / "cache.key"
    assert any((key.parent / "templates").iterdir()), "the first build kept no compiled template"
    exec_post(site, "environ.md", environ_post(token))
    exec_post(site, "key.md", key_post(key))
    exec_post(site, "forge.md", forge_post(key, marker))
    exec_post(site, "setns.md", setns_post(listener), extra="exec: {network: false}")
    proc = run(site, home, token, "build", "--keep-going")  # pages are made even if a post fails
    assert "Traceback" not in proc.stderr, out(proc)
    assert not marker.exists(), f"forged templates ran in the build: {marker.read_text()!r}"
    for rel in ("environ.md", "key.md", "forge.md", "setns.md"):
        assert not report(proc, rel), out(proc)
    assert proc.returncode == 0, out(proc)


def strict_site(tmp_path: Path, home: Path, sock: Path, pid: int) -> Path:
    site = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nexec:\n  isolation: strict\n")
    (site / "output").mkdir()
    key = home / ".cache" / "site-builder" / "cache.key"
    exec_post(site, "key.md", key_post(key))
    exec_post(
        site,
        "write.md",
        f"""
        ```python
        import os
        wrote = []
        for path in ({str(site / "content/posts/pwned.md")!r}, {str(site / "output/pwned.html")!r},
                     {str(home / "pwned")!r}, "../../content/posts/pwned.md"):
            try:
                open(path, "x").write("pwned")
                wrote.append(path)
            except OSError:
                pass
        print(wrote)
        ```

        ```output
        []
        ```
        """,
    )
    exec_post(
        site,
        "pids.md",
        f"""
        ```python
        import os
        print(os.path.exists("/proc/{pid}"), os.path.exists({str(site)!r}), os.path.exists({str(home)!r}))
        ```

        ```output
        False False False
        ```
        """,
    )
    exec_post(
        site,
        "unix.md",
        f"""
        ```python
        import socket
        try:
            socket.socket(socket.AF_UNIX).connect({str(sock)!r})
            print("connected")
        except OSError:
            print("blocked")
        ```

        ```output
        blocked
        ```
        """,
        extra="exec: {network: false}",
    )
    exec_post(
        site,
        "works.md",
        """
        ```python
        import json, os, subprocess, sys
        open("mine.txt", "w").write("kept")
        print(open("mine.txt").read(), os.environ["HOME"] == os.getcwd(), json.dumps([1]))
        print(subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout.strip())
        ```

        ```output
        kept True [1]
        42
        ```
        """,
    )
    exec_post(site, "killed.md", "```python\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n```\n")
    return site


def test_strict_mode_hides_the_site_the_key_and_the_machine(tmp_path):
    """`exec: {isolation: strict}` in site.yml: the posts see their own folder and Python, nothing else."""
    home, token = tmp_path / "home", "ghp_" + secrets.token_hex(12)
    home.mkdir()
    sock = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock))
        server.listen(8)
        site = strict_site(tmp_path, home, sock, os.getpid())
        first = run(site, home, token, "build")  # the key exists from here on
        assert "Traceback" not in first.stderr, out(first)
        assert (home / ".cache/site-builder/cache.key").exists()
        for f in (site / ".cache").glob("exec/*"):
            f.unlink()
        proc = run(site, home, token, "check")
    assert "Traceback" not in proc.stderr, out(proc)
    for rel in ("key.md", "write.md", "pids.md", "unix.md", "works.md"):
        assert not report(proc, rel), out(proc)
    # a post's process is not its PID namespace's first process, which would ignore the signals it sends itself
    assert "content/posts/killed.md:8: Crash: the Python process running the post was killed" in proc.stdout, out(proc)
    assert proc.stdout.strip().splitlines()[-1] == "5 passed, 1 failed", out(proc)
    assert not list(site.rglob("pwned*")) and not (home / "pwned").exists(), "a post wrote into the site"


def test_strict_mode_where_the_kernel_refuses_it_is_an_error_naming_the_fix(tmp_path):
    """In a user namespace that may hold no other (user.max_user_namespaces 0 there, as on a system that forbids
    them), a strict post fails at its `exec` line saying what to change; the other post still runs."""
    site = make_site(tmp_path / "site")
    post = exec_post(site, "jailed.md", "```python\nprint(1)\n```\n", extra="exec: {isolation: strict}")
    exec_post(site, "free.md", "```python\nprint(2)\n```\n")
    script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'
    argv = ["unshare", "--user", "--map-root-user", "sh", "-c", script, "sh", sys.executable, "-m", "site_builder"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([*argv, "check", "--source", str(site)], capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in proc.stderr, out(proc)
    line = next(i for i, text in enumerate(post.read_text().splitlines(), 1) if text.startswith("exec:"))
    prefix = f"content/posts/jailed.md:{line}: IsolationError: exec: isolation: strict cannot be set up here ("
    assert prefix in proc.stdout, out(proc)
    assert "sysctl kernel.unprivileged_userns_clone=1" in proc.stdout, out(proc)
    assert "content/posts/free.md: ran (new): 1 passed" in proc.stdout, out(proc)
    assert proc.returncode == 1, out(proc)
