"""A post's `author` as readers see it (the feed's `<author>`, the page's JSON-LD): a name; a list of them (Quarto's,
Hugo's `authors`) joined by commas; Quarto's `{name: ..., affiliation: ...}` entries by their name."""

from __future__ import annotations

from typing import Any


def author_names(value: Any) -> str:
    """The names in a front matter `author` value ("" when it holds none)."""
    items = [value] if isinstance(value, (str, dict)) else value if isinstance(value, list) else []
    names = [item if isinstance(item, str) else item.get("name") if isinstance(item, dict) else "" for item in items]
    return ", ".join(" ".join(name.split()) for name in names if isinstance(name, str) and name.strip())
