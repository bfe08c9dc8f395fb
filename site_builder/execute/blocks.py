"""The code/output pairs a post runs, taken from the tokens the parse stage made (Sybil's parser → regions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from site_builder.fences import EXEC_LANGS, block_is_doctest, fence_info

if TYPE_CHECKING:
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

    @property
    def skip(self) -> bool:
        return "skip" in self.options

    @property
    def raises(self) -> str | None:
        return self.options.get("raises") or None


def code_blocks(parsed: ParsedPost) -> list[CodeBlock]:
    """The blocks a post runs, in order; an `output` fence right after a block is its expected stdout (the parse
    stage marks which: `parse._pair_outputs`, which warns about one that follows no python block)."""
    blocks: list[CodeBlock] = []
    previous: CodeBlock | None = None  # the block the last fence ran, if it ran
    for tok in parsed.tokens:
        if tok.type != "fence" or tok.map is None:
            continue
        lang, options = fence_info(tok.info)
        line = parsed.post.body_line + tok.map[0] + 1
        if lang == "output":
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
