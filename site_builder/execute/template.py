"""The build's side of the template process (forkserver.py): one per local run of posts, started before the first
post with the runner and site.yml's `exec: preload` modules imported, asked to fork a fresh child per post.

A post's child is then one fork away instead of an interpreter start and its imports; everything else is as with
a fresh process (sandbox.py watches it the same way: its group, its mark, its caps, its timeout). Where the
template cannot be had (not Linux, no pidfd, a preloaded module that starts threads), posts start as before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from site_builder.execute.isolation import child_env
from site_builder.execute.limits import FILE_SIZE_CAP, MARK_LIMIT, Limits, prctl_function
from site_builder.util.files import left_by_the_dead

_HERE = Path(__file__).resolve().parent
_FILES = ("forkserver.py", "runner.py", "runvalues.py", "isolation.py", "jail.py")
# a preloaded numerical library starts no thread pool in the template (it must stay single-threaded to fork)
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
READY_WAIT = 600.0  # seconds the preload may take
_PR_SET_PDEATHSIG = 1


class TemplateChild:
    """A post's child forked by the template, waited on as a subprocess.Popen is (`pid`, `wait`)."""

    def __init__(self, pid: int, answers: socket.socket):
        self.pid, self._answers = pid, answers
        self._code: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        """Its exit status (-N: killed by signal N); raises subprocess.TimeoutExpired after `timeout` seconds."""
        if self._code is not None:
            return self._code
        self._answers.settimeout(None if timeout is None else max(timeout, 0.001))  # 0 would not wait at all
        try:
            data = self._answers.recv(64)
        except TimeoutError:
            raise subprocess.TimeoutExpired("post", timeout or 0.0) from None
        except OSError:
            data = b""
        # no answer: the template died, and the child with it (PR_SET_PDEATHSIG)
        self._code = int(data.split()[1]) if data.startswith(b"exit ") else -signal.SIGKILL
        self._answers.close()
        return self._code


@dataclass
class Template:
    """One running template process and the socket it takes requests on."""

    proc: subprocess.Popen[bytes]
    ctl: socket.socket
    folder: str
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def spawn(self, cwd: str, env: dict[str, str], limits: Limits, log_path: str, mark: int) -> TemplateChild | None:
        """Fork a child running the runner in `cwd` (its .job.json); None when the template is gone."""
        request = {
            "cwd": cwd,
            "env": env,
            "log": log_path,
            "memory": limits.memory,
            "fsize": FILE_SIZE_CAP,
            "mark": mark,
            "mark_limit": MARK_LIMIT,
            "netns": limits.netns,
            "jail": limits.jail,
        }
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with self._lock:
                socket.send_fds(self.ctl, [json.dumps(request).encode()], [theirs.fileno()])
            theirs.close()
            mine.settimeout(30)
            data = mine.recv(64)
        except OSError:
            data = b""
        finally:
            theirs.close()
        if not data.startswith(b"pid "):
            mine.close()
            return None
        return TemplateChild(int(data.split()[1]), mine)

    def close(self) -> None:
        """Stop it (a child still running dies with it) and remove its folder."""
        self.ctl.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _die_with_parent() -> None:  # runs in the template between fork and exec
    prctl, parent = prctl_function(), os.getppid()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)


_PREFIX = "site-builder-template-"  # then the build's process id: see _sweep


def _sweep(tmp: str) -> None:
    """Remove the folders of templates whose build is gone: a build killed at once (kill -9, a CI job cancelled)
    takes its template with it (it dies with its parent), and nothing is left to remove the folder."""
    for path in left_by_the_dead(tmp, rf"{_PREFIX}(\d+)-.+"):
        shutil.rmtree(path, ignore_errors=True)


def start_template(
    preload: list[str], site_root: str, extra: dict[str, str] | None = None
) -> tuple[Template | None, list[str]]:
    """A template ready to fork posts, or None where there can be none (then posts start their own
    interpreter); and what the build should be told (a module that failed to preload). `extra`: site.yml's
    `exec: env`, as the posts get it."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open") or not hasattr(socket, "send_fds"):
        return None, []
    _sweep(tempfile.gettempdir())
    folder = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")
    for name in _FILES:  # a private copy: the posts' processes are not told where site_builder is
        shutil.copyfile(_HERE / name, os.path.join(folder, name))
    env = child_env(folder, site_root, extra or {})
    for name in ONE_THREAD if preload else ():
        env.setdefault(name, "1")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        with open(os.path.join(folder, ".template.log"), "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "forkserver.py", str(theirs.fileno()), json.dumps(preload)],
                cwd=folder,
                env=env,
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches the build, which stops it
                preexec_fn=_die_with_parent,
            )
    except OSError:
        ours.close()
        shutil.rmtree(folder, ignore_errors=True)
        return None, []
    finally:
        theirs.close()
    template = Template(proc, ours, folder)
    ours.settimeout(READY_WAIT)
    try:
        state, failed = json.loads(ours.recv(1 << 20) or b'["gone", []]')
    except (OSError, ValueError):
        state, failed = "gone", []
    except BaseException:  # interrupted while it imports
        template.close()
        raise
    ours.settimeout(None)
    notes = [f"exec: preload: {line}" for line in failed]
    if state == "ready":
        return template, notes
    template.close()
    if state == "threads":
        notes.append(
            "exec: preload: a preloaded module started threads, so posts were not forked from a template process "
            "(each started its own interpreter)"
        )
    return None, notes
