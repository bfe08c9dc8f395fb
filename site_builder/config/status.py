"""Whether a post is a draft or hidden, from our keys and from the ones other generators give that meaning to:
Jekyll's `published: false`, Pelican's and WordPress's `status` (`draft`; WordPress's `pending`, `private`,
`trash`, `auto-draft`; `hidden`). A `status` nobody knows is a warning at its line, and the post is built. And
whether its code runs: `execute: true`, or Quarto's `execute:` options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_builder.config.frontmatter import FrontMatter
from site_builder.errors import SiteWarning

DRAFT_STATUSES = ("draft", "pending", "private", "trash", "auto-draft")  # not built
PUBLISHED_STATUSES = ("published", "publish", "future", "inherit")  # built (a `future` post: at its date, as any)


@dataclass(frozen=True)
class Visibility:
    draft: bool  # not built, not in feeds
    hidden: bool  # built at its address, left out of lists, tags and feeds


def visibility(front: FrontMatter, rel: str) -> Visibility:
    """The post's `draft` and `hidden`, from `draft`, `published`, `hidden` and `status`."""
    meta = front.meta
    draft = bool(meta.get("draft")) or meta.get("published") is False
    hidden = meta.get("hidden") is True
    status = meta.get("status")
    word = str(status).strip().lower() if isinstance(status, str) else ""
    if word in DRAFT_STATUSES:
        draft = True
    elif word == "hidden":
        hidden = True
    elif status is not None and word not in PUBLISHED_STATUSES:
        known = ", ".join((*DRAFT_STATUSES, "hidden", *PUBLISHED_STATUSES))
        message = f"status {status!r} is none of {known}"
        front.warnings.append(SiteWarning(message, rel, front.line("status"), consequence="built as published"))
    return Visibility(draft, hidden)


def executes(value: Any) -> bool:
    """`execute: true`, or Quarto's `execute:` options (`{echo: false}`: its cells' defaults, quarto_cells.py),
    unless they say `enabled: false`."""
    if isinstance(value, dict):
        return value.get("enabled", True) is not False
    return value is True
