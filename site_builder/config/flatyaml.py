"""The flat front matter most posts have (`key: value` lines, a value a plain or quoted scalar or a `[a, b]` list),
read without PyYAML's parser: 14 us for a post's few lines against 33 us with its C loader, which a 4,000-post
build calls 4,000 times.

The values are PyYAML's own: a plain scalar's type comes from the loader's implicit resolvers and its value from
the loader's constructors (so `2024-01-02` is a date, `true` a bool, an impossible date an error there). Anything
this reader is not sure of (a comment, an escape, nesting, a tab, a line it does not know) gives None, and the
caller reads the text with the full loader. tests/test_flatyaml.py checks it against the loader on random
documents built from YAML's awkward characters.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_KEY_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.+))?")
_ITEM = re.compile(r"( *)- +(.+)")
# what a plain scalar may not start with: YAML's indicators, and `<`/`=` (the merge and value keys)
_NOT_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`<= ")
_FLOW_ITEM = re.compile(r"(?![-?:#&*!|>'\"%@`\s])[^,\[\]{}:#'\"\s]+(?: [^,\[\]{}:#'\"\s]+)*")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_SINGLE = re.compile(r"'([^']*)'")
MAX_ITEMS = 1000  # a longer list goes to the full loader and its limits
MAX_KEYS = 4096  # keys remembered as strings or not


class FlatReader:
    """A loader's resolvers and constructors, used on scalars one at a time (one for the program: it keeps which
    keys are strings)."""

    def __init__(self, loader: type[yaml.SafeLoader]) -> None:
        self.resolvers = loader.yaml_implicit_resolvers
        self.constructors = loader.yaml_constructors
        self.constructor = yaml.constructor.SafeConstructor()
        self.keys: dict[str, str | None] = {}  # key -> itself, or None when it is not read as a string

    def plain(self, text: str) -> Any:
        """A plain scalar's value, as the loader would construct it."""
        for tag, regexp in self.resolvers.get(text[0], ()):
            if regexp.match(text):
                construct = self.constructors.get(tag)  # `<<` and `=` have none: the loader's error is better
                if construct is None:
                    raise ValueError(text)
                return construct(self.constructor, yaml.ScalarNode(tag, text))
        return text

    def key(self, text: str) -> str | None:
        """A key that the loader reads as a string, else None (`true:` is a bool, `null:` None)."""
        if text in self.keys:
            return self.keys[text]
        known = text if all(not regexp.match(text) for _, regexp in self.resolvers.get(text[0], ())) else None
        if len(self.keys) < MAX_KEYS:
            self.keys[text] = known
        return known

    def value(self, text: str) -> Any:
        """A value of one line, or raise ValueError when it is not one this reader is sure of."""
        if text[0] == '"' or text[0] == "'":
            m = (_DOUBLE if text[0] == '"' else _SINGLE).fullmatch(text)
            if m is None:
                raise ValueError(text)
            return m[1]
        if text[0] == "[":
            return self.flow_list(text)
        if text[0] in _NOT_FIRST or ": " in text or " #" in text or text[-1] == ":":  # a mapping, a comment
            raise ValueError(text)
        return self.plain(text)

    def flow_list(self, text: str) -> list[Any]:
        if not text.endswith("]"):
            raise ValueError(text)
        inner = text[1:-1].strip(" ")
        items = [item.strip(" ") for item in inner.split(",")] if inner else []
        if len(items) > MAX_ITEMS or not all(_FLOW_ITEM.fullmatch(item) for item in items):
            raise ValueError(text)
        return [self.plain(item) for item in items]


def read_flat(text: str, reader: FlatReader) -> dict[str, Any] | None:
    """`text` as the reader's loader would read it, when it is a flat mapping the reader is sure of; else None.

    A key's value is on its line, or is the `- item` lines below it (a list, as PyYAML's own dump writes one)."""
    if not text or not text.replace("\n", "").isprintable():  # a tab, \r, NBSP, BOM...: more than YAML refuses
        return None
    data: dict[str, Any] = {}
    lines = [line.rstrip(" ") for line in text.split("\n")]
    at = 0
    try:
        while at < len(lines):
            m = _KEY_VALUE.fullmatch(lines[at])
            key = reader.key(m[1]) if m is not None else None
            if m is None or key is None:
                return None
            at += 1
            if m[2] is not None:
                data[key] = reader.value(m[2])
                continue
            items: list[Any] = []
            indent = None
            while at < len(lines) and (item := _ITEM.fullmatch(lines[at])) is not None:
                if (indent is not None and item[1] != indent) or item[2][0] in "[-":  # uneven, or nested
                    return None
                indent = item[1]
                items.append(reader.value(item[2]))
                at += 1
            data[key] = items or None  # `key:` alone is null
    except (ValueError, yaml.YAMLError):  # the full loader says what is wrong, with its line
        return None
    return data
