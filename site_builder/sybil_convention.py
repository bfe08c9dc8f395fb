"""Sybil's Markdown and MyST as it reads them (its `sybil.parsers.markdown` and `.myst` lexers and parsers), when
`exec: {conventions: [sybil]}` declares it: `skip:` directives (in HTML comments or MyST `%` comments; one Sybil fails,
such as a bad action, fails here at its line), `invisible-code-block:` and `clear-namespace`, MyST `{doctest}` and
code directives, and python fences or `<!-- code-block: python -->` comments inside indented blocks (Sybil's lexers
take them at any indent). Marks on the tokens, as `conventions` leaves them."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.conventions import WITH_REASON, Mark, Marks, comments, drop_options
from site_builder.fences import fence_info

# Sybil's DIRECTIVE_IN_HTML_COMMENT_START for `skip` (the text after `<!--+\s*`): an optional `;`, the colon optional,
# the arguments up to the end of the line; `SKIP_ARGUMENTS_PATTERN` splits them into an action and a reason
_SKIP = re.compile(r"(;\s*)?skip(:?)[ \t]*([^\n]*?)[ \t]*(?:\n.*)?", re.DOTALL)
_SKIP_ARGUMENTS = re.compile(r"(\w+)(?:\s+(.+)$)?")
_INVISIBLE = re.compile(r"invisible-code-block:[ \t]*python(?:\n(.*))?", re.DOTALL)
_UNREAD = re.compile(r"invisible-code-block:[ \t]*python[ \t]+(?:\n.*)?", re.DOTALL)  # Sybil's lexer misses it
_INDENTED_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*(?:\{(?:code-block|code|sourcecode)\}[ \t]*)?python[ \t]*")
_INDENTED_COMMENT = re.compile(r"[ \t]*<!--+\s*(?:;\s*)?(?:invisible-)?code(?:-block)?:?[ \t]*python")
_COMMENT_END = re.compile(r"--+>")
SYBIL_DIRECTIVES = ("code-block", "code", "sourcecode")  # MyST's code directives, as Sybil's lexer reads them
Skip = tuple[str, str | None]  # a skip's reason and condition


@dataclass
class _Skipper:
    """Sybil's `Skipper` through a document: the skip in force, and the last action (`skip: next` until the next
    example, `skip: start` until `skip: end`)."""

    pending: Skip | None = None  # skip: next
    block: Skip | None = None  # skip: start ... end
    last: str | None = None

    def apply(self, m: Marks) -> None:
        """The skip in force on the next example (which ends a `skip: next`)."""
        skip = self.pending or self.block
        if skip is not None:
            m.skip, m.skipif = (None, skip[1]) if skip[1] else (skip[0], None)
        if self.pending is not None:
            self.pending, self.last = None, None

    def directive(self, action: str, rest: str) -> str | None:
        """A skip example: Sybil's error (`evaluate_skip_example`'s ValueError) if it fails, else None."""
        if action not in ("start", "next", "end"):
            return f"Bad skip action: {action}"
        if self.last is None and action == "end":
            return "'skip: end' must follow 'skip: start'"
        if self.last is not None and action != "end":
            return f"'skip: {action}' cannot follow 'skip: {self.last}'"
        self.last = action
        if action == "end":
            self.pending = self.block = self.last = None
            return "Cannot have condition on 'skip: end'" if rest else None
        skip = _skip_args(rest)
        self.pending, self.block = (skip, self.block) if action == "next" else (self.pending, skip)
        return None


def sybil(state: StateCore, mark: Mark, regions: list[int]) -> None:
    """Sybil's skip, invisible-code-block and clear-namespace, and its MyST `{doctest}` blocks; `regions` gets the
    skip directives that pass (which Sybil counts as examples); one that fails is a failing block."""
    tokens = state.tokens
    skipper = _Skipper()
    for i, tok in enumerate(tokens):
        if tok.type == "code_block" and (code := indented_fence(tok) or indented_comment(tok)) is not None:
            mark(i).hidden_code, mark(i).scope = code, "module"  # the page shows it as the text it is
            skipper.apply(mark(i))
            continue
        if tok.type == "fence":
            lang, options = fence_info(tok.info)
            if "eval-rst" in options and not lang:  # ReST for Sybil's ReST parsers, not its MyST ones: shown as text
                mark(i).inert = True
                continue
            myst_doctest = "doctest" in options and not lang
            if myst_doctest:
                mark(i).doctest = True
            if lang != "python" and not myst_doctest:
                continue
            if any(name in options for name in SYBIL_DIRECTIVES):
                drop_options(tok)
            mark(i).dedent, mark(i).scope = True, mark(i).scope or "module"
            skipper.apply(mark(i))
            continue
        if tok.type == "inline" and all(line.startswith("%") for line in tok.content.split("\n")):
            _hide_paragraph(tokens, i)
        for text in comments(tok):
            if (m := _SKIP.fullmatch(text)) is not None and (tok.type == "html_block" or (m[2] and not m[1])):
                _skip_example(tok, i, mark, regions, skipper, m[3])
            elif _UNREAD.fullmatch(text):
                _unread_invisible(i, mark, text)
            elif (m := _INVISIBLE.fullmatch(text)) is not None:
                mark(i).hidden_code = textwrap.dedent(m[1] or "").strip("\n") + "\n"
                mark(i).scope = "module"
                skipper.apply(mark(i))
            elif text == "clear-namespace":
                mark(i).clear = True


def _skip_example(tok: Token, i: int, mark: Mark, regions: list[int], skipper: _Skipper, arguments: str) -> None:
    """A skip directive, an example of its own to Sybil: it passes (in `regions`), or fails with Sybil's error at its
    comment's line (a bad action, an `end` without a `start`, a `start` after a `next`...)."""
    parts = _SKIP_ARGUMENTS.match(arguments)
    error = (
        skipper.directive(parts[1], (parts[2] or "").strip())
        if parts
        else f"malformed arguments to skip: {arguments!r}"
    )
    if error is None:
        regions.append(i)
        return
    m = mark(i)
    bad = error.startswith("Bad")
    m.refused = f"{error}: Sybil fails this skip" + (" (its actions are next, start and end)" if bad else "")
    said = re.search(r"skip:?[ \t]*" + re.escape(arguments), tok.content)
    head = said.start() if said else 0
    opening = tok.content.rfind("<!--", 0, head)
    m.below = tok.content[: opening if opening >= 0 else head].count("\n")  # the comment's first line


