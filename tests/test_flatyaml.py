"""The flat front matter reader (config/flatyaml.py) against PyYAML's loader: the same values and types, or it
declines (None) and the loader reads the text, errors and all."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
import yaml

from site_builder.config.flatyaml import read_flat
from site_builder.config.yamlfile import FLAT, SafeLoader, safe_load

# YAML's awkward characters, and pieces that look like its types
_PIECES = [
    *"-?:,[]{}#&*!|>'\"%@`<=~. \t\\/",
    "\xa0",
    "\u3000",
    "\u2028",
    "\x85",
    "\ufeff",
    "：",
    "数组",
    "a",
    "Z",
    "_",
    "0",
    "12",
    "-3",
    "0x1F",
    "0o17",
    "1_000",
    "1e3",
    ".5",
    ".inf",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "null",
    "NULL",
    "~",
    "<<",
    "2024-01-02",
    "2024-13-45",
    "2015-01-01T10:00:00+00:00",
    "2015-1-1 10:00:00.5 -5",
    ": ",
    " #",
    "# ",
    "  ",
    "''",
    "\\n",
]


_PLAIN = ["a", "Z", "数组", " ", "0", "12", "true", "2024-01-02", "-", ":", "#", ".", "~", "'", '"']


def _word(rng: random.Random) -> str:
    pieces = _PIECES if rng.random() < 0.3 else _PLAIN  # most words near plain, to be read flat
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.15:
        return f'"{_word(rng)}"'
    if kind < 0.25:
        return f"'{_word(rng)}'"
    if kind < 0.45:
        return "[" + ",".join(rng.choice(["", " ", "  "]) + _word(rng) for _ in range(rng.randint(0, 4))) + "]"
    return _word(rng)


def _document(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(["title", "date", "tags", "summary", "y", "on", "true", "null", "a-b", "x_1", "draft"])
        if rng.random() < 0.25:  # a list below its key, as PyYAML's dump writes one (or nothing: null)
            lines.append(f"{key}:{rng.choice(['', ' '])}")
            indent = rng.choice(["", "  "])
            for _ in range(rng.randint(0, 3)):
                dash = rng.choice(["-", "- ", "-  ", "-\t"])
                lines.append(f"{rng.choice([indent, indent, ' '])}{dash}{rng.choice([' ', ''])}{_value(rng)}")
        else:
            lines.append(f"{key}:{rng.choice([' ', '  ', ''])}{_value(rng)}{rng.choice(['', ' ', '  '])}")
    return "\n".join(lines)


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1 == 1.0 == True in Python; not here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, datetime.datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    if isinstance(a, float) and a != a:
        return b != b
    return bool(a == b)


def test_random_documents_read_as_the_loader_reads_them_or_go_to_it() -> None:
    rng = random.Random(20261127)
    read, types = 0, set()
    for _ in range(30_000):
        text = _document(rng)
        flat = read_flat(text, FLAT)
        if flat is None:
            continue
        read += 1
        try:
            full = yaml.load(text, Loader=SafeLoader)
        except yaml.YAMLError as exc:
            pytest.fail(f"the loader refuses {text!r} ({exc}); the flat reader gave {flat!r}")
        assert _same(flat, full), text
        types |= {type(v) for value in flat.values() for v in (value if isinstance(value, list) else [value])}
    assert read > 2_000  # a fair share (most documents hold an awkward line somewhere)
    assert {str, int, float, bool, type(None), datetime.date, datetime.datetime} <= types


@pytest.mark.parametrize(
    "text",
    [
        'title: "Synthetic post 0: vector chunk"\ndate: 2015-01-01T10:00:00+00:00\ntags: [array, scheduler]',
        "title: 数组的索引：从零开始\ndate: 2024-01-02\ndraft: true\nweight: 3\nratio: .5\nnothing: ~",
        "title: 'It''s quoted'",  # an escaped quote: the loader's
        "title: a # comment",  # a comment: the loader's
        "title: a: b",  # a mapping in a value: the loader's error
        "date: 2024-13-45",  # an impossible date: the loader's error, at its line
        "tags:\n  - a\n  - b\nlang: zh",  # a list below its key: read flat
        "tags:\n- a\n  - b",  # uneven: the loader's error
        "tags:\n- [a]\n- - b",  # nested lists: the loader's
        "exec:\n  timeout: 60",  # nesting: the loader's
        "title: x\n\nsummary: y",  # a blank line: the loader's
    ],
)
def test_front_matter_reads_the_same_with_and_without_the_flat_reader(text: str) -> None:
    try:
        expected: Any = yaml.load(text, Loader=SafeLoader)
    except yaml.YAMLError as exc:
        expected = type(exc)
    try:
        got: Any = safe_load(text)
    except yaml.YAMLError as exc:
        got = type(exc)
    assert _same(got, expected) if isinstance(expected, dict) else got is expected


def test_the_usual_front_matter_is_read_flat() -> None:
    """The fast path is taken for what posts hold: a quoted title, a date, a list of tags, a summary."""
    text = 'title: "Post: one"\ndate: 2015-01-01T10:00:00+00:00\ntags: [array, ray]\nsummary: Plain words, ok.'
    assert read_flat(text, FLAT) == {
        "title": "Post: one",
        "date": datetime.datetime(2015, 1, 1, 10, tzinfo=datetime.timezone.utc),
        "tags": ["array", "ray"],
        "summary": "Plain words, ok.",
    }


def test_front_matter_as_the_importer_writes_it_is_read_flat() -> None:
    """PyYAML's dump style, which `site-builder import` writes: lists of tags below their key."""
    text = "title: 曾经的家\ndate: '2025-08-12T19:52:45+00:00'\ntags:\n- life\n- Chinese\nlang: zh\nid: https://x.me/a"
    assert read_flat(text, FLAT) == yaml.load(text, Loader=SafeLoader)
    assert read_flat(text, FLAT) is not None
