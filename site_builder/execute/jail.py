"""`exec: {isolation: strict}`: a post's process in user, mount, PID (and, without network, network) namespaces of
its own, seeing its run directory (read-write), the Python installation and packages, and the few system files a
program needs (read-only); not the site, the user's home, ~/.cache/site-builder, other processes, or Unix sockets
outside its directory.

A copy of this file is imported by the template process (forkserver.py): it imports nothing of site_builder. Run
as a script (`python jail.py DIR`), it enters a jail on DIR and exits 0: the build's probe of whether the kernel
allows it at all (an error line on stderr says why not)."""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import platform
import resource
import signal
import socket
import struct
import sys
from typing import Any

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 0x400, 0x800, 0x200000
_MNT_DETACH = 2
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
# statvfs flags of a mount that a bind mount in a user namespace must keep (the kernel locks them)
_KEPT = ((os.ST_NOSUID, _MS_NOSUID), (os.ST_NODEV, _MS_NODEV), (os.ST_NOEXEC, _MS_NOEXEC), (os.ST_RDONLY, _MS_RDONLY))
_KEPT_TIME = ((os.ST_NOATIME, _MS_NOATIME), (os.ST_NODIRATIME, _MS_NODIRATIME), (os.ST_RELATIME, _MS_RELATIME))
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "fonts",
    "gai.conf",
    "group",
    "host.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "passwd",
    "pki",
    "protocols",
    "resolv.conf",
    "services",
    "ssl",
)
TMP_SIZE = 256 << 20  # bytes of the jail's /tmp (a tmpfs: memory); TMPDIR, in the run directory, is the place
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


class JailError(OSError):
    """A step of the jail the kernel refused; its message names the step."""


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise JailError(errno, f"{what}: {os.strerror(errno)}")


