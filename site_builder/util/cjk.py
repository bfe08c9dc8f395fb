"""Chinese, Japanese and Korean text: the character classes every stage uses to tell CJK from Latin text."""

from __future__ import annotations

import re

# Hiragana/Katakana, CJK Extension A, CJK Unified Ideographs, Compatibility Ideographs
_HAN_KANA = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HANGUL = "\uac00-\ud7af"

CJK = re.compile(f"[{_HAN_KANA}{_HANGUL}]")  # any CJK character, Hangul syllables included
HAN_KANA = re.compile(f"[{_HAN_KANA}]")  # Chinese and Japanese characters only (bilingual poems: zh/ja vs Latin lines)


def has_cjk(text: str) -> bool:
    return CJK.search(text) is not None
