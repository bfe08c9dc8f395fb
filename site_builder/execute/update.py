"""`check --update`: the expectations a run found stale (`output` blocks, doctest outputs) rewritten with what the
code printed now, as `pytest --accept` or `cram -i` do. Every other byte of the post file stays as it was: front
matter, prose, code, other blocks, line endings (CRLF too), trailing spaces, a missing final newline.

Only output mismatches are rewritten: a block that raised what it did not expect, printed too much or did not raise
stays as it is (and fails), and so does a python block without an `output` block (none is added)."""

from __future__ import annotations

import doctest
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from site_builder.config.frontmatter import read_front_matter
from site_builder.execute.blocks import CodeBlock, code_blocks
from site_builder.execute.results import BlockResult, PostRun
from site_builder.models import Post
from site_builder.parse import parse_post
from site_builder.util.files import atomic_file, file_stamp
from site_builder.util.hashing import bytes_digest

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # lines as markdown-it splits them, ends kept


class Changed(Exception):
    """The post file is not the one the run was made from: it is left as it is."""


@dataclass
class Edit:
    """Lines of the file replaced: from `first` (0-based), `count` of them, by `lines` (ends included)."""

    first: int
    count: int
    lines: list[str]


@dataclass
class BlockPlan:
    """One block's rewrite: its edits, and the code and output block its new lines parse to."""

    index: int
    edits: list[Edit]
    code: str
    expected: str | None


@dataclass
class FileUpdate:
    """One post file: its bytes as read and as rewritten, the blocks rewritten, the stale ones left (and why)."""

    post: Post
    old: bytes
    new: bytes
    stamp: tuple[int, int] | None
    updated: list[int] = field(default_factory=list)  # indices of the blocks rewritten
    notes: list[str] = field(default_factory=list)  # `file:line: why` of each stale block left as it was

    def diff(self) -> str:
        """A unified diff of the rewrite, by lines (their ends left out)."""
        import difflib

        old, new = (_split(data.decode("utf-8")) for data in (self.old, self.new))
        strip = [line.rstrip("\r\n") for line in old], [line.rstrip("\r\n") for line in new]
        rel = self.post.rel
        return "\n".join(difflib.unified_diff(*strip, rel, f"{rel} (updated)", lineterm=""))


_NOTEBOOK = "not updated: check --update rewrites Markdown posts; edit this cell"


def stale(result: BlockResult) -> bool:
    """A block whose code ran as expected but printed something else than its output block or doctest says."""
    return result.status == "failed" and (result.error or {}).get("type") == "OutputMismatch"


def plan_update(post: Post, blocks: list[CodeBlock], run: PostRun) -> FileUpdate:
    """The post file with its stale blocks rewritten (not written yet); Changed if the file is no longer the one
    loaded before the run."""
    path = post.source
    stamp = file_stamp(path)
    data = path.read_bytes()
    if bytes_digest(data) != post.digest:
        raise Changed(f"{post.rel} changed while its code ran; not updated (run check --update again)")
    update = FileUpdate(post, data, data, stamp)
    by_index = {b.index: b for b in blocks}
    lines = _split(data.decode("utf-8"))
    plans: list[BlockPlan] = []
    for result in run.blocks:
        block = by_index.get(result.index)
        if block is None or not stale(result):
            continue
        # a notebook is not rewritten (its JSON is not the body its blocks come from): its stale blocks are named
        plan = _plan_block(lines, block, result) if post.cells is None else _NOTEBOOK
        if isinstance(plan, str):
            line = (result.error or {}).get("line") or block.line
            where = post.cells.at(line) if post.cells is not None else f"{post.rel}:{line}"
            update.notes.append(f"{where}: {plan}")
        else:
            plans.append(plan)
    if not plans:
        return update
    new = _apply(lines, [e for p in plans for e in p.edits])
    if not _parses_as_planned(post, new, blocks, plans):
        update.notes.append(f"{post.rel}: not updated: the rewrite would change more than its stale outputs")
        return update
    update.new, update.updated = new.encode("utf-8"), [p.index for p in plans]
    return update


def write_update(update: FileUpdate) -> None:
    """Replace the post file by its rewrite in one step (its permissions kept); Changed, and the file left as it is,
    if it is no longer the one the rewrite was made from."""
    path = os.path.realpath(update.post.source)  # a symlinked post: its target is rewritten, the link stays
    if file_stamp(Path(path)) != update.stamp or Path(path).read_bytes() != update.old:
        raise Changed(f"{update.post.rel} changed while check ran; not updated (run check --update again)")
    mode = stat.S_IMODE(os.stat(path).st_mode)
    with atomic_file(path) as fh:
        fh.write(update.new)
        if hasattr(os, "fchmod"):  # not on Windows
            os.fchmod(fh.fileno(), mode)


def mark_updated(run: PostRun, indices: list[int]) -> PostRun:
    """The run with its rewritten blocks passing: their expectations now say what they printed."""
    done = set(indices)
    blocks = [replace(b, status="passed", error=None) if b.index in done else b for b in run.blocks]
    return replace(run, blocks=blocks)


def _split(text: str) -> list[str]:
    return _LINES.findall(text)


def _eol(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :] or "\n"


def _normalise(text: str) -> str:
    """What the runner compares: trailing whitespace of each line and of the whole left out."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


def _content(text: str) -> list[str]:
    """A fence's content as lines (markdown-it ends each with a newline)."""
    return text.split("\n")[:-1]


