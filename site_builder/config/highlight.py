"""site.yml's `highlight:`: the Pygments styles of code in light and dark pages."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from site_builder.config.schema import HIGHLIGHT_KEYS, unknown_keys
from site_builder.errors import SiteError, SiteWarning

_DEFAULTS = {k.name: k.default for k in HIGHLIGHT_KEYS}
_WHERE = "site.yml"  # config.site.CONFIG_NAME (site imports this module)


@dataclass(frozen=True)
class CodeStyles:
    """The Pygments style of code in light pages, and in dark ones (on the theme's --code-bg)."""

    light: str = _DEFAULTS["light"]
    dark: str = _DEFAULTS["dark"]


@cache
def style_names() -> tuple[str, ...]:
    from pygments.styles import get_all_styles  # only for a site that names a style

    return tuple(sorted(get_all_styles()))


def read_highlight(raw: Any, lines: dict[str, int], warnings: list[SiteWarning]) -> CodeStyles:
    """`highlight: {light: NAME, dark: NAME}`. Not a mapping, or a name that is not text, is an error; a style
    Pygments does not have is a warning with the closest name, and that side keeps its default (only the colours
    of code change: the site is still right), added to `warnings`."""
    if raw is None:
        return CodeStyles()
    if not isinstance(raw, dict):
        raise SiteError(
            f"highlight must be a mapping of light: and dark: Pygments styles, got {raw!r}",
            _WHERE,
            lines.get("highlight"),
        )
    warnings += unknown_keys(raw, HIGHLIGHT_KEYS, _WHERE, lines, prefix="highlight.")
    chosen = dict(_DEFAULTS)
    for side in _DEFAULTS:
        name = raw.get(side)
        line = lines.get(f"highlight.{side}", lines.get("highlight"))
        if name is None:
            continue
        if not isinstance(name, str):
            raise SiteError(f"highlight: {side} must be the name of a Pygments style, got {name!r}", _WHERE, line)
        if name in style_names():
            chosen[side] = name
            continue
        import difflib  # for a name Pygments does not have

        close = difflib.get_close_matches(name, style_names(), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else "`pygmentize -L styles` lists them"
        message = f"highlight: {side}: no Pygments style {name!r}"
        warnings.append(SiteWarning(message, _WHERE, line, f"{_DEFAULTS[side]!r} used", hint))
    return CodeStyles(chosen["light"], chosen["dark"])
