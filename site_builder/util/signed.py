"""Pickles that only this user's site-builder can have written: an HMAC whose key lives outside every site tree.

A site's `.cache/` travels with the site (a shared folder, an archive, a careless commit), and unpickling runs
whatever code the file names. So the cache is loaded only when its HMAC-SHA256, under a random key kept in the
user's own cache folder (`$XDG_CACHE_HOME/site-builder/cache.key`, mode 0600), matches: a file someone else made,
or one that was cut short or damaged, is discarded before a single byte of it is unpickled.

Run as root, the key is sealed: owned by another user (nobody) with mode 000, so that only a process holding
CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH (the build) can read it; post code, which drops every capability, cannot,
and cannot make a sealed one either (it cannot chown). A key found unsealed (an older site-builder's, or one such
code planted) is not trusted: a new one replaces it, and the caches it signed are built again.
"""

from __future__ import annotations

import hmac
import io
import os
import pickle
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from site_builder.util.files import atomic_file

MAGIC = b"site-builder signed cache 4\n"
_DIGEST = 32  # bytes of HMAC-SHA256
_HEAD = len(MAGIC) + 2 * _DIGEST + 8


class Outdated(Exception):
    """A signed cache in another version's layout: nothing wrong, only of no use."""


class Unsigned(Exception):
    """A cache file that cannot be trusted or read; its message says why, in a few words."""


def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "site-builder" / "cache.key"


@dataclass
class Later:
    """The second part of a signed file (bytes, never unpickled), read and checked only when asked for (`load`).

    It is checked against its MAC, which the first part's MAC covers, so a part from another file or a damaged one
    is refused (Unsigned). The file stays open, so a build that replaced it since is no harm."""

    fh: BinaryIO
    offset: int
    length: int
    mac: bytes
    key: bytes

    def load(self) -> bytes:
        try:
            self.fh.seek(self.offset)
            data = self.fh.read(self.length)
        finally:
            self.fh.close()
        if len(data) != self.length or not hmac.compare_digest(self.mac, hmac.digest(self.key, data, "sha256")):
            raise Unsigned("its second part does not match its signature (damaged)")
        return data


