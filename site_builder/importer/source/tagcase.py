"""One spelling for tags that differ only in case or spacing, across an imported site.

Hugo and Pelican keep `categories` and `tags` apart (a category "Optimization" and a tag "optimization" are two
pages there); here categories join the tags, and the build lists tags that differ only in case under one name,
with a warning at each post. The import writes the spelling the build would show (the most common), so
the posts agree and the build has nothing to warn about. A post listing both spellings keeps one.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from site_builder.importer.source.model import SourceDoc
from site_builder.load import slugify


def unify(docs: list[SourceDoc]) -> None:
    """Each doc's tags in the spelling the build would show them under (assemble/tags.py: grouped by their URL,
    the most common spelling of each group)."""
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in docs:
        for tag in doc.meta.get("tags") or []:
            groups[slugify(tag)][tag] += 1
    best = {
        key: max(spellings, key=lambda s: (spellings[s], s == " ".join(s.split()), s))
        for key, spellings in groups.items()
    }
    for doc in docs:
        tags = doc.meta.get("tags")
        if tags:
            doc.meta["tags"] = list(dict.fromkeys(best[slugify(t)] for t in tags))
