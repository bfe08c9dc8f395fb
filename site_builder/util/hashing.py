"""The one hashing helper: a stable key for any sequence of strings or bytes (cache keys, digests)."""

from __future__ import annotations

import hashlib


def content_key(*parts: str | bytes) -> str:
    """SHA-1 hex digest of `parts`, each followed by a NUL byte (so ("ab", "c") and ("a", "bc") differ)."""
    if parts:
        try:  # all text (most keys): the same bytes, joined first, hashed in one call
            return hashlib.sha1(("\0".join(parts) + "\0").encode("utf-8", "surrogatepass")).hexdigest()  # type: ignore[arg-type]
        except TypeError:  # bytes among them
            pass
    h = hashlib.sha1()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def bytes_digest(data: bytes) -> str:
    """SHA-1 hex digest of raw bytes (a file's contents), as `hashlib.sha1(data).hexdigest()`."""
    return hashlib.sha1(data).hexdigest()
