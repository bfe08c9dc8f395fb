"""The stylesheet of highlighted code (css/pygments.css): Pygments' token colours for light and dark pages."""

from __future__ import annotations

from pygments.formatters import HtmlFormatter

CODE_STYLES = ("default", "github-dark")  # Pygments styles of code in light and dark pages (on the theme's --code-bg)
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


def pygments_css() -> str:
    """Stylesheet for highlighted code: the light style, and the dark one where the page is dark: the reader chose
    it with the theme's button (`<html data-theme="dark">`), or chose nothing and the system is dark. What the light
    style sets and the dark one does not is undone in dark pages, so no light colour or weight shows through."""
    light, dark = (_token_styles(style) for style in CODE_STYLES)
    for cls, props in light.items():
        own = dark.setdefault(cls, {})
        for prop in props:
            own.setdefault(prop, _UNSET.get(prop, "initial"))
    return (
        f"/* code: Pygments {CODE_STYLES[0]!r}, and {CODE_STYLES[1]!r} in dark pages */\n"
        + _css_rules(".highlight", light)
        + _css_rules(":root[data-theme=dark] .highlight", dark)
        + "@media (prefers-color-scheme: dark) {\n"
        + _css_rules(":root:not([data-theme=light]) .highlight", dark)
        + "}\n"
    )
