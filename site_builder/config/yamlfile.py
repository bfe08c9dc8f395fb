"""Reading YAML safely (no tags, no pickles: PyYAML's safe loader), with the line of every key for messages."""

from __future__ import annotations

import re
import sys
from typing import Any

import yaml

from site_builder.errors import SiteError

# the C loader when available: ~10x faster
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SafeLoader(_Base):  # type: ignore[valid-type,misc]
    """PyYAML's safe loader, but an impossible date (`2024-13-45`) is a YAML error with a line, not a ValueError."""


def _construct_timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError) as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a valid date ({exc})", node.start_mark
        ) from None


SafeLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def utf8_text(data: bytes, rel: str) -> str:
    """A file's bytes as text; bytes that are not UTF-8 are an error at their line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SiteError(f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x})", rel, line) from None


def yaml_error_line(exc: yaml.YAMLError, text: str) -> int | None:
    """1-based line (within `text`) of a YAML error; an error found only at the end of the text
    (an unclosed `[` or quote) is reported where the unclosed construct started."""
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    if mark is None:
        return context.line + 1 if context is not None else None
    if context is not None and not text[mark.index :].strip():
        return int(context.line) + 1
    return int(mark.line) + 1


_KEY = re.compile(r"^( *)(?:- +)?(['\"]?)([^\s'\":#][^'\":#]*?)\2\s*:(?:\s|$)")


def key_lines(text: str, first_line: int = 1) -> dict[str, int]:
    """The line of each key of a block-style YAML mapping, nested keys as `parent.key` (`exec.timeout`,
    `languages.zh.prefix`): read once, so every message about a key can name its line. `first_line` is the
    line of `text`'s first line in its file. Flow mappings (`{a: 1}`) give their parent's line."""
    lines: dict[str, int] = {}
    stack: list[tuple[int, str]] = []  # (indent, dotted key) of the open mappings
    for n, line in enumerate(text.split("\n"), first_line):
        m = _KEY.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = sys.intern((stack[-1][1] + "." if stack else "") + m.group(3).strip())  # shared by every post
        lines.setdefault(key, n)
        stack.append((indent, key))
    return lines
