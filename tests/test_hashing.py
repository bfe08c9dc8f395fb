"""util/hashing.content_key: text joined and hashed at once gives the key the part-by-part hash gives, so caches
written before stay valid."""

from __future__ import annotations

import hashlib
import random

from site_builder.util.hashing import content_key


def _part_by_part(*parts: str | bytes) -> str:
    h = hashlib.sha1()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def test_content_key_is_the_part_by_part_hash_for_text_bytes_surrogates_and_nothing() -> None:
    rng = random.Random(7)
    pool = ["", "a", "\0", "中文", "\ud83d", "\ude00", "é", "x" * 100]
    for _ in range(2_000):
        parts: list[str | bytes] = [
            "".join(rng.choice(pool) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 5))
        ]
        if parts and rng.random() < 0.2:
            parts[rng.randrange(len(parts))] = b"raw\xff"
        assert content_key(*parts) == _part_by_part(*parts), parts
    assert content_key() == hashlib.sha1().hexdigest()
    assert content_key("ab", "c") != content_key("a", "bc")
