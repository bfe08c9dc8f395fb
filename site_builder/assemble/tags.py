"""Tags written in several ways ('homeBrew', 'homebrew', 'Atmospheric  science') are one tag with one page."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from site_builder.errors import SiteWarning
from site_builder.load import slugify
from site_builder.models import Post


@dataclass
class TagSpellings:
    """Each spelling of a tag -> the one its page shows (the most common), and a warning per post that differs."""

    shown: dict[str, str] = field(default_factory=dict)
    warnings: list[SiteWarning] = field(default_factory=list)


def tag_spellings(posts: list[Post]) -> TagSpellings:
    """Group tags by their URL (case, spacing and punctuation aside); a group of several spellings is shown under
    its most common one, and every post using another spelling gets a warning naming the spellings and the files."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for post in posts:
        for tag in post.tags:
            counts[slugify(tag)][tag] += 1
    result = TagSpellings()
    for spellings in counts.values():
        best = max(spellings, key=lambda s: (spellings[s], s == " ".join(s.split()), s))  # ties: tidy spacing
        result.shown.update(dict.fromkeys(spellings, best))
        if len(spellings) == 1:
            continue
        users = sorted(p.rel for p in posts if best in p.tags)
        named = users[:3] + ([f"{len(users) - 3} more"] if len(users) > 3 else [])
        where = " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
        for post in posts:
            for odd in dict.fromkeys(t for t in post.tags if t != best and t in spellings):
                message = f"tag {odd!r} is written {best!r} in {where}"
                result.warnings.append(SiteWarning(message, post.rel, post.lines.get("tags"), f"listed as {best!r}"))
    return result
