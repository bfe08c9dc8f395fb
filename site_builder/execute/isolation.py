"""What a post's process is told and may reach: an environment built from an allow-list (no tokens of the builder,
nothing naming the site), and, with `network: false`, a network namespace of its own (Linux)."""

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
_SIOCSIFFLAGS = 0x8914
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
