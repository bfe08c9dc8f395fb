"""Reading YAML safely (no tags, no pickles: PyYAML's safe loader) and within limits (a file's size, its values
with aliases expanded, its depth), with the line of every key for messages."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from site_builder.config.flatyaml import FlatReader, read_flat
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
FLAT = FlatReader(SafeLoader)  # the flat front matter most posts have, read without the parser


MAX_FILE_BYTES = 10 * 2**20  # a post file or site.yml; read no further
MAX_VALUES = 100_000  # values in one YAML document once its aliases (*name) are expanded: a billion laughs stops here
MAX_DEPTH = 100  # lists and mappings inside each other (deeper ones break pickling and recursive code)


def read_limited(path: Path, rel: str, what: str) -> bytes:
    """A file's bytes; one over MAX_FILE_BYTES is an error before it is read (`what`: "a post" names it)."""
    fd = os.open(path, os.O_RDONLY)  # not open(): its buffered file object costs 5x the read of a small post
    try:
        size = os.fstat(fd).st_size
        chunks, total = [], 0
        while size <= MAX_FILE_BYTES and total <= MAX_FILE_BYTES:  # to the end, which may have moved since fstat
            chunk = os.read(fd, max(size + 1 - total, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES or total > MAX_FILE_BYTES:
        mb = max(size, total) / 2**20
        limit = MAX_FILE_BYTES // 2**20
        raise SiteError(f"{what.split()[-1]} is {mb:.1f} MB, more than the {limit} MB {what} may be", rel, 1)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class YamlLimit(yaml.YAMLError):
    """A document past MAX_VALUES or MAX_DEPTH, or one holding itself: a YAML error at the line of its key."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.context_mark = None
        self.problem_mark = None if line is None else yaml.Mark("", 0, line - 1, 0, "", 0)


def safe_load(text: str) -> Any:
    """`text` read by the safe loader; a document past the limits raises YamlLimit (a yaml.YAMLError)."""
    flat = read_flat(text, FLAT)  # most front matter: the same values, without the parser's cost
    if flat is not None:
        return flat
    try:
        data = yaml.load(text, Loader=SafeLoader)
    except RecursionError:
        raise YamlLimit(f"nested more than {MAX_DEPTH} levels deep") from None
    problem = _over_limits(data)
    if problem is not None:
        message, key = problem
        line = key_lines(text).get(str(key)) if key is not None else None
        raise YamlLimit(message, line)
    return data


_CONTAINERS = (list, dict, tuple, set)


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    return list(value)


def _measure(value: Any, sizes: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(values, depth) of `value` with its aliases expanded, each shared list or mapping measured once (`sizes`, by
    id), without recursion; a value inside itself raises ValueError."""
    if not isinstance(value, _CONTAINERS):
        return 1, 0
    open_ids: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, finished = stack.pop()
        key = id(item)
        if finished:
            parts = [sizes.get(id(c), (1, 0)) for c in _children(item)]
            sizes[key] = (1 + sum(n for n, _ in parts), 1 + max((d for _, d in parts), default=0))
            open_ids.discard(key)
        elif key in open_ids:
            raise ValueError("contains itself")
        elif key not in sizes:
            open_ids.add(key)
            stack.append((item, True))
            stack += [(c, False) for c in _children(item) if isinstance(c, _CONTAINERS)]
    return sizes[id(value)]


def _over_limits(data: Any) -> tuple[str, object] | None:
    """Why a loaded document is refused, with the top-level key to blame (None: the document), or None."""
    sizes: dict[int, tuple[int, int]] = {}
    items = list(data.items()) if isinstance(data, dict) else [(None, data)]
    total = 0
    for key, value in items:
        try:
            count, depth = _measure(value, sizes)
        except ValueError:
            return "a value that contains itself (an alias inside its own anchor)", key
        if depth > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep", key
        total += count
        if total > MAX_VALUES:
            return f"more than {MAX_VALUES:,} values once its aliases (*name) are expanded", key
    return None


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
