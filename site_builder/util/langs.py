"""Which of its texts a language reads: the theme's i18n files, admonition titles, the words a page's code writes.

Chinese is read by its script, as Chirpy's and Hugo's sites name it: zh-TW, zh-HK, zh-MO, zh-Hant -> zh-TW
(Traditional); zh, zh-CN, zh-Hans -> zh (Simplified)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

_TRADITIONAL = ("tw", "hk", "mo", "hant")  # Chinese written in traditional characters: zh-TW, zh-HK, zh-Hant...
T = TypeVar("T")


def strings_names(lang: str) -> list[str]:
    """The names a language's texts may be found under, most specific first: `pt-BR` -> pt-BR, pt; Chinese by its
    script: zh-HK -> zh-HK, zh-TW; zh-Hans-CN -> zh-Hans-CN, zh."""
    parts = lang.split("-")
    base = parts[0].lower()
    if base == "zh" and len(parts) > 1:
        return [lang, "zh-TW" if any(p.lower() in _TRADITIONAL for p in parts[1:]) else "zh"]
    return [lang, base] if base != lang else [lang]


def in_language(lang: str, table: Mapping[str, T]) -> T:
    """`table`'s entry for `lang` (by strings_names), else its English one."""
    return next((table[name] for name in strings_names(lang) if name in table), table["en"])
