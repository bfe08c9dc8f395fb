"""A source file's front matter and body, for every reader: YAML between `---` lines, read with `yaml.safe_load`
(no tags: a `!!python/...` tag is an error, never an object), or none. TOML `+++` front matter (Hugo) is read
by its reader; `split` tells which kind a file has."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone, tzinfo
from typing import Any

import yaml

from site_builder.config.authors import author_names

_YAML = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_TOML = re.compile(r"\A\+\+\+[ \t]*\r?\n(.*?\r?\n)?\+\+\+[ \t]*(?:\r?\n|\Z)", re.S)


@dataclass
class Front:
    """`meta` (the front matter, {} without one), `body`, the body's first line, the kind and any error."""

    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    body_line: int = 1
    kind: str = ""  # "yaml", "toml" (not parsed here: `raw` holds it) or "" for none
    raw: str = ""
    error: str = ""
    error_line: int | None = None


def split(text: str) -> Front:
    text = text.lstrip("\ufeff")
    for kind, pattern in (("yaml", _YAML), ("toml", _TOML)):
        m = pattern.match(text)
        if m:
            raw = m.group(1) or ""
            front = Front(body=text[m.end() :], body_line=text.count("\n", 0, m.end()) + 1, kind=kind, raw=raw)
            return _parsed(front) if kind == "yaml" else front
    return Front(body=text)


def _parsed(front: Front) -> Front:
    try:
        data = yaml.safe_load(front.raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        front.error = f"cannot read the front matter: {getattr(exc, 'problem', None) or exc}"
        front.error_line = mark.line + 2 if mark is not None else 1
        return front
    if data is None:
        data = {}
    if not isinstance(data, dict):
        front.error, front.error_line = "the front matter is not a mapping of keys to values", 2
        return front
    front.meta = {str(k): v for k, v in data.items()}
    return front


_DATE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$"
)


def parse_date(value: Any, zone: tzinfo | None = None) -> datetime | None:
    """A front matter date (YAML's date or datetime, or text such as `2024-10-14 22:54:57 +0800`) as an aware
    datetime; a date without a zone is in `zone` (the site's), else UTC. None when it is not a date."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        m = _DATE.match(value.strip())
        if m is None:
            return None
        y, mo, d, h, mi, s, z = m.groups()
        try:
            dt = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
        except ValueError:
            return None
        if z:
            dt = datetime.fromisoformat(dt.isoformat() + ("+00:00" if z == "Z" else z[:3] + ":" + z[-2:]))
    else:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=zone or timezone.utc)
    return dt


def author_of(meta: dict[str, Any]) -> str:
    """A post's author as one line: `author` (a name, a list of names, a mapping with a `name`), else `authors`
    (Hugo's and Pelican's list; Pelican's `a, b`); "" for none."""
    for key in ("author", "authors"):
        line = author_names(meta.get(key))
        if line:
            return line
    return ""
