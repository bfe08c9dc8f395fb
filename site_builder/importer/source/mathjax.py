"""Math as MathJax read it in a source whose pages MathJax rendered (Hugo, Pelican), where our TeX reading
differs (rules.py rules).

- `$\\$$`, a formula that is only an escaped dollar (how MathJax sites write a price next to inline math), is
  the dollar sign MathJax showed: `\\$` in Markdown. Left as it is, `$\\$$40` reads as `$$` here.
"""

from __future__ import annotations

import re

from site_builder.importer.source.rules import RuleContext, sub_outside_code

_DOLLAR_ONLY = re.compile(r"(?<![\\$])\$\\\$\$(?!\$)")


def escaped_dollars(text: str, ctx: RuleContext) -> str:
    return sub_outside_code(_DOLLAR_ONLY, lambda m, _o: ctx.keep("\\$"), text)