def _prefix(lines: list[str], first: int, content: list[str], closing: int) -> str | None:
    """What stands before each content line in the file (a list item's indentation, a quote's `> `), taken from a
    content line or the closing fence; None if the file's lines are not the content with it."""
    bodies = [line.rstrip("\r\n") for line in lines[first : first + len(content)]]
    sample = next(((b, c) for b, c in zip(bodies, content, strict=False) if c.strip()), None)
    if sample is not None:
        body, text = sample
        if not body.endswith(text):
            return None
        prefix = body[: len(body) - len(text)]
    elif closing < len(lines):
        prefix = re.split("[`~]", lines[closing], maxsplit=1)[0]  # what stands before the closing fence
    else:
        return None
    if len(bodies) != len(content) or any(
        b.rstrip() != (prefix + c).rstrip() for b, c in zip(bodies, content, strict=True)
    ):
        return None
    return prefix


def _line(prefix: str, text: str, eol: str) -> str:
    return (prefix + text if text else prefix.rstrip()) + eol


def _plan_block(lines: list[str], block: CodeBlock, result: BlockResult) -> BlockPlan | str:
    """The rewrite of one stale block, or why it is left as it is."""
    error = result.error or {}
    if "examples" in error:
        return _plan_doctest(lines, block, error["examples"])
    return _plan_output(lines, block, result.stdout)


def _plan_output(lines: list[str], block: CodeBlock, stdout: str) -> BlockPlan | str:
    if block.expected is None or block.expected_line is None:
        return "not updated: the block has no output block"
    old = _content(block.expected)
    first = block.expected_line - 1
    closing = first + len(old)
    if closing >= len(lines) or not lines[closing].lstrip(" >").startswith(("```", "~~~")):
        return "not updated: its output block is not closed"
    prefix = _prefix(lines, first, old, closing)
    if prefix is None:
        return "not updated: its output block's lines could not be found in the file"
    printed = _normalise(stdout)
    new = printed.split("\n") if printed else []
    if any(line.lstrip().startswith(("```", "~~~")) for line in new):
        return "not updated: what it printed has a line that would end its output block"
    eol = _eol(lines[first - 1])
    edit = Edit(first, len(old), [_line(prefix, text, eol) for text in new])
    return BlockPlan(block.index, [edit], block.code, "".join(text + "\n" for text in new))


def _plan_doctest(lines: list[str], block: CodeBlock, failures: list[dict[str, Any]]) -> BlockPlan | str:
    """The expected output of each mismatching example replaced by what it printed; the block is left as it is if
    any example failed otherwise (raised an exception it did not expect)."""
    other = next((f for f in failures if f.get("type") != "OutputMismatch" or "got" not in f), None)
    if other is not None:
        return f"not updated: an example raised {other.get('type')} (line {other.get('line')})"
    code = _content(block.code)
    first = block.line - 1
    prefix = _prefix(lines, first, code, first + len(code))
    if prefix is None:
        return "not updated: its lines could not be found in the file"
    examples = {ex.lineno: ex for ex in doctest.DocTestParser().get_examples(block.code)}
    new_code, edits, wants = list(code), [], {}
    eol = _eol(lines[first])
    for failure in sorted(failures, key=lambda f: -int(f["example"])):  # bottom up: earlier lines stay put
        ex = examples.get(failure["example"])
        if ex is None or ex.exc_msg is not None:
            return "not updated: an example that expects a traceback printed something else"
        printed = _normalise(failure["got"])
        got = [text or "<BLANKLINE>" for text in printed.split("\n")] if printed else []
        want = [" " * ex.indent + text for text in got]
        start, count = ex.lineno + ex.source.count("\n"), ex.want.count("\n")
        new_code[start : start + count] = want
        edits.append(Edit(first + start, count, [_line(prefix, text, eol) for text in want]))
        wants[ex.lineno] = "".join(text + "\n" for text in got)
    text = "".join(line + "\n" for line in new_code)
    parsed = doctest.DocTestParser().get_examples(text)
    planned = [(ex.source, wants.get(ex.lineno, ex.want), ex.exc_msg) for ex in examples.values()]
    if [(ex.source, ex.want, ex.exc_msg) for ex in parsed] != planned:
        return "not updated: what an example printed would not read back as its expected output"
    return BlockPlan(block.index, edits, text, block.expected)


def _apply(lines: list[str], edits: list[Edit]) -> str:
    out = list(lines)
    for edit in sorted(edits, key=lambda e: -e.first):
        out[edit.first : edit.first + edit.count] = edit.lines
    return "".join(out)


def _parses_as_planned(post: Post, text: str, blocks: list[CodeBlock], plans: list[BlockPlan]) -> bool:
    """Whether the rewritten file has the same blocks, options and code, with only the planned changes."""
    try:
        front = read_front_matter(text.replace("\r\n", "\n"), post.rel)
        parsed = code_blocks(parse_post(replace(post, body=front.body, body_line=front.body_line, warnings=[])))
    except Exception:  # anything the rewrite broke is a reason not to write it
        return False
    planned = {p.index: p for p in plans}

    def shape(b: CodeBlock, plan: BlockPlan | None) -> tuple[Any, ...]:
        code, expected = (plan.code, plan.expected) if plan else (b.code, b.expected)
        return b.index, b.kind, b.options, code, expected

    return [shape(b, None) for b in parsed] == [shape(b, planned.get(b.index)) for b in blocks]