@dataclass
class Signer:
    """Signs and checks cache files with this user's key."""

    key: bytes

    @classmethod
    def for_user(cls) -> Signer:
        """The user's key, made on first use. OSError when it can be neither read nor made (no home folder)."""
        path = key_path()
        if os.geteuid() == 0:
            sealed = _sealed_key(path)
            if sealed is not None:
                return cls(sealed)
        try:
            key = path.read_bytes()
            if len(key) >= 32:
                return cls(key)
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = os.urandom(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # two builds at once: one key wins
        try:
            os.write(fd, key)
        finally:
            os.close(fd)
        return cls(key)

    def sign(self, body: bytes) -> bytes:
        """`body` behind its MAC, for a small file of bytes that is not a pickle (`unsign` reads it)."""
        return hmac.digest(self.key, body, "sha256") + body

    def unsign(self, data: bytes) -> bytes | None:
        """The body of what `sign` made, or None when this key did not sign it (made elsewhere, or damaged)."""
        mac, body = data[:_DIGEST], data[_DIGEST:]
        ok = len(data) > _DIGEST and hmac.compare_digest(mac, hmac.digest(self.key, body, "sha256"))
        return body if ok else None

    def dump(
        self,
        path: Path,
        value: object | Callable[[], object],
        later: Iterable[bytes] = (),
        then: Callable[[], object] | None = None,
        owner: int | None = None,
    ) -> None:
        """The bytes of `later`, then `value` pickled (and `then()`'s value after it), into `path`, each through an
        HMAC (both streamed: no copy of either in memory), written beside it and renamed over it. A callable `value`
        is called once `later` is written (so it can hold what writing `later` found out, such as its pieces'
        sizes); `then` once `value` is written (it may wait for what is known only later: `build.cachesave`).
        `owner`: the process whose temporary file it is (`atomic_file`).

        Layout: MAGIC, the MAC of the first part (which covers the second part's MAC and length), the second
        part's MAC, its length, the second part (`later`), the first (`value`, then `then()`'s: two pickles)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path, owner) as fh:
            fh.write(MAGIC + bytes(_HEAD - len(MAGIC)))  # MACs and length filled in once the pickles are written
            second = _SigningWriter(fh, hmac.new(self.key, digestmod="sha256"))
            for piece in later:
                second.write(piece)
            tail = second.mac.digest() + second.length.to_bytes(8, "big")
            first = _SigningWriter(fh, hmac.new(self.key, tail, digestmod="sha256"))
            pickle.dump(value() if callable(value) else value, first, protocol=pickle.HIGHEST_PROTOCOL)
            if then is not None:
                pickle.dump(then(), first, protocol=pickle.HIGHEST_PROTOCOL)
            fh.seek(len(MAGIC))
            fh.write(first.mac.digest() + tail)

    def load(self, path: Path) -> tuple[list[object], Later]:
        """The first part of `path` (the values pickled in it, in order) and a handle on its second;
        FileNotFoundError when there is none, Unsigned when it must not be trusted."""
        fh = open(path, "rb")  # noqa: SIM115 (kept open for the second part)
        try:
            head = fh.read(_HEAD)
            if head[: len(MAGIC)] != MAGIC and head.startswith(MAGIC[: MAGIC.rindex(b" ")]):
                raise Outdated("written by another version of site-builder")
            if len(head) < _HEAD or head[: len(MAGIC)] != MAGIC:
                raise Unsigned("not a signed site-builder cache")
            mac, tail = head[len(MAGIC) : len(MAGIC) + _DIGEST], head[len(MAGIC) + _DIGEST :]
            length = int.from_bytes(tail[_DIGEST:], "big")
            fh.seek(_HEAD + length)
            data = fh.read()
            if not hmac.compare_digest(mac, hmac.digest(self.key, tail + data, "sha256")):
                raise Unsigned("its signature does not match this user's key (made elsewhere, or damaged)")
            return _unpickle(data), Later(fh, _HEAD, length, tail[:_DIGEST], self.key)
        except BaseException:
            fh.close()
            raise


def _unpickle(data: bytes) -> list[object]:
    stream = io.BytesIO(data)
    try:
        values = [pickle.load(stream)]
        while stream.tell() < len(data):
            values.append(pickle.load(stream))
        return values
    except Exception as exc:  # signed by us, yet unreadable: another version's classes
        raise Unsigned(f"unreadable ({type(exc).__name__})") from None


@dataclass
class _SigningWriter:
    """A file that feeds the HMAC every byte pickle writes to it."""

    fh: BinaryIO
    mac: hmac.HMAC
    length: int = 0

    def write(self, data: bytes) -> int:
        self.mac.update(data)
        self.length += len(data)
        return self.fh.write(data)


SEAL_OWNER = 65534  # nobody: any user but root would do, as the mode leaves no one a right to read


def _sealed_key(path: Path) -> bytes | None:
    """The sealed key at `path`, made (and any unsealed one replaced) when there is none; None where this file
    system will not let root give a file away (then the key is kept as any user's is, and left as it is)."""
    for _ in range(3):  # another build may make or replace it at the same time: its key wins
        found = _read_sealed(path)
        if found is not None:
            return found
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key, fresh = os.urandom(32), path.with_name(f".cache.key.{os.getpid()}")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0)
        try:
            os.write(fd, key)
            os.fchown(fd, SEAL_OWNER, -1)
        except OSError:
            os.close(fd)
            fresh.unlink(missing_ok=True)
            return None
        os.close(fd)
        try:
            if _read_sealed(path) is None:
                path.unlink(missing_ok=True)  # unsealed: not trusted
            os.link(fresh, path)
            return key
        except FileExistsError:
            continue
        finally:
            fresh.unlink(missing_ok=True)
    return None


def _read_sealed(path: Path) -> bytes | None:
    """The key at `path` if it is sealed (a regular file of nobody's, mode 000, 32 bytes or more)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st, key = os.fstat(fh.fileno()), fh.read()
    sealed = stat.S_ISREG(st.st_mode) and st.st_uid == SEAL_OWNER and stat.S_IMODE(st.st_mode) == 0
    return key if sealed and len(key) >= 32 else None