def _unread_invisible(i: int, mark: Mark, text: str) -> None:
    """An invisible-code-block with a space after `python`, which Sybil's lexer misses: a skipped block here (shown
    in check's counts, not in Sybil's), never run."""
    m = mark(i)
    m.hidden_code = textwrap.dedent(text.split("\n", 1)[1] if "\n" in text else "").strip("\n") + "\n"
    m.skip = "Sybil does not read an invisible-code-block with a space after `python`: nor does this site"
    m.uncounted, m.scope = True, "module"


def indented_fence(tok: Token) -> str | None:
    """The code of the first python fence that an indented code block holds (text to CommonMark, a block to Sybil,
    whose lexer takes a fence at any indent), with the lines before it blank (for line numbers); None if none."""
    lines = tok.content.split("\n")
    for start, line in enumerate(lines):
        if (opening := _INDENTED_FENCE.fullmatch(line)) is None:
            continue
        fence = opening[1]
        end = next((k for k in range(start + 1, len(lines)) if lines[k].strip().startswith(fence)), None)
        if end is not None and not lines[end].strip().strip(fence[0]):
            return "\n" * start + textwrap.dedent("\n".join(lines[start + 1 : end])) + "\n"
    return None


def indented_comment(tok: Token) -> str | None:
    """The code of the first `<!-- code-block: python` (or invisible-code-block) comment an indented code block holds
    (text to CommonMark; Sybil's lexer takes it at any indent "for pragmatic reasons"), up to its `-->`, with the lines
    before it blank; None if none."""
    lines = tok.content.split("\n")
    for start, line in enumerate(lines):
        if _INDENTED_COMMENT.fullmatch(line) is None:
            continue
        for k in range(start + 1, len(lines)):
            if (end := _COMMENT_END.search(lines[k])) is not None:
                body = [*lines[start + 1 : k], lines[k][: end.start()]]
                return "\n" * (start + 1) + textwrap.dedent("\n".join(body))
    return None


def _hide_paragraph(tokens: list[Token], i: int) -> None:
    """A paragraph of MyST `%` comment lines is not shown (as MyST shows none)."""
    if 0 < i < len(tokens) - 1 and tokens[i - 1].type == "paragraph_open":
        tokens[i - 1].hidden = tokens[i + 1].hidden = True
        tokens[i].children = []


def _skip_args(rest: str) -> tuple[str, str | None]:
    """A Sybil skip's reason and condition: `"reason"`, or `if(condition, reason="...")`."""
    if rest.startswith("if(") and rest.endswith(")"):
        return "", f"{WITH_REASON}{rest[2:]}"
    return rest.strip("\"'"), None
