"""What other tools that test the code in Markdown write (phmdoctest, pytest-codeblocks, Sybil, MyST-NB), which here
would silently do nothing: a warning at the first of each kind in a post, naming what to write instead.

A MyST-NB ```` ```{code-cell} ```` block is read as a python block: its `:tags:` (notebook.CELL_TAGS: skip-execution,
remove-cell or hide-code, remove-input, remove-output, raises-exception) become `{skip}`, `{hide}`, `{hide=code}`,
`{hide=output}` and `{raises=Exception}`, and its option lines leave the code.
A rule of the parse stage (`parse.make_parser` runs it before pairing outputs)."""

from __future__ import annotations

import re
from typing import NamedTuple

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.conventions import closed, comments, declared, drop_options, phmdoctest_roles
from site_builder.fences import EXEC_LANGS, block_is_doctest, fence_info, info_string, warn
from site_builder.myst_code import plain_fences
from site_builder.notebook import CELL_TAGS
from site_builder.sybil_convention import indented_fence


class Directive(NamedTuple):
    """An HTML comment another tool reads: which tool, what it does there, and what it stands for (a key of
    `INSTEAD`)."""

    pattern: re.Pattern[str]
    tool: str
    kind: str
    does: str

    @property
    def convention(self) -> str:
        """The `exec: conventions` name that reads it ("" for none)."""
        return {"Sybil": "sybil", "phmdoctest": "phmdoctest", "pytest-codeblocks": "pytest-codeblocks"}.get(
            self.tool, ""
        )


def _directive(pattern: str, tool: str, kind: str, does: str) -> Directive:
    return Directive(re.compile(pattern, re.DOTALL), tool, kind, does)


_NEXT = "the next block"
DIRECTIVES = (
    _directive(r"skip", "other tools", "skip", f"skips {_NEXT}"),
    # Sybil's colon is optional (`<!-- skip next -->` skips too); without it, only its actions are read here, so that
    # a comment such as `<!-- skipped for now -->` is not taken for one
    _directive(r"(;\s*)?skip(:\s*|\s+)(next|start)\b.*", "Sybil", "skip", f"skips {_NEXT}"),
    _directive(
        r"(;\s*)?skip:[ \t]*(?!(next|start|end)\b)\w+.*", "Sybil", "bad skip", "is a bad skip action that fails"
    ),
    _directive(r"phmdoctest-(mark\.)?skip\S*", "phmdoctest", "skip", f"skips {_NEXT}"),
    _directive(r"pytest-codeblocks:\s*skip(if\b.*|file)?", "pytest-codeblocks", "skip", f"skips {_NEXT}"),
    _directive(r"pytest\.mark\.skip(if\b.*)?", "pytest-codeblocks", "skip", f"skips {_NEXT}"),
    _directive(
        r"pytest-codeblocks:\s*importorskip\b.*",
        "pytest-codeblocks",
        "requires",
        "skips the next block when a module is missing",
    ),
    _directive(
        r"pytest-codeblocks:\s*expected-output", "pytest-codeblocks", "output", f"makes {_NEXT} expected output"
    ),
    _directive(
        r"pytest-codeblocks:\s*expect-(error|exception)", "pytest-codeblocks", "raises", f"expects {_NEXT} to raise"
    ),
    _directive(r"pytest\.mark\.xfail\b.*", "pytest-codeblocks", "raises", f"expects {_NEXT} to fail"),
    _directive(r"phmdoctest-(setup|teardown)", "phmdoctest", "hidden", f"runs {_NEXT} as setup or teardown"),
    _directive(r"invisible-code-block:\s*python\b.*", "Sybil", "hidden", "runs hidden code"),
    _directive(r"phmdoctest-clear-names", "phmdoctest", "clear", "deletes the names shared so far"),
    _directive(r"clear-namespace", "Sybil", "clear", "clears the names defined so far"),
    _directive(r"phmdoctest-label\s+(?![A-Za-z_]\w*\s*$).*", "phmdoctest", "refused", "is a label that fails the file"),
    _directive(r"phmdoctest-(share-names|label\b.*)", "phmdoctest", "same", "labels or shares a block"),
    _directive(r"pytest-codeblocks:\s*cont", "pytest-codeblocks", "same", "continues the block before"),
)
INSTEAD = {
    "skip": "write ```python {skip}",
    "output": "write the expected output as ```output right after the code",
    "raises": "write ```python {raises=ValueError} (the exception's name)",
    "hidden": "write ```python {hide} (run, not shown)",
    "requires": "list the module in `exec: {requires: [name]}` (a missing one fails the post, naming it)",
    "clear": "a post's blocks share one session to its end (give the names of a new example new names)",
    "refused": "name it with a Python identifier",
    "bad skip": "write skip: next, start or end",
    "same": "",  # a post's blocks run in order in one session: what these do is what happens here anyway
}
_COMMENT = re.compile(r"<!--+(.*?)-+->", re.DOTALL)
_ADD_EXECUTE = "add `execute: true` to the front matter"
BARE_OUTPUT = "a bare code block after python code is its expected output in phmdoctest; here it is not checked"
_OR_DECLARE = "write it as ```output right after the code, or set `exec: {conventions: [phmdoctest]}` to check it"
CODE_CELL_NOT_RUN = (
    "a ```{code-cell} block runs in MyST-NB; here it is not run: " + _ADD_EXECUTE + " (it then runs as a python block)"
)
INDENTED_FENCE = (
    "an indented ```python block (4 spaces or more) is text in Markdown, shown as it is and not run; Sybil runs it: "
    "indent it less, or set `exec: {conventions: [sybil]}` to run it as Sybil does"
)
SHELL_NOT_RUN = (
    "```sh and ```bash blocks are shown here, not run (pytest-codeblocks runs them and fails on an error): write "
    "```console for commands only shown, or set `exec: {conventions: [pytest-codeblocks]}` to run them as it does"
)
UNCLOSED = (
    "this code block has no closing fence: it takes the rest of the file here, and pytest-codeblocks fails the file: "
    "close it with a fence line"
)
_PY_KERNELS = ("", "python", "python3", "ipython", "ipython3", "py")
_CELL_TAGS = {
    **CELL_TAGS,  # a notebook's cells' tags
    "hide-code": ("hide", ""),  # as an option line (`:hide-code:`) too: the code not shown
}


