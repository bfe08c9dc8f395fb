"""What a post's process is told and may reach: an environment built from an allow-list (no tokens of the builder,
nothing naming the site), no capability (Linux), and, with `network: false`, a network namespace of its own.

A copy of this file is imported by the template process (forkserver.py), so it imports nothing of site_builder."""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import functools
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

# passed on from the builder's environment when set; LC_* too. Everything else is left out (tokens, keys, PWD).
ENV_ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "PYTHONPATH",  # the Ray executor's workers find the packages through it
    "PYTHONHOME",
    "PYTHONUTF8",
    "PYTHONIOENCODING",
    "MPLCONFIGDIR",
    "LD_LIBRARY_PATH",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "SYSTEMROOT",
)
ENV_PREFIXES = ("LC_",)
_PATH_LISTS = ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH")

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_SECUREBITS = 28
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# root gets no capability back through exec or setuid, and nothing of this can be undone (all the *_LOCKED bits)
_SECUREBITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
_CAP_VERSION_3 = 0x20080522
_SIOCSIFFLAGS = 0x8914
_HELP = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces "
    "above 0; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0), or build where they are allowed "
    "(a VM, or a container whose seccomp profile allows unshare)"
)
_IFF_UP_LOOPBACK_RUNNING = 0x1 | 0x8 | 0x40


def child_env(work: str, site_root: str, extra: dict[str, str]) -> dict[str, str]:
    """The post's environment: the allow-listed variables, HOME, PWD and TMPDIR in its run directory, fixed
    settings for reproducible runs, and `extra` (site.yml's exec: env). PATH, PYTHONPATH and LD_LIBRARY_PATH lose
    their entries in the site or above it (the Ray executor passes `python -m`'s current folder, often the site),
    which would tell where the site is."""
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOWED or k.startswith(ENV_PREFIXES)}
    for name in _PATH_LISTS:
        if name in env:
            env[name] = _kept_entries(env[name], site_root)
    tmp = os.path.join(work, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    env.update(extra)
    env.update(HOME=work, PWD=work, TMPDIR=tmp, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    return env


@functools.lru_cache(maxsize=64)
def _kept_entries(value: str, site_root: str) -> str:
    """A path list without its entries near the site (worked out once per list and site: each post asks)."""
    root, prefix = Path(site_root).resolve(), Path(sys.prefix).resolve()
    return os.pathsep.join(p for p in value.split(os.pathsep) if p and not _near(p, root, prefix))


def _near(entry: str, root: Path, prefix: Path) -> bool:
    """Whether a path is the site's folder, in it, or above it; not the interpreter's own folders (a virtualenv
    in the site), which the post's process knows anyway (sys.executable)."""
    try:
        where = Path(entry).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return (where.is_relative_to(root) and not where.is_relative_to(prefix)) or root.is_relative_to(where)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32))


def drop_privileges() -> None:
    """Called in a post's process before its code runs: every capability gone for good (the bounding and ambient
    sets emptied, securebits locked so that root gets none back through exec, capset to nothing, no new privileges
    through setuid files). Root is then an ordinary user whose uid is 0: it cannot setns back into the host's
    network, read a process that is not dumpable (the build), or pass a file's permissions (CAP_DAC_OVERRIDE)."""
    libc = _libc()
    if libc is None or not sys.platform.startswith("linux"):
        return
    for cap in range(_last_cap() + 1):  # refused (EPERM) without CAP_SETPCAP: a user that has no capability anyway
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0)
    none = (_CapData * 2)()
    if libc.capset(ctypes.byref(_CapHeader(_CAP_VERSION_3, 0)), none) != 0:
        raise OSError(ctypes.get_errno(), "capset failed: the post's capabilities could not be dropped")
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")


def prepare() -> None:
    """Find libc and the capabilities' count before forking: a child would otherwise look for them each time
    (ctypes.util.find_library runs ldconfig)."""
    _libc()
    _last_cap()


@functools.cache
def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 63


def enter_netns(flags: int) -> None:
    """Called in the child between fork and exec: a network namespace of its own (and, for a user that is not
    root, a user namespace mapping it to itself), its loopback up so that local servers of the post still work."""
    uid, gid = os.getuid(), os.getgid()
    libc = _libc()
    if libc is None or libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), "unshare failed")
    if flags & CLONE_NEWUSER:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", _IFF_UP_LOOPBACK_RUNNING))


@functools.cache
def netns_flags() -> int | None:
    """The unshare(2) flags that give a child no network here (root: a network namespace; other users: a user
    namespace too, where the system allows them), or None when nothing works (not Linux, namespaces disabled)."""
    if not sys.platform.startswith("linux") or _libc() is None:
        return None
    for flags in (CLONE_NEWNET, CLONE_NEWUSER | CLONE_NEWNET):
        try:
            subprocess.run(
                [sys.executable, "-c", ""],
                preexec_fn=functools.partial(enter_netns, flags),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=30,
                check=True,
            )
            return flags
        except (subprocess.SubprocessError, OSError):
            continue
    return None


@functools.cache
def strict_refusal() -> str | None:
    """Why strict isolation cannot be had here (the kernel refused a step of it: no user namespaces, a seccomp
    filter), with the fix; None when it works. Tried once per process, on an empty folder."""
    import tempfile

    jail_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jail.py")
    with tempfile.TemporaryDirectory(prefix="site-builder-probe-") as work:
        os.mkdir(os.path.join(work, ".tmp"))
        try:
            proc = subprocess.run(
                [sys.executable, jail_script, work], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"exec: isolation: strict cannot be set up here ({exc})"
    if proc.returncode == 0:
        return None
    why = (proc.stderr.strip().splitlines() or [f"status {proc.returncode}"])[-1]
    return (
        f"exec: isolation: strict cannot be set up here ({why}); it needs Linux user, mount and PID namespaces: {_HELP}"
    )
