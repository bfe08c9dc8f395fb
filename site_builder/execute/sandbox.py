"""Limits and process groups: a child runs under a memory cap and a timeout, and nothing it starts outlives it."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

RUN_TOKEN_VAR = "SITE_BUILDER_RUN"
FILE_SIZE_CAP = 1 << 30


@dataclass
class ChildExit:
    """How a child ended: its exit status (None when it was stopped at the timeout), and whether processes it
    started were still running after it and had to be stopped."""

    code: int | None
    timed_out: bool
    leftover: bool


class Children:
    """The process groups running now, so that an interrupted build stops them at once instead of waiting."""

    def __init__(self) -> None:
        self._groups: set[int] = set()
        self._lock = threading.Lock()
        self.stopping = False

    def add(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)
        if self.stopping:
            _kill_group(pgid)

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)

    def stop_all(self) -> None:
        with self._lock:
            self.stopping = True
            groups = list(self._groups)
        for pgid in groups:
            _kill_group(pgid)


def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))

    return apply


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tagged_processes(token: str) -> list[int]:
    """Processes whose environment carries this run's token: everything the post's code started, even the ones
    that left its process group (setsid, daemons). Linux only (/proc); elsewhere the group alone is checked."""
    needle, pids = f"{RUN_TOKEN_VAR}={token}".encode(), list[int]()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for name in entries:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/environ", "rb") as fh:
                    if needle in fh.read().split(b"\0"):
                        pids.append(int(name))
            except OSError:
                pass
    return pids


def _stop_strays(pgid: int, token: str) -> bool:
    """Stop what the child left running, in its group or not; whether there was anything."""
    leftover = False
    for _ in range(20):
        strays = _tagged_processes(token)
        if not _group_alive(pgid) and not strays:
            break
        leftover = True
        _kill_group(pgid)
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    return leftover


def run_child(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    memory: int,
    timeout: float,
    log_path: str,
    children: Children | None = None,
) -> ChildExit:
    """Run `argv` in a process group of its own, stdin closed, output to `log_path`, under `memory` bytes of
    address space; stop it after `timeout` seconds, and stop whatever it started. `children` tracks it."""
    token = f"{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
    env = dict(env, **{RUN_TOKEN_VAR: token})
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_limits(memory),
        )
        if children is not None:
            children.add(proc.pid)
        timed_out = False
        code: int | None
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            proc.wait()
            code, timed_out = None, True
        finally:
            if children is not None:
                children.discard(proc.pid)
        leftover = _stop_strays(proc.pid, token)
    return ChildExit(code, timed_out, leftover)