def other_tools(state: StateCore) -> None:
    """The parse rule: warnings for what other tools read (once a kind per post), and code cells as python blocks."""
    if "```" not in state.src and "~~~" not in state.src and "<!--" not in state.src and "%" not in state.src:
        return
    executes = bool(getattr(state.env.get("post"), "execute", False))
    read = declared(state) if executes else ()  # conventions read here: what they read is no trap
    seen: set[str] = set()

    def once(kind: str, tok: Token, message: str) -> None:
        if kind not in seen:
            seen.add(kind)
            warn(state, tok, message)

    if "sybil" not in read:  # MyST's code directives as the fences they stand for (Sybil's convention reads them)
        plain_fences(state, executes, once)
    tokens = state.tokens
    paired = {i for i, role in phmdoctest_roles(tokens).items() if role == "output"} if executes else set()
    bare: list[Token] = []
    fenced = False  # a fence came before this token
    for i, tok in enumerate(tokens):
        if tok.type == "fence" and "code-cell" in fence_info(tok.info)[1]:
            if not executes:
                once("code-cell", tok, CODE_CELL_NOT_RUN)
            _code_cell(state, tok, executes)
        elif tok.type == "fence" and (
            (executes and i in paired) or (not tok.info.strip() and _after_python(tokens, i))
        ):
            # a post that does not run is text with code in it (an imported blog shows output as text in post after
            # post): only a bare block right after python code is taken for an expected output there, named once
            if "phmdoctest" not in read and "run" not in tok.meta:  # not read by a declared convention
                bare.append(tok)
                if executes:
                    warn(state, tok, f"{BARE_OUTPUT}: {_OR_DECLARE}")
        elif executes and tok.type == "code_block" and "sybil" not in read and indented_fence(tok) is not None:
            once("indented", tok, INDENTED_FENCE)
        elif executes and _runs(tok) and "pytest-codeblocks" not in read and not closed(state, tok):
            warn(state, tok, UNCLOSED)
        elif executes and tok.type == "fence" and not read and tok.info.strip() in ("sh", "bash"):
            once("shell", tok, SHELL_NOT_RUN)  # an executing post promises its code runs: say once which does not
        elif (tok.type == "html_block" and "<!--" in tok.content) or (tok.type == "inline" and tok.content[:1] == "%"):
            for head, directive in directives(tok):
                if directive.convention in read or (executes and directive.kind == "same" and fenced):
                    continue
                once(directive.kind, tok, directive_message(head, directive, executes))
        fenced = fenced or tok.type == "fence"
    if bare and not executes:
        more = f" ({len(bare) - 1} more such block{'s' if len(bare) > 2 else ''} below)" if len(bare) > 1 else ""
        warn(state, bare[0], f"{BARE_OUTPUT}{more}: {_ADD_EXECUTE} and {_OR_DECLARE}")


