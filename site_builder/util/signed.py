"""Pickles that only this user's site-builder can have written: an HMAC whose key lives outside every site tree.

A site's `.cache/` travels with the site (a shared folder, an archive, a careless commit), and unpickling runs
whatever code the file names. So the cache is loaded only when its HMAC-SHA256, under a random key kept in the
user's own cache folder (`$XDG_CACHE_HOME/site-builder/cache.key`, mode 0600), matches: a file someone else made,
or one that was cut short or damaged, is discarded before a single byte of it is unpickled.
"""

from __future__ import annotations

import hmac
import os
import pickle
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from site_builder.util.files import atomic_file

MAGIC = b"site-builder signed cache 1\n"
_DIGEST = 32  # bytes of HMAC-SHA256


class Unsigned(Exception):
    """A cache file that cannot be trusted or read; its message says why, in a few words."""


def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "site-builder" / "cache.key"


@dataclass
class Signer:
    """Signs and checks cache files with this user's key."""

    key: bytes

    @classmethod
    def for_user(cls) -> Signer:
        """The user's key, made on first use. OSError when it can be neither read nor made (no home folder)."""
        path = key_path()
        try:
            key = path.read_bytes()
            if len(key) >= 32:
                return cls(key)
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = secrets.token_bytes(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # two builds at once: one key wins
        try:
            os.write(fd, key)
        finally:
            os.close(fd)
        return cls(key)

    def dump(self, path: Path, value: object) -> None:
        """Pickle `value` into `path`, streamed through the HMAC (no copy of the pickle in memory), written beside
        it and renamed over it."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as fh:
            fh.write(MAGIC + bytes(_DIGEST))  # the MAC's place, filled in once the pickle is written
            signing = _SigningWriter(fh, hmac.new(self.key, digestmod="sha256"))
            pickle.dump(value, signing, protocol=pickle.HIGHEST_PROTOCOL)
            fh.seek(len(MAGIC))
            fh.write(signing.mac.digest())

    def load(self, path: Path) -> object:
        """The value in `path`; FileNotFoundError when there is none, Unsigned when it must not be trusted."""
        with open(path, "rb") as fh:
            blob = memoryview(fh.read())
        head = len(MAGIC) + _DIGEST
        if blob[: len(MAGIC)] != MAGIC or len(blob) < head:
            raise Unsigned("not a signed site-builder cache")
        data = blob[head:]
        if not hmac.compare_digest(blob[len(MAGIC) : head], hmac.digest(self.key, data, "sha256")):
            raise Unsigned("its signature does not match this user's key (made elsewhere, or damaged)")
        try:
            return pickle.loads(data)
        except Exception as exc:  # signed by us, yet unreadable: another version's classes
            raise Unsigned(f"unreadable ({type(exc).__name__})") from None


@dataclass
class _SigningWriter:
    """A file that feeds the HMAC every byte pickle writes to it."""

    fh: BinaryIO
    mac: hmac.HMAC

    def write(self, data: bytes) -> int:
        self.mac.update(data)
        return self.fh.write(data)
