"""The template process: a child script (it imports nothing of site_builder) that imports the runner and the
site's `exec: preload` modules once, then forks a fresh child per post.

Run as `python forkserver.py FD` by template.py, from a private copy of this folder's runner.py (with runvalues.py),
isolation.py, jail.py and this file, in a session of its own and dying with the build (PR_SET_PDEATHSIG). It stays
single-threaded (a fork of a threaded process may inherit a held lock): it says "threads" instead of "ready" when a
preloaded module started threads. FD is a SOCK_SEQPACKET socket; each message is a request (JSON) carrying one
socket, where the answers go: `pid N` once the child is forked, then `exit STATUS` (os.waitstatus_to_exitcode) when
it ends.

The forked child is made as a fresh interpreter would be, before any code of the post runs: a new session (its
own process group), PR_SET_PDEATHSIG (it dies with this process, which dies with the build), the limits and the
mark (sandbox.py), a network namespace if asked (isolation.py) or strict isolation's namespaces (jail.py), every
capability dropped, stdin closed, output to its log, the post's environment in place of this one, its run
directory as cwd and sys.path[0], random generators seeded anew. This process is not dumpable: a post cannot read
its memory or /proc files."""

from __future__ import annotations

import atexit
import ctypes
import gc
import importlib
import json
import os
import random
import resource
import select
import signal
import socket
import sys
import threading
import traceback
from typing import Any

import isolation  # type: ignore[import-not-found]  # the copy next to this file
import jail  # type: ignore[import-not-found]
import runner  # type: ignore[import-not-found]

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _preload(names: list[str]) -> list[str]:
    """Import the modules; the lines of those that failed (a post importing one sees the error itself)."""
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # a module may raise anything, SystemExit included
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    return failed


def _child(request: dict[str, Any], inherited: list[int], template: int) -> None:
    """In the forked child: isolate it, then run the post's blocks; never returns."""
    code = 1
    try:
        os.setsid()
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != template:  # the template died already
                os._exit(1)
            # dumpable again (this process holds nothing of the build's): a user who is not root can only write its
            # own /proc/self/uid_map (network: false, strict) when its /proc files are its own
            _PRCTL(_PR_SET_DUMPABLE, 1, 0, 0, 0)
        null = os.open(os.devnull, os.O_RDONLY)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)  # from here on, what goes wrong is in the post's log
        for fd in (*inherited, null, log):  # the template's sockets and pidfds (a preloaded module's files stay)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the template ignores it; SIGPIPE stays ignored
        memory, mark = request["memory"], request["mark"]
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (request["fsize"], request["fsize"]))
        if request["mark_limit"] is not None:
            resource.setrlimit(request["mark_limit"], (mark, mark))
        if request["jail"] is not None:  # strict: from here on, pid 2 of a PID namespace, in a root of its own
            jail.enter(**request["jail"])
        elif request["netns"] is not None:
            isolation.enter_netns(request["netns"])
        isolation.drop_privileges()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = os.getcwd()
        random.seed()
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed()
        code = runner.main(".job.json")
        threading._shutdown()  # type: ignore[attr-defined]  # as an interpreter's exit: wait for its threads
        atexit._run_exitfuncs()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _fork(ctl: socket.socket, children: dict[int, tuple[int, socket.socket]]) -> bool:
    """Take one request and fork its child; False when the build closed the socket."""
    try:
        data, fds, _, _ = socket.recv_fds(ctl, 1 << 20, 1)
    except OSError:
        return False
    if not data or not fds:
        return False
    answer = socket.socket(fileno=fds[0])
    request = json.loads(data)
    inherited = [ctl.fileno(), answer.fileno(), *(fd for fd, _ in children.values())]
    inherited += [other.fileno() for _, other in children.values()]
    template = os.getpid()
    pid = os.fork()
    if pid == 0:
        _child(request, inherited, template)
    children[pid] = (os.pidfd_open(pid), answer)
    try:
        answer.send(f"pid {pid}".encode())
    except OSError:  # the build's side is gone: the child runs on, and is reaped when it ends
        pass
    return True


def _reap(pid: int, children: dict[int, tuple[int, socket.socket]]) -> None:
    pidfd, answer = children.pop(pid)
    _, status = os.waitpid(pid, 0)
    try:
        answer.send(f"exit {os.waitstatus_to_exitcode(status)}".encode())
    except OSError:
        pass
    answer.close()
    os.close(pidfd)


def serve(ctl: socket.socket) -> None:
    children: dict[int, tuple[int, socket.socket]] = {}
    while True:
        by_fd = {fd: pid for pid, (fd, _) in children.items()}
        ready, _, _ = select.select([ctl.fileno(), *by_fd], [], [])
        for fd in ready:
            if fd in by_fd:
                _reap(by_fd[fd], children)
        if ctl.fileno() in ready and not _fork(ctl, children):
            return


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))
    if _PRCTL is not None:  # a post (no CAP_SYS_PTRACE) cannot read this process's memory or /proc files
        _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    isolation.prepare()  # libc found once here, not in every child
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build stops it (and its children die with it)
    failed = _preload(json.loads(sys.argv[2]))
    gc.collect()
    gc.freeze()  # what is here now stays out of the children's collections: they copy fewer pages on write
    state = "ready" if _threads() == 1 else "threads"
    ctl.send(json.dumps([state, failed]).encode())
    if state == "ready":
        serve(ctl)


if __name__ == "__main__":
    sys.path[0] = os.getcwd()  # as the runner: the import path starts at the working directory
    main()
