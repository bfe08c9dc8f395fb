"""The front matter keys an import left out, named in one closing note (nothing another generator gave meaning to
is dropped without a word).

Each reader keeps a source file's front matter in a `FrontMatter`, which remembers the keys any part of the import
read (`get`, `[]`, `in`): the reader's own keys, and those the rules read later (a Minimal Mistakes `gallery` list,
a Hugo `param`). After the import, the file's own keys that nothing read are those it left out: `unread_note`
counts them over the posts and pages, the old theme's switches apart (`math: true`: every post renders math here),
with the key most like a misspelt one (`discription`: did you mean description?)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from typing import Any

from site_builder.config.schema import FRONT_MATTER_KEYS

# keys an old theme reads to switch on what every post has here (math, diagrams, a table of contents) or to pick
# its template (`layout`): left out as not needed
NOT_NEEDED = frozenset(["math", "mathjax", "katex", "mermaid", "tabs", "toc", "layout", "use_math", "usemath"])
GUESSED = 2  # a key in at most this many files gets a guess: a misspelling is rare, a key in many is the theme's own


class FrontMatter(dict[str, Any]):
    """A source file's front matter (with what the reader merged into it: Jekyll's `defaults`, Pelican's
    `DEFAULT_METADATA`), the keys read from it, and the file's own keys (`own`: those the note may name)."""

    def __init__(self, data: dict[str, Any], own: Iterable[str] | None = None) -> None:
        super().__init__(data)
        self.read: set[str] = set()
        self.own = set(data if own is None else own)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)

    def unread(self) -> set[str]:
        """The file's own keys nothing read (the import's own `_` keys apart)."""
        return {str(k) for k in self.own - self.read if not str(k).startswith("_")}


def unread_note(metas: Iterable[dict[str, Any]]) -> str:
    """One line naming the front matter keys left out, each with how many files had it ("" for none)."""
    left: Counter[str] = Counter()
    read: set[str] = {key.name for key in FRONT_MATTER_KEYS}
    for meta in metas:
        if isinstance(meta, FrontMatter):
            left.update(meta.unread())
            read |= meta.read  # the keys a reader looks for: a misspelt key's guess
    if not left:
        return ""

    def named(keys: list[str]) -> str:
        out: list[str] = []
        for key in keys:
            rare = left[key] <= GUESSED
            close = difflib.get_close_matches(key, sorted(read - {key}), n=1, cutoff=0.8) if rare else []
            guess = f": did you mean {close[0]}?" if close else ""
            files = "" if out else " file" if left[key] == 1 else " files"  # the first says what is counted
            out.append(f"{key} ({left[key]}{files}{guess})")
        return ", ".join(out)

    order = sorted(left, key=lambda k: (-left[k], k))
    other = [k for k in order if k not in NOT_NEEDED]
    needless = [k for k in order if k in NOT_NEEDED]
    parts = [f"no equivalent here: {named(other)}"] if other else []
    if needless:
        parts.append(f"not needed here (every post has it, or it chose the old theme's template): {named(needless)}")
    return "front matter keys left out; " + "; ".join(parts)
