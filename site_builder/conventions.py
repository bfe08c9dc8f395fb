"""Other tools' conventions for the code in Markdown, read as those tools read them when a post or site.yml declares
them (`exec: {conventions: [phmdoctest, sybil, pytest-codeblocks]}`): phmdoctest's bare fence after python code as its
expected output (prose between or not) and its `<!--phmdoctest-...-->` directives; Sybil's `skip:`,
`invisible-code-block:` and `clear-namespace` (in HTML comments or MyST `%` comments) and its MyST `{doctest}`
blocks; pytest-codeblocks' `<!--pytest-codeblocks:...-->` and `<!--pytest.mark.skip...-->`.

A rule of the parse stage: it leaves what it read on the tokens (`tok.meta["run"]`, a `Marks`), which
`execute.blocks.code_blocks` turns into the blocks a post runs. Without a declared convention, `traps` warns."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

PHMDOCTEST_CODE = ("python", "py3", "python3")  # phmdoctest's python blocks: info strings starting with these
_COMMENT = re.compile(r"<!--+(.*?)-+->", re.DOTALL)
_SKIPIF_MINOR = re.compile(r"phmdoctest-mark\.skipif<3\.(\d+)")
_OPTION_LINE = re.compile(r":([\w-]+):[ \t]*(.*)")
WITH_REASON = "(lambda condition, reason='': condition)"  # `if(cond, reason=...)` as an expression of `cond`
Mark = Callable[[int], "Marks"]


@dataclass
class Marks:
    """What a convention says about one block (on a fence token), or a block it adds (on a comment's token)."""

    skip: str | None = None  # skipped, with this reason ("" for none)
    skipif: str | None = None  # a Python expression: skipped when true (evaluated where the post runs)
    importorskip: str | None = None  # skipped when this module cannot be imported
    raises: str | None = None  # it must raise this exception (pytest-codeblocks' expect-exception)
    xfail: bool = False  # ... or may run to its end (pytest's xfail: XPASS, not a failure)
    shell: str = ""  # a shell block pytest-codeblocks runs ("sh" or "bash")
    uncounted: bool = False  # the tool does not see it (a skip shown here, not in its count)
    expected: str | None = None  # expected stdout
    expected_line: int | None = None
    compare: str = ""  # how stdout is compared: exact (line by line as printed), nospace (without any whitespace),
    # or "" (trailing spaces and blank lines dropped)
    doctest: bool = False  # a doctest session although its fence does not say so (MyST `{doctest}`)
    inert: bool = False  # this fence does not run: another block's expected output, or one its tool leaves out
    hidden_code: str | None = None  # code run but not shown (Sybil's invisible-code-block)
    clear: bool = False  # the names defined so far are forgotten (before this point)
    clear_after: bool = False  # ... after this block runs (phmdoctest-clear-names)
    cont: list[Token] = field(default_factory=list)  # pytest-codeblocks `cont` blocks appended to this one
    scope: str = ""  # the namespace: the post's (module: Sybil's), phmdoctest's (setup, local: a function's, share:
    # local, then shared, session), fresh (pytest-codeblocks: a block's own); a failure does not stop the others
    dedent: bool = False  # the code dedented (Sybil)
    omit: bool = False  # phmdoctest's inline `# phmdoctest:omit` and `phmdoctest:pass` comments applied
    refused: str | None = None  # the tool refuses the file: the block fails with this message
    below: int = 0  # a comment's failure (Sybil's bad skip): its lines below the token's first line


def declared(state: StateCore) -> tuple[str, ...]:
    return tuple(getattr(state.env.get("post"), "conventions", ()) or ())


def comments(tok: Token) -> list[str]:
    """The comments a token is made of: an HTML block's `<!-- -->` comments, or a paragraph of MyST `%` lines."""
    if tok.type == "html_block":
        return [m.group(1).strip("- \n") for m in _COMMENT.finditer(tok.content)]
    if tok.type == "inline" and tok.content.startswith("%"):  # up to the first line that is not a `%` comment
        lines = tok.content.split("\n")
        end = next((k for k, line in enumerate(lines) if not line.startswith("%")), len(lines))
        head, *rest = (line[1:] for line in lines[:end])
        return [head.strip() + ("\n" + textwrap.dedent("\n".join(rest)) if rest else "")]
    return []


def read_conventions(state: StateCore) -> None:
    """The parse rule: marks on the tokens for each declared convention."""
    names = declared(state)
    if not names or not getattr(state.env.get("post"), "execute", False):
        return
    marks: dict[int, Marks] = {}
    tokens = state.tokens

    def mark(i: int) -> Marks:
        return marks.setdefault(i, Marks())

    if "phmdoctest" in names:
        _phmdoctest(tokens, mark, state)
    if "sybil" in names:
        from site_builder.sybil_convention import sybil

        sybil(state, mark, state.env.setdefault("sybil_skips", []))
    if "pytest-codeblocks" in names:
        from site_builder.codeblocks_convention import codeblocks

        codeblocks(tokens, mark, state)
    for i, m in marks.items():
        tokens[i].meta["run"] = m


def line_of(state: StateCore, tok: Token) -> int:
    return int(state.env.get("line_offset", 1)) + (tok.map[0] if tok.map else 0) + 1


def _fences(tokens: list[Token]) -> list[int]:
    return [i for i, tok in enumerate(tokens) if tok.type == "fence"]


def phmdoctest_roles(tokens: list[Token]) -> dict[int, str]:
    """phmdoctest's role of each fence (`fillrole.identify_code_output_session_blocks`): code, session, or the
    output of the code fence before it (the fence before it in the file, whatever stands between)."""
    roles: dict[int, str] = {}
    previous = None
    for i in _fences(tokens):
        tok = tokens[i]
        info = tok.info.strip()
        role = "code" if info.startswith(PHMDOCTEST_CODE) else ""
        role = "session" if tok.content.startswith(">>> ") and info.startswith("py") else role
        if previous is not None and not info and roles.get(previous) == "code":
            role = "output"
        if role:
            roles[i] = role
        previous = i
    return roles


def preceding(tokens: list[Token], i: int) -> list[str]:
    """The HTML comments right before token `i` (phmdoctest's directives of a block), in file order."""
    found: list[str] = []
    j = i - 1
    while j >= 0 and tokens[j].type == "html_block" and tokens[j].content.lstrip().startswith("<!--"):
        found[:0] = comments(tokens[j])
        j -= 1
    return found


def _phmdoctest(tokens: list[Token], mark: Mark, state: StateCore) -> None:
    roles = phmdoctest_roles(tokens)
    last_code = None
    phases: dict[str, list[int]] = {"setup": [], "teardown": []}  # the blocks with each directive
    for i, role in roles.items():
        tok, said, m = tokens[i], preceding(tokens, i), mark(i)
        if role == "output":
            m.inert = True
            if last_code is not None and tok.content and tokens[last_code].content and "phmdoctest-skip" not in said:
                code = mark(last_code)
                code.expected, code.expected_line, code.compare = tok.content, line_of(state, tok), "exact"
                shown_as_output(tokens[last_code], tok)
            continue
        last_code = i if role == "code" else None
        m.doctest, m.scope, m.omit = role == "session", "session" if role == "session" else "local", role == "code"
        m.inert = not tok.content  # an empty block is no test (phmdoctest: DEL_CODE)
        for text in said:
            _phmdoctest_directive(text, m, role)
            if text in ("phmdoctest-setup", "phmdoctest-teardown") and role == "code":
                phases[text[len("phmdoctest-") :]].append(i)
    for phase, marked in phases.items():
        for i in marked:
            mark(i).expected = None  # setup and teardown have no output block (phmdoctest: DEL_OUTPUT)
        for i in marked[1:]:
            lines = ", ".join(str(line_of(state, tokens[j])) for j in marked)
            mark(i).refused = f"more than one block has <!--phmdoctest-{phase}--> (lines {lines}): phmdoctest refuses"


def _phmdoctest_directive(text: str, m: Marks, role: str) -> None:
    """One `<!--phmdoctest-...-->` directive before a code block or a session (which reads only skip and label);
    one phmdoctest refuses (`cases.py`) fails the block."""
    label = text[len("phmdoctest-label ") :].strip() if text.startswith("phmdoctest-label ") else None
    if label is not None and not label.isidentifier():
        m.refused = f"<!--{text}--> must be a valid python identifier: phmdoctest refuses"
    elif text == "phmdoctest-skip":  # no test at all (a mark.skip one is a skipped test)
        m.inert = True
    elif role != "code":
        return
    elif text == "phmdoctest-mark.skip":
        m.skip = text
    elif text.startswith("phmdoctest-mark.skipif<3."):
        minor = _SKIPIF_MINOR.fullmatch(text)
        if minor is None:
            m.refused = f"<!--{text}--> must be a decimal number and >= zero: phmdoctest refuses"
        else:
            m.skipif = f"sys.version_info < (3, {int(minor[1])})"
    elif text == "phmdoctest-clear-names":
        m.clear_after = True
    elif text == "phmdoctest-share-names" and m.scope == "local":
        m.scope = "share"
    elif text in ("phmdoctest-setup", "phmdoctest-teardown"):
        m.scope = text[len("phmdoctest-") :]


def phmdoctest_inline(code: str) -> str:
    """phmdoctest's inline commands (`inline.apply_inline_commands`): a line ending in `phmdoctest:pass` becomes
    `pass`; one ending in `phmdoctest:omit` is left out with the lines indented under it (as comments: the lines stay
    where they are)."""
    out: list[str] = []
    column: int | None = None  # the indent of the omitted statement, while omitting
    for line in code.split("\n"):
        indent = len(line) - len(line.lstrip())
        if column is not None and (not line.strip() or indent > column):
            out.append(" " * column + "# " + line.strip() if line.strip() else "")
            continue
        column = None
        if re.match(r"\s*#", line):
            out.append(line)
        elif line.endswith("phmdoctest:pass"):
            out.append(" " * indent + "pass  # " + line[indent:])
        elif line.endswith("phmdoctest:omit"):
            column = indent
            out.append(" " * indent + "# " + line[indent:])
        else:
            out.append(line)
    return "\n".join(out)


def closed(state: StateCore, tok: Token) -> bool:
    """Whether a fence has its closing fence (CommonMark closes one at the end of the document; the tools do not)."""
    if tok.map is None:
        return True
    lines = state.src.split("\n")
    last = lines[tok.map[1] - 1] if tok.map[1] - 1 < len(lines) and tok.map[1] - tok.map[0] > 1 else ""
    last = last.lstrip(" \t>")  # a fence in a quote (`> ````) or a list item closes with its container's prefix
    return bool(last) and last.startswith(tok.markup) and not last.strip().strip(tok.markup[0])


def shown_as_output(code: Token, output: Token) -> None:
    """The page shows the expected output as an ```output block's (verified, or not), not the code's stdout too."""
    code.meta["has_output"] = output.meta["expected_output"] = True


def drop_options(tok: Token) -> dict[str, str]:
    """A MyST directive's options (`:key: value` lines, or YAML between `---` lines) out of its code, as MyST shows
    it and Sybil runs it (its first line stays where it is in the file, for the line numbers of failures)."""
    lines = tok.content.splitlines(keepends=True)
    settings, used = cell_options(lines)
    if used and tok.map:
        tok.content = "".join(lines[used:])
        tok.map = [tok.map[0] + used, tok.map[1]]
    return settings


def cell_options(lines: list[str]) -> tuple[dict[str, str], int]:
    """A code cell's options (`:key: value` lines, or YAML between `---` lines) and how many lines they and the blank
    lines after them take; a YAML list (`- item` lines) is read as `a, b`."""
    options: dict[str, str] = {}
    used = 0
    if lines and lines[0].strip() == "---":
        end = next((k for k in range(1, len(lines)) if lines[k].strip() == "---"), None)
        if end is None:
            return {}, 0
        key = ""
        for line in lines[1:end]:
            if line.strip().startswith("- ") and key:
                options[key] = f"{options[key]}, {line.strip()[2:]}".lstrip(", ")
            elif ":" in line:
                key, _, value = line.partition(":")
                key = key.strip()
                options[key] = value.strip()
        used = end + 1
    else:
        while used < len(lines) and (match := _OPTION_LINE.fullmatch(lines[used].rstrip("\n"))):
            options[match[1]] = match[2].strip()
            used += 1
    while used and used < len(lines) and not lines[used].strip():
        used += 1
    return options, used
