"""site.yml's `math_macros`: TeX macros of every formula, as MathJax's `Macros`, each checked once with math-core."""

from __future__ import annotations

import re
from typing import Any

from site_builder.errors import SiteError

_WHERE = "site.yml"  # config.site.CONFIG_NAME (site imports this module)


def math_macros(value: Any, lines: dict[str, int]) -> dict[str, str]:
    """`math_macros`: name -> TeX, as MathJax's `Macros` (a `[TeX, number of arguments]` pair is read too)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SiteError(f"math_macros must be a mapping of name: TeX, got {value!r}", _WHERE, lines.get("math_macros"))
    macros = {}
    for name, tex in value.items():
        if isinstance(tex, list) and tex:  # MathJax: [expansion, arguments]; math-core counts the #N itself
            tex = tex[0]
        line = lines.get(f"math_macros.{name}", lines.get("math_macros"))
        if not isinstance(name, str) or not re.fullmatch(r"\\?[A-Za-z]+", name) or not isinstance(tex, (str, int)):
            raise SiteError(f"math_macros: {name!r}: {tex!r} must be a macro name (letters) and its TeX", _WHERE, line)
        macros[name.lstrip("\\")] = str(tex)
        _check_macro(name.lstrip("\\"), str(tex), line)
    return macros


def _check_macro(name: str, tex: str, line: int | None) -> None:
    """A macro math-core cannot expand would fail every formula of the site: an error at its line."""
    from math_core import LatexError, LatexToMathML  # only for a site that declares macros

    arguments = max((int(n) for n in re.findall(r"#(\d)", tex)), default=0)
    try:
        LatexToMathML(fancy_error=False, macros={name: tex}).convert_with_local_state(
            f"\\{name}" + "{x}" * arguments, displaystyle=False
        )
    except LatexError as exc:
        reason = re.sub(r"^\w+:\d+: ", "", str(exc).strip())
        raise SiteError(f"math_macros: {name}: math-core cannot read {tex!r}: {reason}", _WHERE, line) from None
