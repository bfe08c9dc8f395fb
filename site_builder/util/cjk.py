"""Chinese, Japanese and Korean text: the character classes every stage uses to tell CJK from Latin text.

The patterns are compiled when first used (each big character class costs ~3 ms to compile, which a build that
renders nothing should not pay)."""

from __future__ import annotations

import functools
import re

# Hiragana/Katakana, CJK Extension A, CJK Unified Ideographs, Compatibility Ideographs
_HAN_KANA = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HANGUL = "\uac00-\ud7af"


@functools.cache
def cjk() -> re.Pattern[str]:
    """Any CJK character, Hangul syllables included."""
    return re.compile(f"[{_HAN_KANA}{_HANGUL}]")


@functools.cache
def han_kana() -> re.Pattern[str]:
    """Chinese and Japanese characters only (bilingual poems: zh/ja lines against Latin ones)."""
    return re.compile(f"[{_HAN_KANA}]")


def has_cjk(text: str) -> bool:
    return cjk().search(text) is not None
