"""`site-builder import OLD_SITE NEW_SITE`: a blog's source (Jekyll, Hugo, Pelican) into a new site.

Importers are readers into one writer:

    OLD_SITE ──► detect.py ──► <generator>.read(root, config) ──► SourceSite ──► writer.write_site ──► NEW_SITE
                 (which one)   (jekyll.py, hugo.py, pelican.py)   (model.py)     (+ report.py)

- `detect.py` names the generator from its config file.
- A reader is a module with `read(root: Path, config: Path) -> SourceSite`: it reads the config into
  `SiteSettings`, each post and page into a `SourceDoc` (front matter in our keys, the URL the source generator
  gave it as `permalink`, the body converted by its list of `rules.py` rules), and lists the `SourceFile`s the docs
  use (`assets.py` finds and resolves them). It writes nothing.
- What every generator's site needs after its reader (`finish`): the `math_macros` its formulas use that math-core
  lacks (`mathjax.py`), one spelling for tags that differ only in case (`tagcase.py`), `toc: false` and
  `comments: false` kept.
- `writer.py` writes NEW_SITE (refusing a non-empty one, never overwriting) and counts what it wrote;
  `report.py` is what the command prints.

Add a generator: a module here with `read`, its name in `READERS`, its config names in `detect.py`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from site_builder.errors import SiteError
from site_builder.importer.source import mathjax, tagcase
from site_builder.importer.source.detect import detect
from site_builder.importer.source.model import SourceSite
from site_builder.importer.source.report import SourceReport
from site_builder.importer.source.writer import check_target, write_site

READERS = {
    "jekyll": "site_builder.importer.source.jekyll",
    "hugo": "site_builder.importer.source.hugo",
    "pelican": "site_builder.importer.source.pelican",
}


def import_source(old: Path, new: Path) -> SourceReport:
    """Read the source site at `old` and write it as a new site at `new` (new or empty)."""
    old, new = Path(old), Path(new)
    check_target(new)
    found = detect(old)
    try:
        reader = importlib.import_module(READERS[found.generator])
    except ModuleNotFoundError:
        raise SiteError(f"importing a {found.generator} site is not supported yet", found.config) from None
    site = reader.read(old, found.config)
    finish(site)
    return write_site(site, new)


def finish(site: SourceSite) -> None:
    """The steps after any reader (module docstring)."""
    site.settings.math_macros = mathjax.site_macros(site.docs)
    tagcase.unify(site.docs)
    for doc in site.docs:  # a post whose old theme was told to show no contents, or no comments, shows none here
        for key in ("toc", "comments"):
            if str(doc.source_meta.get(key)).lower() == "false":  # YAML's false, Pelican's text
                doc.meta[key] = False


__all__ = ["SourceReport", "import_source"]