def directives(tok: Token) -> list[tuple[str, Directive]]:
    """The other tools' directives among the comments of a token (HTML, or MyST `%` lines), each with its first
    line (to show)."""
    found = []
    for text in comments(tok):
        for directive in DIRECTIVES:
            if directive.pattern.fullmatch(text):
                head = text.splitlines()[0]
                found.append((head if len(head) <= 60 else head[:57] + "...", directive))
                break
    return found


def directive_message(head: str, directive: Directive, executes: bool) -> str:
    said = f"`<!-- {head} -->` {directive.does} in {directive.tool}"
    if directive.kind == "same" and executes:  # before any block: the tool stops there
        return f"{said}, but no block comes before it: {directive.tool} fails the file (remove it)"
    instead = INSTEAD[directive.kind]
    if directive.convention:
        instead = f"{instead}, or " if instead else ""
        instead += f"set `exec: {{conventions: [{directive.convention}]}}` to read it as {directive.tool} does"
    if executes:
        return f"{said}, not here: {instead}"
    then = f" and {instead}" if instead else " (its python blocks then run in order, in one session)"
    return f"{said}; here this post's code does not run: {_ADD_EXECUTE}{then}"


def _after_python(tokens: list[Token], i: int) -> bool:
    """The fence at `i` comes right after python code (not a doctest), HTML comments and ends of lists between."""
    j = i - 1
    while j >= 0 and (tokens[j].nesting == -1 or (tokens[j].type == "html_block" and _only_comments(tokens[j]))):
        j -= 1
    if j < 0 or tokens[j].type != "fence":
        return False
    lang = fence_info(tokens[j].info)[0]
    return lang in EXEC_LANGS and not block_is_doctest(tokens[j], lang)


def _runs(tok: Token) -> bool:
    """A fence that runs here or in pytest-codeblocks (python, sh, bash)."""
    return tok.type == "fence" and (fence_info(tok.info)[0] in EXEC_LANGS or tok.info.strip() in ("sh", "bash"))


def _only_comments(tok: Token) -> bool:
    return not _COMMENT.sub("", tok.content).strip()


def _code_cell(state: StateCore, tok: Token, executes: bool) -> None:
    """A MyST-NB code cell as a python block: its tags as options, its option lines out of the code (its first line
    stays where it is in the file, for the line numbers of failures)."""
    lang, options = fence_info(tok.info)
    del options["code-cell"]
    opening, settings = tok.map, drop_options(tok)
    moved, tok.map = tok.map, opening  # warnings at the fence's line
    unread = [f":{key}:" for key in settings if key != "tags" and key not in _CELL_TAGS]
    for key in (key for key in settings if key in _CELL_TAGS):
        options[_CELL_TAGS[key][0]] = _CELL_TAGS[key][1]
    for tag in re.split(r"[\s,]+", settings.get("tags", "").strip("[] ")):
        tag = tag.strip("'\"")
        if tag in _CELL_TAGS:
            name, value = _CELL_TAGS[tag]
            options[name] = value
        elif tag:
            unread.append(tag)
    if executes and lang not in _PY_KERNELS:
        warn(state, tok, f"a ```{{code-cell}} {lang} block is not run here (only python code cells run)")
    elif executes and unread:
        warn(
            state,
            tok,
            f"code cell options not read here: {', '.join(unread)} (read: the tags " + ", ".join(_CELL_TAGS) + ")",
        )
    tok.info = info_string("python" if lang in _PY_KERNELS else lang, options)
    tok.map = moved
