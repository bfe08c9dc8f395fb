"""A post's front matter, read once: its keys, the line of each, and warnings for keys nobody reads."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any

import yaml

from site_builder.config.schema import FRONT_MATTER_KEYS, unknown_keys
from site_builder.config.yamlfile import key_lines, safe_load, yaml_error_line
from site_builder.errors import SiteError, SiteWarning

_FENCE = "---"
_TOML_FENCE = "+++"
_TOML_KEY = re.compile(r"\s*([A-Za-z0-9_-]+|\"[^\"]*\")\s*=")
_TOML_TABLE = re.compile(r"\s*\[+\s*([^\]]+?)\s*\]+")


@dataclass
class FrontMatter:
    """The YAML between the `---` lines, the Markdown after them, and where each key is."""

    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line of the body's first line in the file
    lines: dict[str, int] = field(default_factory=dict)  # key (nested: `exec.timeout`) -> its line in the file
    warnings: list[SiteWarning] = field(default_factory=list)

    def line(self, key: str | None, default: int | None = None) -> int | None:
        """The line of `key` (or of its parent, `exec` for `exec.timeout`), else `default`."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition(".")[0]
        return default


def read_front_matter(text: str, rel: str) -> FrontMatter:
    """Split `---` YAML front matter (or Hugo's `+++` TOML) from the body; a missing fence or bad YAML is an error
    at its line."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[0].rstrip() == _TOML_FENCE:
        return _toml_front_matter(lines, rel)
    if not lines or lines[0].rstrip() != _FENCE:
        raise SiteError("missing front matter (the file must start with a '---' line)", rel, 1)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in (_FENCE, "..."):
            break
    else:
        raise SiteError("front matter is not closed by a '---' line", rel, 1)
    raw = "\n".join(lines[1:i])
    try:
        meta = safe_load(raw) or {}
    except yaml.YAMLError as exc:
        line = yaml_error_line(exc, raw)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SiteError(f"invalid YAML front matter: {problem}", rel, line + 1 if line else 1) from None
    if not isinstance(meta, dict):
        raise SiteError("front matter must be a mapping of keys to values", rel, 2)
    where = key_lines(raw, 2)
    return FrontMatter(meta, "\n".join(lines[i + 1 :]), i + 2, where, unknown_keys(meta, FRONT_MATTER_KEYS, rel, where))


def split_front_matter(text: str, rel: str) -> tuple[dict[str, Any], str, int]:
    """(meta, body, body_line) of a post's text, for callers that need no lines."""
    front = read_front_matter(text, rel)
    return front.meta, front.body, front.body_line


def _toml_front_matter(lines: list[str], rel: str) -> FrontMatter:
    """Hugo's `+++` front matter, read as TOML (its dates are dates); bad TOML is an error at its line."""
    if sys.version_info >= (3, 11):  # loaded for a site with TOML front matter only
        import tomllib
    else:  # the same library, before it was in the standard library
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _TOML_FENCE), None)
    if end is None:
        raise SiteError("front matter is not closed by a '+++' line", rel, 1)
    raw = "\n".join(lines[1:end])
    try:
        meta = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        reason = re.sub(r"\s*\(at line.*", "", str(exc))
        raise SiteError(f"invalid TOML front matter: {reason}", rel, int(found[1]) + 1 if found else 1) from None
    where = _toml_key_lines(raw)
    return FrontMatter(
        meta, "\n".join(lines[end + 1 :]), end + 2, where, unknown_keys(meta, FRONT_MATTER_KEYS, rel, where)
    )


def _toml_key_lines(raw: str) -> dict[str, int]:
    """The line of each key of TOML front matter, a table's keys as `table.key` (`[cover]` then `image =`)."""
    where: dict[str, int] = {}
    table = ""
    for n, line in enumerate(raw.split("\n"), 2):
        if m := _TOML_TABLE.match(line):
            table = m[1].strip().strip('"') + "."
            where.setdefault(table[:-1], n)
        elif m := _TOML_KEY.match(line):
            where.setdefault(table + m[1].strip('"'), n)
    return where
