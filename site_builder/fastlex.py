"""Pygments' regex lexers, faster and token for token the same: at each step only the rules that can start with
the next character are tried, instead of every rule of the state in turn."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from typing import Any

from pygments.lexer import RegexLexer
from pygments.token import Error, Whitespace, _TokenType

try:  # the parser behind `re`: re._parser since Python 3.11, sre_parse before
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse as _sre_parse

_ANY = "(?s:.)"
_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def speed_up(lexer: Any) -> Any:
    """`lexer`, made to lex through the faster engine when it is a plain RegexLexer (others are left as they are)."""
    cls = type(lexer)
    if getattr(cls, "get_tokens_unprocessed", None) is RegexLexer.get_tokens_unprocessed:
        tables = {name: _State(rules) for name, rules in lexer._tokens.items()}  # some lexers have their own
        lexer.get_tokens_unprocessed = partial(_tokens, lexer, tables)
    return lexer


def _char(code: int) -> str:
    return f"\\U{code:08x}"


def _first(seq: Any) -> tuple[list[str] | None, bool]:
    """What a parsed regex can start with: (single-character regexes, or None for anything; can it match empty)."""
    alts: list[str] = []
    for op, av in seq:
        first, empty = _first_of(getattr(op, "name", str(op)), av)
        if first is None:
            return None, True
        alts += first
        if not empty:
            return alts, False
    return alts, True


def _first_of(op: str, av: Any) -> tuple[list[str] | None, bool]:
    if op == "LITERAL":
        return [_char(av)], False
    if op == "NOT_LITERAL":
        return [f"[^{_char(av)}]"], False
    if op == "ANY":
        return [_ANY], False
    if op == "IN":
        parts: list[str] = []
        for item, value in av:
            item = getattr(item, "name", str(item))
            if item == "NEGATE":
                parts.insert(0, "^")
            elif item == "LITERAL":
                parts.append(_char(value))
            elif item == "RANGE":
                parts.append(f"{_char(value[0])}-{_char(value[1])}")
            elif item == "CATEGORY" and getattr(value, "name", None) in _CATEGORIES:
                parts.append(_CATEGORIES[value.name])
            else:
                return None, True
        return [f"[{''.join(parts)}]"], False
    if op == "BRANCH":
        alts, empty = [], False
        for branch in av[1]:
            first, branch_empty = _first(branch)
            if first is None:
                return None, True
            alts += first
            empty = empty or branch_empty
        return alts, empty
    if op == "SUBPATTERN":
        _, add_flags, del_flags, sub = av
        return (None, True) if add_flags or del_flags else _first(sub)
    if op == "ATOMIC_GROUP":
        return _first(av)
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, sub = av
        first, empty = _first(sub)
        return first, empty or low == 0
    if op in ("AT", "ASSERT", "ASSERT_NOT"):  # zero width: what follows decides (a lookahead only narrows it)
        return [], True
    return None, True  # back references, conditionals, anything new: it may start with anything


@lru_cache(maxsize=4096)  # the rules a state includes are in other states too
def _starts(pattern: re.Pattern[str]) -> Callable[[str], object] | None:
    """A test `char -> bool` for whether `pattern` may match starting with that character, or None when it can
    match the empty string (it is then tried before every character and at the end)."""
    try:
        first, empty = _first(_sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:
        return None
    if empty or first is None:
        return None
    if not first:
        return lambda c: False
    return re.compile("|".join(first), pattern.flags & (re.I | re.A)).match


class _State:
    """One lexer state: for each next character, the rules that may match there (in their order)."""

    def __init__(self, rules: list[Any]):
        self.rules = rules
        self.starts: list[Any] | None = None  # worked out when the state is first used: most states never are
        self.by_char: dict[str, list[Any]] = {}

    def candidates(self, c: str) -> list[Any]:
        """The rules that may match before character `c` ('' at the end of the text)."""
        if self.starts is None:
            self.starts = [_starts(rexmatch.__self__) for rexmatch, _, _ in self.rules]
        chosen = [
            rule for rule, start in zip(self.rules, self.starts, strict=False) if start is None or (c and start(c))
        ]
        self.by_char[c] = chosen
        return chosen


def _tokens(
    lexer: Any, tables: dict[str, _State], text: str, stack: tuple[str, ...] = ("root",)
) -> Iterator[tuple[int, Any, str]]:
    """RegexLexer.get_tokens_unprocessed, trying only `_State.candidates` of the state for the next character."""
    pos = 0
    end = len(text)
    statestack = list(stack)
    state = tables[statestack[-1]]
    while True:
        c = text[pos] if pos < end else ""
        rules = state.by_char.get(c)
        if rules is None:
            rules = state.candidates(c)
        m = None
        for rexmatch, action, new_state in rules:  # noqa: B007 (read after the loop)
            m = rexmatch(text, pos)
            if m:
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, m.group()
                    else:
                        yield from action(lexer, m)
                break
        if m:
            pos = m.end()
            if new_state is not None:  # as in Pygments
                if isinstance(new_state, tuple):
                    for name in new_state:
                        if name == "#pop":
                            if len(statestack) > 1:
                                statestack.pop()
                        elif name == "#push":
                            statestack.append(statestack[-1])
                        else:
                            statestack.append(name)
                elif isinstance(new_state, int):
                    if abs(new_state) >= len(statestack):
                        del statestack[1:]
                    else:
                        del statestack[new_state:]
                elif new_state == "#push":
                    statestack.append(statestack[-1])
                else:
                    raise AssertionError(f"wrong state def: {new_state!r}")
                state = tables[statestack[-1]]
            continue
        if pos >= end:
            break
        if c == "\n":  # at a line end with no rule matching: back to the root state
            statestack = ["root"]
            state = tables["root"]
            yield pos, Whitespace, "\n"
        else:
            yield pos, Error, c
        pos += 1
