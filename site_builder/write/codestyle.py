"""The stylesheet of code blocks (css/pygments.css, on pages with code only): Pygments' token colours for light and
dark pages (site.yml's `highlight:`), the bar with a block's title and copy button, line numbers and marked lines."""

from __future__ import annotations

from pygments.formatters import HtmlFormatter

from site_builder.config.highlight import CodeStyles

CODE_STYLES = (CodeStyles().light, CodeStyles().dark)  # the default Pygments styles, light and dark (on --code-bg)
_UNSET = {"color": "inherit", "background-color": "transparent", "font-weight": "normal", "font-style": "normal"}


def _token_styles(style: str) -> dict[str, dict[str, str]]:
    """A Pygments style's declarations by token class: `k` -> {"color": "#008000", "font-weight": "bold"}."""
    formatter = HtmlFormatter(style=style)
    return {
        cls: dict(part.split(": ", 1) for part in decl.split("; ") if ": " in part)
        for cls, (decl, _, _) in formatter.class2style.items()  # type: ignore[attr-defined]
        if cls  # the style's plain text colour: the page's own
    }


def _css_rules(scope: str, styles: dict[str, dict[str, str]]) -> str:
    """One rule per distinct declaration block, its token classes grouped: `scope :is(.c,.ch){...}`."""
    groups: dict[str, list[str]] = {}
    for cls, props in sorted(styles.items()):
        groups.setdefault(";".join(f"{k}:{v}" for k, v in props.items()), []).append(f".{cls}")
    return "".join(
        f"{scope} {classes[0] if len(classes) == 1 else ':is(' + ','.join(classes) + ')'}{{{body}}}\n"
        for body, classes in groups.items()
    )


def pygments_css(light: str = CODE_STYLES[0], dark: str = CODE_STYLES[1]) -> str:
    """Stylesheet for highlighted code: the light style, and the dark one where the page is dark: the reader chose
    it with the theme's button (`<html data-theme="dark">`), or chose nothing and the system is dark. What the light
    style sets and the dark one does not is undone in dark pages, so no light colour or weight shows through."""
    on_light, on_dark = _token_styles(light), _token_styles(dark)
    for cls, props in on_light.items():
        own = on_dark.setdefault(cls, {})
        for prop in props:
            own.setdefault(prop, _UNSET.get(prop, "initial"))
    return (
        f"/* code: Pygments {light!r}, and {dark!r} in dark pages */\n"
        + _css_rules(".highlight", on_light)
        + _css_rules(":root[data-theme=dark] .highlight", on_dark)
        + "@media (prefers-color-scheme: dark) {\n"
        + _css_rules(":root:not([data-theme=light]) .highlight", on_dark)
        + "}\n"
        + BLOCK_CSS
    )


# A block's bar (its title; the copy button, which js adds) sits above the code, so nothing covers a line however
# narrow the page. Line numbers are CSS counters: not text, so neither selected nor copied. A marked line's colour
# keeps every token of the default styles at 4.5:1 (WCAG AA). A verified doctest's "✓ verified" (site.css) joins
# the bar. The copy button's "Copied" is said by a status region (.copy-status) only screen readers see.
BLOCK_CSS = """/* code blocks: bar, copy button, line numbers, marked lines */
.highlight { --hl: #fffae8; }
:root[data-theme=dark] .highlight { --hl: #23262b; }
@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) .highlight { --hl: #23262b; } }
.code-bar { display: flex; align-items: center; gap: .5rem; padding: .3rem .4rem .3rem 1.1rem;
  border-bottom: 1px solid var(--rule); font: .8rem/1.4 var(--sans); color: var(--muted); }
.code-bar:not(:has(.code-title)) { border-bottom: 0; padding-bottom: 0; }  /* the button alone: code right under it */
.code-bar:not(:has(.code-title)) + pre { padding-top: .35rem; }
.code-title { margin-right: auto; min-width: 0; font-family: var(--mono); color: var(--fg); overflow-wrap: anywhere; }
.code-copy { margin-left: auto; flex: none; padding: .15rem .65rem; border: 1px solid var(--rule); border-radius: 6px;
  background: var(--card); color: var(--muted); font: inherit; cursor: pointer; }
.code-copy:hover { color: var(--accent); border-color: var(--accent); }
.code-copy.done { color: var(--ok); border-color: var(--ok); }
.copy-status { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
.highlight code.lines { display: block; width: max-content; min-width: 100%; }
.highlight .line { display: block; }
.highlight .hl { margin: 0 -1.1rem; padding: 0 1.1rem; background: var(--hl); box-shadow: inset 3px 0 var(--accent); }
.highlight .linenos { counter-reset: line; }
.highlight .linenos .line::before { counter-increment: line; content: counter(line); display: inline-block;
  min-width: 2ch; margin-right: 1.1rem; text-align: right; color: var(--muted); user-select: none; }
.highlight .ln3 .line::before { min-width: 3ch; } .highlight .ln4 .line::before { min-width: 4ch; }
.highlight .ln5 .line::before { min-width: 5ch; }
.highlight.checked:has(> .code-bar) { display: grid; grid-template-columns: 1fr auto auto; align-items: center; }
.highlight.checked > .code-bar { display: contents; }
.highlight.checked .code-title { order: 1; padding: .3rem 0 .3rem 1.1rem; font-size: .8rem; }
.highlight.checked:has(> .code-bar)::before { order: 2; padding: .3rem .2rem .3rem .6rem; }
.highlight.checked .code-copy { order: 3; margin: .3rem .4rem; font: .8rem/1.4 var(--sans); }
.highlight.checked:has(> .code-bar) > pre { order: 4; grid-column: 1 / -1; padding-top: .9rem;
  border-top: 1px solid var(--rule); }
"""