@functools.lru_cache(maxsize=16)
def visible_paths(pythonpath: str = "", hidden: tuple[str, ...] = ()) -> list[str]:
    """What a jailed post sees read-only: the system's programs and libraries, the Python installation (the
    interpreter's prefixes, their site-packages, and the PYTHONPATH entries the post is given). Nothing at or
    above a `hidden` folder (the site, the run directory), nor in it but the Python installation (a virtualenv in
    the site), nor a folder of sys.path that is not packages (the build's working directory)."""
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable)}
    python |= {os.path.realpath(p) for p in python}
    python |= {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
    paths = [*SYSTEM, *(os.path.join("/etc", name) for name in ETC), *python, *pythonpath.split(os.pathsep)]
    shown = {os.path.normpath(p) for p in paths if p and os.path.isabs(p) and os.path.lexists(p)}
    far = [os.path.realpath(h) for h in hidden]
    python = {os.path.normpath(p) for p in python}
    return sorted(
        p
        for p in shown
        if p != "/"
        and not any(_inside(h, os.path.realpath(p)) for h in far)
        and (p in python or not any(_inside(os.path.realpath(p), h) for h in far))
    )


def _inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or in it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def enter(work: str, paths: list[str], network: bool) -> None:
    """Called in a post's process (forked from the template, or between fork and exec) before its code runs. Three
    processes: the caller makes the namespaces and forks the namespace's first process, which sets up the root
    (mounts, its /proc), makes itself not dumpable, and forks the post's process, then reaps the namespace's
    orphans until that one ends; each waiting process ends as the post's did (never returns). The post's process
    returns, in its root and run directory, to have its capabilities dropped (drop_privileges) and run the post: it
    is pid 2, so that signals it sends itself work as anywhere (pid 1 ignores them). Raises JailError where a step
    is refused."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | (0 if network else CLONE_NEWNET)
    _check(_libc().unshare(flags), "unshare(user, mount, PID namespaces)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)
    told, tell = os.pipe()  # the first process passes on how the post's process ended (it cannot die of a signal)
    first = os.fork()
    if first != 0:
        os.close(tell)
        _wait_and_leave(first, told, inside=False)
    os.close(told)
    _check(_libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    _build_root(work, paths)
    if not network:
        _loopback_up()
    _check(_libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "PR_SET_DUMPABLE")  # the post cannot ptrace it
    post = os.fork()
    if post != 0:
        _wait_and_leave(post, tell, inside=True)
    os.close(tell)
    _check(_libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    _check(_libc().prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "PR_SET_DUMPABLE")  # its /proc is its own
    os.chdir(work)


def _wait_and_leave(pid: int, pipe: int, inside: bool) -> None:
    """Wait for `pid` (reaping any other child meanwhile), then end as it ended. Outside the PID namespace, `pipe`
    is read for the status the namespace's first process passed on; inside, the status is written to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.closerange(3, pipe)  # a pipe the build waits on to close (subprocess's exec check) is closed here
    os.closerange(pipe + 1, 1 << 16)
    while True:
        done, status = os.wait()
        if done == pid:
            break
    if inside:  # the namespace's first process: pass it on
        os.write(pipe, str(status).encode())
        os._exit(0)
    passed = os.read(pipe, 32)
    status = int(passed) if passed else status
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the post's crash, not this process's: no core file
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if v is None else v.encode() for v in (source, target, fstype, data)]
    _check(_libc().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def _bind(source: str, target: str, read_only: bool, recursive: bool = True) -> None:
    """Bind `source` at `target`, then remount it read-only (or not), keeping the flags the kernel locks."""
    _mount(source, target, None, _MS_BIND | (_MS_REC if recursive else 0))
    have = os.statvfs(source).f_flag
    flags = _MS_BIND | _MS_REMOUNT | _MS_NOSUID | (_MS_RDONLY if read_only else 0)
    flags |= sum(ms for st, ms in (*_KEPT, *_KEPT_TIME) if have & st)
    _mount(None, target, None, flags)


def _place(root: str, path: str) -> str:
    """`path` under `root`, its parent folders made; an empty file or folder where the bind will go."""
    target = root + path
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    elif not os.path.exists(target):
        open(target, "w").close()
    return target


def _build_root(work: str, paths: list[str]) -> None:
    """A tmpfs root holding the visible paths (read-only), the run directory (read-write), a few devices and a
    fresh /proc of this PID namespace; then pivot into it and let the old root go."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing done here reaches the host's mounts
    root = os.path.join(work, ".tmp")  # the tmpfs sits over it in this namespace only; the post sees the real one
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=16m")
    os.makedirs(root + "/tmp")  # the post's own /tmp, in memory, capped
    _mount("tmpfs", root + "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=1777,size={TMP_SIZE}")
    bound: list[str] = []
    for path in sorted(paths, key=len):
        if any(path == b or path.startswith(b + "/") for b in bound):
            continue
        if os.path.islink(path) and os.path.dirname(path) == "/":  # /bin -> usr/bin
            os.symlink(os.readlink(path), root + path)
            continue
        _bind(path, _place(root, path), read_only=True)
        bound.append(path)
    _bind(work, _place(root, work), read_only=False, recursive=False)  # not the tmpfs root over its .tmp
    os.makedirs(root + "/dev")
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            _mount("/dev/" + name, _place(root, "/dev/" + name), None, _MS_BIND)
    os.makedirs(root + "/dev/shm")
    _mount("tmpfs", root + "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=1777,size=64m")
    for name, to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1")):
        os.symlink(to, f"{root}/dev/{name}")
    os.symlink("/proc/self/fd/2", root + "/dev/stderr")
    os.makedirs(root + "/proc")
    _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    os.chdir(root)
    number = _PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise JailError(0, f"pivot_root is not known on {platform.machine()}")
    _check(_libc().syscall(number, b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", _MNT_DETACH), "detach the old root")
    _mount(None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", 0x1 | 0x8 | 0x40))


def main(argv: list[str]) -> int:
    """The probe: jail this process on the folder argv[0]; 0 when every step worked."""
    try:
        enter(argv[0], visible_paths(hidden=(argv[0],)), network=False)
    except OSError as exc:
        print(exc.strerror if isinstance(exc, JailError) else exc, file=sys.stderr)
        return 1
    return 0


def spec(work: str, pythonpath: str, network: bool, site_root: str) -> dict[str, Any]:
    """What the template is sent to jail a post (JSON): enter's arguments."""
    here = os.path.realpath(work)
    paths = [p for p in visible_paths(pythonpath, (site_root,)) if not _inside(here, p) and not _inside(p, here)]
    return {"work": work, "paths": paths, "network": network}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
