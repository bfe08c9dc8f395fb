"""Limits and process groups: a child runs under caps (memory, time, processes, files and bytes in its run
directory), and nothing it starts outlives it.

Every process of a post is found through a mark it inherits and does not set itself: its RLIMIT_LOCKS (a limit
Linux keeps but no longer enforces) is a number drawn for the run. A daemon that leaves the process group
(setsid, double fork) and clears its environment still carries it; only code that lowers that limit on purpose
escapes (full isolation needs namespaces or a container)."""

from __future__ import annotations

import os
import resource
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from site_builder.execute import jail
from site_builder.execute.isolation import drop_privileges, enter_netns, prepare
from site_builder.execute.limits import (
    FILE_SIZE_CAP,
    MARK_LIMIT,
    WATCH_INTERVAL,
    Limits,
    prctl_function,
)

if TYPE_CHECKING:
    from site_builder.execute.template import Template


class Child(Protocol):
    """A started child as _watch sees it: a subprocess.Popen, or a post forked by the template."""

    @property
    def pid(self) -> int: ...

    def wait(self, timeout: float | None = None) -> int: ...


@dataclass
class ChildExit:
    """How a child ended: its exit status (None when it was stopped), whether it was stopped at the timeout, the
    cap it went over when it was stopped for that ("processes", "files", "disk"), and whether processes it started
    were still running after it and had to be stopped."""

    code: int | None
    timed_out: bool
    leftover: bool
    capped: str = ""


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


_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


def _limits(limits: Limits, mark: int) -> Callable[[], None]:
    prctl, parent = prctl_function(), os.getpid()
    prepare()

    def apply() -> None:  # runs in the child between fork and exec
        if prctl is not None:  # the post dies with the process that runs it (a build or Ray worker killed)
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # it died already, before the line above
                os._exit(1)
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
        if MARK_LIMIT is not None:
            resource.setrlimit(MARK_LIMIT, (mark, mark))
        if prctl is not None and (limits.jail is not None or limits.netns is not None) and os.getuid() != 0:
            prctl(_PR_SET_DUMPABLE, 1)  # a user who is not root writes its own uid_map only if its /proc is its own
        if limits.jail is not None:
            jail.enter(**limits.jail)
        elif limits.netns is not None:
            enter_netns(limits.netns)
        drop_privileges()

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


def _marked(pid: str, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/limits", "rb") as fh:
            for line in fh:
                if line.startswith(b"Max file locks"):
                    return line.split()[3] == mark
    except OSError:
        pass
    return False


def boot_ticks() -> int:
    """Now, in the clock ticks since boot /proc gives a process's start in (0 where it cannot be known): a process
    that carries a post's mark started after the post did, so those older are not looked at closer."""
    try:
        return max(0, int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")) - 2)
    except (AttributeError, OSError, ValueError):
        return 0


def post_processes(pgid: int, mark: int, since: int = 0) -> list[int]:
    """The live processes of a post: those of its process group, and those carrying its mark wherever they went
    (setsid, double fork, a cleared environment), of those started at `since` (boot_ticks) or later. Linux only
    (/proc); elsewhere the group alone is seen."""
    needle, pids, me = str(mark).encode(), list[int](), str(os.getpid())
    try:
        entries = os.listdir("/proc")
    except OSError:
        return [pgid] if _group_alive(pgid) else []
    for name in entries:
        if not name.isdigit() or name == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
            fields = stat[stat.rindex(b")") + 2 :].split()
        except (OSError, ValueError):
            continue
        if fields[0] == b"Z":  # dead already
            continue
        if int(fields[2]) == pgid or (int(fields[19]) >= since and _marked(name, needle)):
            pids.append(int(name))
    return pids


def run_dir_usage(path: str, max_files: int) -> tuple[int, int]:
    """Files and folders under `path` (counting stops past `max_files`), and the bytes they take on disk."""
    count, size, todo = 0, 0, [path]
    while todo and count <= max_files:
        try:
            with os.scandir(todo.pop()) as entries:
                for entry in entries:
                    count += 1
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            todo.append(entry.path)
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
        except OSError:
            pass
    return count, size


def _over_cap(pgid: int, mark: int, cwd: str, limits: Limits, since: int) -> str:
    """The cap the running child went over ("processes", "files", "disk"), or ""."""
    if len(post_processes(pgid, mark, since)) > limits.processes:
        return "processes"
    files, size = run_dir_usage(cwd, limits.files)
    if files > limits.files:
        return "files"
    return "disk" if size > limits.disk else ""


def _stop_strays(pgid: int, mark: int, since: int) -> bool:
    """Stop what the child left running, in its group or not; whether there was anything."""
    leftover = False
    for _ in range(50):
        strays = post_processes(pgid, mark, since)
        if not strays:
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


def _watch(proc: Child, cwd: str, limits: Limits, mark: int, since: int) -> ChildExit:
    """Wait for the child, looking at its processes and files every WATCH_INTERVAL; stop it at the timeout or
    when it goes over a cap."""
    deadline = time.monotonic() + limits.timeout
    while True:
        left = deadline - time.monotonic()
        try:
            return ChildExit(proc.wait(timeout=max(0.0, min(WATCH_INTERVAL, left))), False, False)
        except subprocess.TimeoutExpired:
            pass
        capped = _over_cap(proc.pid, mark, cwd, limits, since)
        if capped or time.monotonic() >= deadline:
            _kill_group(proc.pid)
            proc.wait()
            return ChildExit(None, not capped, False, capped)


def run_child(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    limits: Limits,
    log_path: str,
    children: Children | None = None,
    template: Template | None = None,
) -> ChildExit:
    """Run `argv` in `cwd`, in a process group of its own, stdin closed, output to `log_path`, under `limits`;
    stop it at the timeout or over a cap, and stop whatever it started. `children` tracks it. With a `template`
    (a running template.py), the child is forked from it instead (it runs the runner on `cwd`'s .job.json)."""
    mark, since = 1_000_000_000 + secrets.randbelow(1 << 30), boot_ticks()
    forked = template.spawn(cwd, env, limits, log_path, mark) if template is not None else None
    if forked is not None:
        return _follow(forked, cwd, limits, (mark, since), children)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_limits(limits, mark),
        )
        return _follow(proc, cwd, limits, (mark, since), children)


def _follow(proc: Child, cwd: str, limits: Limits, marked: tuple[int, int], children: Children | None) -> ChildExit:
    """Watch the started child to its end, then stop what it left. `marked`: its mark, and when it started."""
    mark, since = marked
    if children is not None:
        children.add(proc.pid)
    try:
        child = _watch(proc, cwd, limits, mark, since)
    finally:
        if children is not None:
            children.discard(proc.pid)
    child.leftover = _stop_strays(proc.pid, mark, since)
    return child
