"""The theme: its folders (the site's theme over the default one) and the stamps of their files. Light to import:
a build with nothing to do reads it without the Jinja environment (`templates`)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from site_builder.config import CONFIG_NAME, SiteConfig
from site_builder.errors import SiteError

DEFAULT_THEME = Path(str(resources.files("site_builder") / "themes" / "default"))  # package data


@dataclass
class Theme:
    """A theme's folders, most specific first (the site's theme, then the default theme)."""

    dirs: list[Path]
    name: str


def find_theme(config: SiteConfig) -> Theme:
    dirs = [d for d in (config.theme_dir, config.root / "themes" / "default", DEFAULT_THEME) if d.is_dir()]
    if not config.theme_dir.is_dir() and not (config.theme == "default" and dirs):
        raise SiteError(
            f"theme {config.theme!r} not found (no directory themes/{config.theme}/)",
            CONFIG_NAME if (config.root / CONFIG_NAME).exists() else None,
        )
    unique: list[Path] = []
    for d in dirs:
        if d.resolve() not in [u.resolve() for u in unique]:
            unique.append(d)
    return Theme(unique, config.theme)


@dataclass(frozen=True)
class ThemeFile:
    """A file of a theme folder, as the keys of a build see it."""

    part: str  # the first part of its path in the folder: "templates", "static", "i18n", ...
    stamp: str  # path, size and mtime: changes when the file does


def theme_files(theme: Theme) -> list[ThemeFile]:
    """Every file of the theme's folders, folder by folder, in path order (walked once a build: the site key and
    `build.unchanged` both read them)."""
    files = []
    for d in theme.dirs:
        for path in sorted(d.rglob("*")):
            if path.is_file():
                st = path.stat()
                files.append(ThemeFile(path.relative_to(d).parts[0], f"{path}:{st.st_size}:{st.st_mtime_ns}"))
    return files


def site_static_files(config: SiteConfig) -> list[ThemeFile]:
    """The files of the site's static folder (`static_dir`), as theme static files are keyed: a build with nothing
    else to do still copies a changed one."""
    folder = config.root / config.static_dir
    files = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if path.is_file():
            st = path.stat()
            files.append(ThemeFile("static", f"{path}:{st.st_size}:{st.st_mtime_ns}"))
    return files
