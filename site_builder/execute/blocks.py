"""The code/output pairs a post runs, taken from the tokens the parse stage made (Sybil's parser → regions)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from site_builder.conventions import phmdoctest_inline
from site_builder.fences import EXEC_LANGS, block_is_doctest, fence_info

if TYPE_CHECKING:
    from site_builder.conventions import Marks
    from site_builder.models import ParsedPost


RUN_OPTIONS = frozenset(["skip", "hide", "raises"])  # the fence options a run depends on (not title, linenos, ...)


@dataclass
class CodeBlock:
    """One block a post runs: where it is, what it runs, and what it must print or raise."""

    index: int
    line: int  # line of the block's first code line in the post file
    kind: str  # "exec" or "doctest"
    code: str
    options: dict[str, str] = field(default_factory=dict)
    expected: str | None = None
    expected_line: int | None = None
    skipif: str | None = None  # skipped when this Python expression is true where the post runs (a convention's)
    importorskip: str | None = None  # skipped when this module cannot be imported
    compare: str = ""  # how stdout is compared with `expected`: exact, nospace, or "" (trailing spaces dropped)
    clear_after: bool = False  # the names defined so far are forgotten after it runs (phmdoctest-clear-names)
    scope: str = ""  # the namespace it runs in: the post's (""), or phmdoctest's (setup, local, share, session)
    refused: str | None = None  # a convention's tool refuses the post: the block fails with this message
    xfail: bool = False  # `raises` may also not happen: the block then passes (pytest's XPASS)
    uncounted: bool = False  # the convention's tool does not see it: not in its count

    @property
    def skip(self) -> bool:
        return "skip" in self.options

    @property
    def raises(self) -> str | None:
        return self.options.get("raises") or None


def code_blocks(parsed: ParsedPost) -> list[CodeBlock]:
    """The blocks a post runs, in order; an `output` fence right after a block is its expected stdout (the parse
    stage marks which: `parse._pair_outputs`, which warns about one that follows no python block). What a declared
    convention read (`conventions`: skips, hidden code, expected outputs) is on the tokens as `Marks`."""
    blocks: list[CodeBlock] = []
    previous: CodeBlock | None = None  # the block the last fence ran, if it ran
    for tok in parsed.tokens:
        marks: Marks | None = tok.meta.get("run")
        if marks is not None and tok.type != "fence" and tok.map is not None:
            blocks += _comment_blocks(len(blocks), parsed.post.body_line + tok.map[0], marks)
            continue
        if tok.type != "fence" or tok.map is None:
            continue
        lang, options = fence_info(tok.info)
        line = parsed.post.body_line + tok.map[0] + 1
        if marks is not None and marks.shell:
            code = shell_code(tok.content, marks.shell)
            previous = _marked(CodeBlock(len(blocks), line, "exec", code, options), marks)
            blocks.append(previous)
        elif marks is not None and (
            (marks.inert and not marks.refused) or (lang not in EXEC_LANGS and not marks.doctest)
        ):
            previous = None
        elif marks is not None:
            kind = "doctest" if marks.doctest or block_is_doctest(tok, lang) else "exec"
            previous = _marked(CodeBlock(len(blocks), line, kind, tok.content, options), marks)
            blocks.append(previous)
        elif lang == "output":
            if tok.meta.get("expected_output") and previous is not None and previous.expected is None:
                previous.expected, previous.expected_line = tok.content, line
            previous = None
        elif lang in EXEC_LANGS:
            kind = "doctest" if block_is_doctest(tok, lang) else "exec"
            previous = CodeBlock(len(blocks), line, kind, tok.content, options)
            blocks.append(previous)
        else:
            previous = None
    return blocks


def _marked(block: CodeBlock, marks: Marks) -> CodeBlock:
    """A block as a convention reads it."""
    if marks.skip is not None:
        block.options["skip"] = marks.skip
    if marks.raises is not None:
        block.options["raises"] = marks.raises
    block.skipif, block.importorskip, block.clear_after = marks.skipif, marks.importorskip, marks.clear_after
    block.scope, block.refused, block.xfail, block.uncounted = marks.scope, marks.refused, marks.xfail, marks.uncounted
    if marks.dedent:
        block.code = textwrap.dedent(block.code)
    if marks.omit:
        block.code = phmdoctest_inline(block.code)
    if marks.expected is not None:
        block.expected, block.expected_line, block.compare = marks.expected, marks.expected_line, marks.compare
    for more in marks.cont:
        block.code += more.content
    return block


def shell_code(script: str, shell: str) -> str:
    """A shell block as pytest-codeblocks runs it (`subprocess.run(code, shell=True, check=True)`, stdout captured and
    compared), in Python for the runner: on one line, so that a failure is at the block's line."""
    executable = "/bin/bash" if shell == "bash" else None
    return (
        "import subprocess as _sp; _r = _sp.run("
        f"{script!r}, shell=True, executable={executable!r}, stdout=_sp.PIPE); "
        "print(_r.stdout.decode(), end=''); _r.check_returncode()\n"
    )


def _comment_blocks(index: int, line: int, marks: Marks) -> list[CodeBlock]:
    """What a comment adds: the names forgotten (`clear-namespace`), hidden code (`invisible-code-block`), a failure
    (a skip Sybil fails)."""
    out = []
    if marks.refused is not None and marks.hidden_code is None:
        out.append(_marked(CodeBlock(index, line + marks.below, "exec", ""), marks))
    if marks.clear:
        out.append(CodeBlock(index, line, "clear", ""))
    if marks.hidden_code is not None:
        hidden = CodeBlock(index + len(out), line + 1, "exec", marks.hidden_code, {"hide": ""})
        out.append(_marked(hidden, marks))
    return out
