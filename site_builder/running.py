"""An executing post as `serve` shows it while its code runs (stage 4, serve only): each executed block's code at
once, with a "running…" note where its outputs go; the outputs of the post's last run, if it had one with the same
blocks, shown under it marked stale until the new ones arrive. The words are the theme's, in the page's language."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from site_builder.codeblocks import FenceHook, exec_fence_hook, highlight_code
from site_builder.fences import block_is_doctest, shows_code

if TYPE_CHECKING:
    from markdown_it.token import Token
    from markdown_it.utils import EnvType

    from site_builder.execute.results import PostRun

# The note's words ("running…", "运行中…") and the stale outputs' label are the theme's, in the page's language
# (site.css, as the output badges'): the fragment holds no words of its own.
RUNNING = '<p class="exec-running" role="status"></p>\n'


def running_fence_hook(lines: list[int], stale: PostRun | None) -> FenceHook:
    """A fence hook for a post whose run is under way: `lines` are its executed blocks' first lines; `stale` the
    post's last run, its blocks already moved to these lines (`stale_run`), or None."""
    executed = set(lines)
    shown = exec_fence_hook(stale, keep_going=True) if stale is not None else None

    def hook(tok: Token, lang: str, opts: dict[str, str], env: EnvType) -> str | None:
        line = int(env.get("line_offset", 1)) + (tok.map[0] if tok.map else 0) + 1
        html = shown(tok, lang, opts, env) if shown is not None else None
        if lang == "output":  # an expected output: as the last run checked it (stale), or as written
            return None if html is None else _stale(html)
        if line not in executed:
            return html
        if html is None:
            html = highlight_code(tok.content, lang, opts, block_is_doctest(tok, lang)) if shows_code(opts) else ""
            return html + RUNNING
        return _stale(html) + RUNNING

    return hook


def _stale(html: str) -> str:
    return f'<div class="exec-stale">{html}</div>\n'


def stale_run(last: PostRun, lines: list[int]) -> PostRun | None:
    """`last` (a run of the same post) with its blocks moved to `lines`, the first lines of the post's executed
    blocks now; None when the post no longer has the same number of blocks (its outputs could not be placed)."""
    if len(last.blocks) != len(lines):
        return None
    shift = dict(zip((b.line for b in last.blocks), lines, strict=True))
    blocks = [dataclasses.replace(b, line=new) for b, new in zip(last.blocks, lines, strict=True)]
    error = last.error
    if error is not None and error.get("line") in shift:
        error = {**error, "line": shift[error["line"]]}
    return dataclasses.replace(last, blocks=blocks, error=error)
