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

from site_builder.util.files import atomic_write

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
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        mac = hmac.digest(self.key, data, "sha256")
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, b"".join((MAGIC, mac, data)))

    def load(self, path: Path) -> object:
        """The value in `path`; FileNotFoundError when there is none, Unsigned when it must not be trusted."""
        blob = path.read_bytes()
        if not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + _DIGEST:
            raise Unsigned("not a signed site-builder cache")
        mac, data = blob[len(MAGIC) : len(MAGIC) + _DIGEST], blob[len(MAGIC) + _DIGEST :]
        if not hmac.compare_digest(mac, hmac.digest(self.key, data, "sha256")):
            raise Unsigned("its signature does not match this user's key (made elsewhere, or damaged)")
        try:
            return pickle.loads(data)
        except Exception as exc:  # signed by us, yet unreadable: another version's classes
            raise Unsigned(f"unreadable ({type(exc).__name__})") from None
