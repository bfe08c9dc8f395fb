"""Stage 2, parse: emphasis next to Chinese, Japanese and Korean text, by the "CommonMark CJK-friendly amendments".

CommonMark refuses `**中文（English）**的` and `**엠케(Coraline Ada Ehmke)**가`: the closing `**` is preceded by
punctuation and followed by a letter, so it is not right-flanking, and the page shows the literal `**`. The
amendment (https://github.com/tats-u/markdown-cjk-friendly/blob/main/specification.md, section 6.2; what
markdown-it's `markdown-it-cjk-friendly` and kramdown render) changes the flanking rules only where a CJK character
(or a CJK character's variation selector, or an ideographic variation selector) sits next to the delimiter run:

- left-flanking: not followed by whitespace, and either not followed by a *non-CJK* punctuation character, or
  preceded by whitespace, a non-CJK punctuation sequence, a CJK sequence or an ideographic variation selector;
- right-flanking: not preceded by whitespace, and either not preceded by a *non-CJK* punctuation sequence, or
  followed by whitespace, a non-CJK punctuation character or a CJK character;
- a single or double `_` opens when left-flanking and either not right-flanking or preceded by a punctuation
  sequence (a punctuation character, perhaps followed by a variation selector).

A "sequence" is a character with, perhaps, a non-emoji variation selector (U+FE00-U+FE0E) after it. A CJK
character: East Asian Width W, F or H and not an emoji, or Hangul. Where neither neighbour of the run is at or above
U+1100 (Latin text, code, math) nothing can differ, and markdown-it's own `scanDelims` answers.

mdit-py-cjk-friendly (PyPI, 0.3.0) was considered: it patches `StateInline.scanDelims` for every parser in the
process on import, leaves Hangul out (the Korean case above stays raw) and also joins soft line breaks.
"""

from __future__ import annotations

import functools
import unicodedata

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter, Scanned

FIRST_CJK = 0x1100  # Hangul Jamo: no character below it is CJK, a variation selector or one of the spec's ideographs

# Wide characters that are emoji (Emoji_Presentation=Yes), which the spec does not count as CJK.
_EMOJI_RANGES = (
    (0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3), (0x25FD, 0x25FE), (0x2614, 0x2615),
    (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693), (0x26A1, 0x26A1), (0x26AA, 0x26AB), (0x26BD, 0x26BE),
    (0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4), (0x26EA, 0x26EA), (0x26F2, 0x26F3), (0x26F5, 0x26F5),
    (0x26FA, 0x26FA), (0x26FD, 0x26FD), (0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C),
    (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797), (0x27B0, 0x27B0), (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x1F004, 0x1F004), (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F201, 0x1F201), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F236), (0x1F238, 0x1F23A), (0x1F250, 0x1F251), (0x1F300, 0x1FAFF),
)  # fmt: skip
_HANGUL_RANGES = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xFFA0, 0xFFDC))


@functools.lru_cache(maxsize=4096)
def is_cjk(ch: str) -> bool:
    """A CJK character by the spec: East Asian Width W, F or H and not an emoji, or Hangul."""
    cp = ord(ch)
    if cp < FIRST_CJK:
        return False
    if any(lo <= cp <= hi for lo, hi in _HANGUL_RANGES):
        return True
    return unicodedata.east_asian_width(ch) in ("W", "F", "H") and not any(lo <= cp <= hi for lo, hi in _EMOJI_RANGES)


def _is_punct(ch: str) -> bool:
    """A Unicode punctuation character, as markdown-it-py's own `scanDelims` tells it."""
    return isMdAsciiPunct(ord(ch)) or isPunctChar(ch)


def _is_vs(ch: str) -> bool:
    """A non-emoji general-use variation selector (U+FE00-U+FE0E)."""
    return "\ufe00" <= ch <= "\ufe0e"


def _is_ivs(ch: str) -> bool:
    """An ideographic variation selector (U+E0100-U+E01EF)."""
    return "\U000e0100" <= ch <= "\U000e01ef"


def scan_delims(state: StateInline, start: int, can_split_word: bool) -> Scanned:
    """`StateInline.scanDelims` with the CJK-friendly flanking rules (see the module's docstring)."""
    src = state.src
    last = src[start - 1] if start > 0 else " "
    pos, maximum, marker = start, state.posMax, src[start]
    while pos < maximum and src[pos] == marker:
        pos += 1
    nxt = src[pos] if pos < maximum else " "
    if ord(last) < FIRST_CJK and ord(nxt) < FIRST_CJK:
        return state.scanDelims(start, can_split_word)
    # the character a variation selector belongs to stands for the sequence (a run at a line's start: whitespace)
    base = (src[start - 2] if start > 1 else " ") if _is_vs(last) else last
    last_ws, next_ws = isWhiteSpace(ord(last)), isWhiteSpace(ord(nxt))
    last_punct, next_punct = _is_punct(base), _is_punct(nxt)
    last_cjk, next_cjk = is_cjk(base), is_cjk(nxt)
    last_other_punct = last_punct and not last_cjk
    next_other_punct = next_punct and not next_cjk
    left = not next_ws and (not next_other_punct or last_ws or last_other_punct or last_cjk or _is_ivs(last))
    right = not last_ws and (not last_other_punct or next_ws or next_other_punct or next_cjk)
    can_open = left and (can_split_word or not right or last_punct)
    can_close = right and (can_split_word or not left or next_punct)
    return Scanned(can_open, can_close, pos - start)


def tokenize(state: StateInline, silent: bool) -> bool:
    """markdown-it-py's emphasis rule (`rules_inline.emphasis.tokenize`), with `scan_delims` deciding flanking."""
    marker = state.src[state.pos]
    if silent or marker not in ("_", "*"):
        return False
    scanned = scan_delims(state, state.pos, marker == "*")
    for _ in range(scanned.length):
        token = state.push("text", "", 0)
        token.content = marker
        state.delimiters.append(
            Delimiter(
                marker=ord(marker),
                length=scanned.length,
                token=len(state.tokens) - 1,
                end=-1,
                open=scanned.can_open,
                close=scanned.can_close,
            )
        )
    state.pos += scanned.length
    return True


def cjk_emphasis_plugin(md: MarkdownIt) -> None:
    """Emphasis by the CJK-friendly amendments: the `emphasis` inline rule replaced, under its own name."""
    md.inline.ruler.at("emphasis", tokenize)
