"""Which generator made OLD_SITE, from its config file (the first that exists, in this order).

- Jekyll: `_config.yml` (or `_config.yaml`);
- Hugo: `hugo.toml`, `hugo.yaml`, `hugo.yml`, `hugo.json`, `config.toml`, `config.yaml`, `config.yml`, or a
  `config/_default/` folder holding one of those (Hugo's config directory);
- Pelican: `pelicanconf.py`, read as text by its reader, never executed.

A folder with none of them is a SiteError naming what was looked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from site_builder.errors import SiteError

JEKYLL_CONFIGS = ("_config.yml", "_config.yaml")
HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.yml")
PELICAN_CONFIGS = ("pelicanconf.py",)


@dataclass(frozen=True)
class Detected:
    """The generator and the config file that told (for Hugo's config folder, the first file in it)."""

    generator: str  # "jekyll", "hugo", "pelican"
    config: Path


def _first(root: Path, names: tuple[str, ...]) -> Path | None:
    return next((root / n for n in names if (root / n).is_file()), None)


def detect(root: Path) -> Detected:
    """The generator of the source tree at `root`, or a SiteError."""
    if not root.is_dir():
        raise SiteError("not a folder: import a site's source folder (or a feed file with --into)", root)
    found = _first(root, JEKYLL_CONFIGS)
    if found is not None:
        return Detected("jekyll", found)
    found = _first(root, HUGO_CONFIGS) or _first(root / "config" / "_default", HUGO_CONFIGS)
    if found is not None:
        return Detected("hugo", found)
    found = _first(root, PELICAN_CONFIGS)
    if found is not None:
        return Detected("pelican", found)
    looked = ", ".join((*JEKYLL_CONFIGS, *HUGO_CONFIGS, "config/_default/", *PELICAN_CONFIGS))
    raise SiteError(f"no Jekyll, Hugo or Pelican config found (looked for {looked})", root)
